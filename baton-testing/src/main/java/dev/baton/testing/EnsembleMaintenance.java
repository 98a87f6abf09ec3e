package dev.baton.testing;

import dev.baton.testing.RandomFaults.FaultKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;

/**
 * The faults of {@link RandomFaults} that are an operator's work on the whole ensemble rather than an accident:
 * a rolling upgrade (and back), a rolling restart, and a server removed by dynamic reconfiguration and added back.
 * Each runs at an operator's pace and reports its steps through {@link Steps}.
 */
final class EnsembleMaintenance {

    /** How long a rolling fault waits for every server to serve. */
    private static final Duration ROLL_WAIT = Duration.ofSeconds(90);

    /** Where the injector records what a fault does. */
    interface Steps {
        void injected(String id, FaultKind kind, String description);

        /** A step within a fault, between its injection and its heal. */
        void step(String id, String description);

        void healed(String id, String description);
    }

    private final ZooKeeperEnsemble ensemble;
    private final Duration sessionTimeout;
    private final Steps steps;
    /** The ensemble's first release and the upgrade's target, for {@link FaultKind#ROLLING_UPGRADE}; or null. */
    private @Nullable String upgradeFrom;
    private @Nullable String upgradeTo;

    EnsembleMaintenance(ZooKeeperEnsemble ensemble, Duration sessionTimeout, Steps steps) {
        this.ensemble = ensemble;
        this.sessionTimeout = sessionTimeout;
        this.steps = steps;
    }

    /** See {@link RandomFaults#upgradeTo(String)}. */
    void upgradeTo(String version) {
        String to = ZooKeeperEnsemble.releaseVersion(version);
        String from = ensemble.serverVersion();
        if (to.equals(from)) {
            throw new IllegalArgumentException("upgradeTo " + version + ": the ensemble already runs " + from);
        }
        upgradeFrom = from;
        upgradeTo = to;
    }

    boolean canUpgrade() {
        return upgradeTo != null;
    }

    /**
     * Moves every server to the other line, the followers first and the leader last, each serving with a whole
     * quorum before the next is stopped. A server already on the target (after an interrupted roll) is skipped.
     * After each server, one session timeout for the clients it dropped to settle on another server, as an
     * operator lets a cluster settle: without it, a client that hopped to the next server to go could be dropped
     * again and again: 5 minutes of back-to-back rolls (62) with 5 clients on 4 s sessions lost 2 sessions without
     * the pause, and 5 minutes with it (17 rolls) none.
     */
    void rollingUpgrade(String id) throws InterruptedException {
        String from = Objects.requireNonNull(upgradeFrom, "no upgradeTo(version) was set");
        String to = Objects.requireNonNull(upgradeTo, "no upgradeTo(version) was set");
        int leader = ensemble.awaitAllServing(ROLL_WAIT);
        boolean upgraded = ensemble.serverVersions().values().stream().allMatch(to::equals);
        String target = upgraded ? from : to;
        List<Integer> order = leaderLast(leader, server -> !ensemble.serverVersion(server).equals(target));
        steps.injected(id, FaultKind.ROLLING_UPGRADE, (upgraded ? "rolling downgrade " : "rolling upgrade ")
                + String.join("/", ensemble.serverVersions().values().stream().distinct().sorted().toList()) + " -> "
                + target + ": servers " + order + " in turn, the leader (" + leader + ") last");
        roll(id, order, server -> {
            String was = ensemble.serverVersion(server);
            ensemble.restart(server, target);
            return "server " + server + " " + was + " -> " + ensemble.reportedVersion(server).orElse("?")
                    + " (per srvr)";
        });
        steps.healed(id, "every server on " + target);
    }

    /** Restarts every server on its own release, at the pace and in the order of a rolling upgrade. */
    void rollingRestart(String id) throws InterruptedException {
        int leader = ensemble.awaitAllServing(ROLL_WAIT);
        List<Integer> order = leaderLast(leader, server -> true);
        steps.injected(id, FaultKind.ROLLING_RESTART, "rolling restart: servers " + order + " in turn, the leader ("
                + leader + ") last");
        roll(id, order, server -> {
            ensemble.restart(server);
            return "server " + server + " restarted";
        });
        steps.healed(id, "every server restarted");
    }

    /**
     * Removes {@code server} from the ensemble by dynamic reconfiguration, leaves it out for {@code holdMs}, and
     * adds it back; clients that follow the configuration move off it and may move back.
     */
    void reconfigure(String id, int server, long holdMs) throws InterruptedException {
        ensemble.awaitAllServing(ROLL_WAIT);
        steps.injected(id, FaultKind.RECONFIGURE, "remove server " + server + " from the ensemble (reconfig)");
        Set<Integer> members = ensemble.removeMember(server);
        steps.step(id, "members now " + members);
        Thread.sleep(holdMs);
        members = ensemble.addMember(server);
        steps.healed(id, "server " + server + " added back (reconfig), members " + members);
    }

    /** Adds back every server a reconfiguration left out (after an interrupted fault). */
    void addBackRemoved() throws InterruptedException {
        for (int server : ensemble.removedMembers()) {
            ensemble.addMember(server);
        }
    }

    /** The servers {@code chosen} picks, the followers first and {@code leader} last. */
    private List<Integer> leaderLast(int leader, IntPredicate chosen) {
        List<Integer> order = new ArrayList<>();
        for (int server : ensemble.serverIds()) {
            if (server != leader && chosen.test(server)) {
                order.add(server);
            }
        }
        if (chosen.test(leader)) {
            order.add(leader);
        }
        return order;
    }

    /**
     * Restarts {@code order}'s servers one at a time with {@code restart} (which says what it did), each serving
     * with a whole quorum before the next, and one session timeout for the clients to settle after each.
     */
    private void roll(String id, List<Integer> order, IntFunction<String> restart) throws InterruptedException {
        for (int server : order) {
            String did = restart.apply(server);
            int now = ensemble.awaitAllServing(ROLL_WAIT);
            steps.step(id, did + ", quorum whole, leader " + now);
            Thread.sleep(sessionTimeout.toMillis()); // the operator's pace, not a wait for a condition
        }
    }
}
