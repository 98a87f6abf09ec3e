package dev.baton.recipes.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.baton.testing.Checkers;
import dev.baton.testing.ClientLink;
import dev.baton.testing.GuardedResource;
import dev.baton.testing.History;
import dev.baton.testing.RandomFaults;
import dev.baton.testing.Violation;
import dev.baton.testing.ZooKeeperEnsemble;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.ZooKeeper;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first real fault run: five clients on the foundation client only take a naive lock (an ephemeral
 * {@code /lock}, fencing token = its czxid; see {@link NaiveLockClient}) on a real 3-server ensemble of separate
 * JVMs, through random faults (server kills, leader kills, client partitions, server isolation from its peers,
 * session expiry, server pauses, quorum loss), then the history checkers: mutual exclusion among connected,
 * unpaused believers, strictly increasing tokens, no stale token accepted by the guarded resource, and a holder
 * again within the session timeout plus a few seconds after faults heal.
 *
 * <p>Length and mix come from system properties (see {@link FaultRunSettings}); the default is 30 s of faults,
 * about a minute in all. A soak run:
 * <pre>
 * mvn -B -pl suite/faults -am verify -Dtest=NaiveLockRandomFaultsTest -Dbaton.faults.duration=1h \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * The history of every run is written to {@code suite/faults/target/faults/} (and the servers' logs when it fails).
 *
 * <p>Not here: pauses of a client process (SIGSTOP of a driver JVM); the clients run in this JVM. The faults
 * come from the kit's {@link RandomFaults}, as in {@code baton chaos}.
 */
@Tag("fault")
class NaiveLockRandomFaultsTest {

    private static final Logger LOG = LoggerFactory.getLogger(NaiveLockRandomFaultsTest.class);

    /** Extra time after the last heal for a holder to show: the session timeout plus this. */
    private static final Duration LIVENESS_SLACK = Duration.ofSeconds(6);

    @Test
    void naiveLockOnTheFoundationClientStaysSafeUnderRandomFaults() {
        FaultRunSettings settings = FaultRunSettings.fromSystemProperties();
        Duration limit = settings.duration().plus(Duration.ofMinutes(4));
        assertTimeoutPreemptively(limit, () -> run(settings),
                () -> "the fault run did not finish within " + limit + "; replay with " + settings.replay());
    }

    private void run(FaultRunSettings settings) throws Exception {
        LOG.warn("fault run: {} (replay with {})", settings, settings.replay());
        Path out = Path.of("target", "faults");
        Files.createDirectories(out);
        String runName = "naive-lock-seed" + settings.seed();
        History history = new History();
        GuardedResource resource = new GuardedResource("resource", history);
        Duration livenessBound = settings.sessionTimeout().plus(LIVENESS_SLACK);
        List<NaiveLockClient> clients = new ArrayList<>();
        int faults;
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().servers(3).proxies(true).build().start()) {
            try {
                List<Target> targets = new ArrayList<>();
                for (int i = 1; i <= settings.clients(); i++) {
                    ClientLink link = ensemble.newClientLink();
                    NaiveLockClient client = new NaiveLockClient("c" + i, link.connectString(),
                            settings.sessionTimeout(), history, resource, settings.seed() + i);
                    targets.add(new Target("c" + i, link, client));
                    clients.add(client);
                    client.start();
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> clients.stream().allMatch(c -> c.client().isConnected()));
                history.note("all " + clients.size() + " clients connected; faults begin");

                RandomFaults injector = new RandomFaults(ensemble, targets, history, settings.seed(),
                        settings.mix(), settings.sessionTimeout());
                injector.run(settings.duration());
                faults = injector.faults();
                ensemble.healAll();
                long healedAt = history.size();
                history.note("faults over; waiting up to " + livenessBound.toMillis() + " ms for a holder");
                awaitHolderAfter(history, healedAt, livenessBound);
            } finally {
                clients.forEach(NaiveLockClient::close);
                history.dump(out.resolve(runName + ".history"));
                Files.writeString(out.resolve(runName + ".txt"), history.toString());
            }
            List<Violation> violations = Checkers.check(history,
                    Checkers.mutualExclusion(),
                    Checkers.fencingTokensIncrease(),
                    Checkers.noStaleTokenAccepted(),
                    Checkers.liveness(livenessBound, NaiveLockClient.LOCK));
            long acquisitions = clients.stream().mapToLong(NaiveLockClient::acquisitions).sum();
            LOG.warn("fault run {}: {} faults, {} events, {} acquisitions, resource accepted {} / rejected {},"
                            + " {} violation(s)", runName, faults, history.size(), acquisitions,
                    resource.acceptedCount(), resource.rejectedCount(), violations.size());
            if (!violations.isEmpty()) {
                ensemble.copyLogsTo(out.resolve(runName + "-logs"));
                throw new AssertionError(Checkers.describe(violations, history.size())
                        + "\nreplay with " + settings.replay() + "; full history in "
                        + out.resolve(runName + ".txt").toAbsolutePath());
            }
            assertThat(faults).as("faults injected").isPositive();
            assertThat(acquisitions).as("lock acquisitions (a run without them proves nothing)")
                    .isGreaterThanOrEqualTo(10);
            assertThat(resource.acceptedCount()).as("resource operations accepted").isPositive();
        }
    }

    /** A client as the fault injector reaches it: its own link, and its current session to expire. */
    private record Target(String name, ClientLink link, NaiveLockClient client) implements RandomFaults.Target {
        @Override
        public Optional<RandomFaults.Session> session() {
            ZooKeeper zk = client.client().getZooKeeper();
            long id = zk.getSessionId(); // 0 between sessions: nothing to expire
            return id == 0 ? Optional.empty() : Optional.of(new RandomFaults.Session(id, zk.getSessionPasswd()));
        }
    }

    /** Waits until some client acquires after event {@code fromSeq}, or {@code bound} passes. */
    private static void awaitHolderAfter(History history, long fromSeq, Duration bound) {
        try {
            await().atMost(bound).pollInterval(Duration.ofMillis(50)).until(() -> history.events().stream()
                    .anyMatch(e -> e.seq() >= fromSeq && e.kind() == History.Kind.ACQUIRED));
        } catch (ConditionTimeoutException e) {
            // The liveness checker reports it, with the history excerpt.
        }
    }
}
