package dev.baton.recipes.faults;

import dev.baton.recipes.faults.FaultRunSettings.FaultKind;
import dev.baton.testing.ClientLink;
import dev.baton.testing.History;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Injects random faults into an ensemble and its clients, one at a time, and records each injection and heal in
 * a {@link History} ({@code FAULT_INJECTED}/{@code FAULT_HEALED}, fault ids {@code f1}, {@code f2}, ...). The
 * schedule (which fault, for how long, the quiet time between faults) comes from a seeded {@link Random}; the
 * effects of course depend on thread timing.
 *
 * <p>Session expiry on demand ends a session on the servers at once, while its client is still connected and
 * learns it only when the server drops its connection (tens to hundreds of milliseconds later). A real expiry
 * only happens after the client went without contact for the whole session timeout, by which time it has
 * suspended itself. So for this fault the injector records {@code DISCONNECTED} for the victim just before
 * expiring it: the checkers then treat its belief as they treat a paused or partitioned client's, and the
 * guarded resource's fencing is what must protect the data in that window.
 */
final class RandomFaults {

    private static final Logger LOG = LoggerFactory.getLogger(RandomFaults.class);

    private final ZooKeeperEnsemble ensemble;
    private final List<ClientLink> links;
    private final List<Supplier<ZooKeeper>> sessions;
    private final History history;
    private final Random random;
    private final List<FaultKind> mix;
    private final Duration sessionTimeout;
    private int faults;

    /**
     * @param links one private link per client, in client order
     * @param sessions the current ZooKeeper handle of each client, in client order (for session expiry)
     */
    RandomFaults(ZooKeeperEnsemble ensemble, List<ClientLink> links, List<Supplier<ZooKeeper>> sessions,
            History history, long seed, List<FaultKind> mix, Duration sessionTimeout) {
        this.ensemble = ensemble;
        this.links = links;
        this.sessions = sessions;
        this.history = history;
        this.random = new Random(seed);
        this.mix = mix;
        this.sessionTimeout = sessionTimeout;
    }

    /** Returns how many faults were injected. */
    int faults() {
        return faults;
    }

    /**
     * Injects faults until {@code duration} has passed (the last one may run over by its own length), each healed
     * before the next; returns with everything healed and every server running.
     */
    void run(Duration duration) throws InterruptedException {
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            FaultKind kind = mix.get(random.nextInt(mix.size()));
            if (kind == FaultKind.QUORUM && mix.size() > 1) {
                kind = mix.get(random.nextInt(mix.size())); // half as likely: it stops all work for seconds
            }
            inject(kind);
            Thread.sleep(300 + random.nextInt(1_700)); // quiet time: let the clients work
        }
    }

    private void inject(FaultKind kind) throws InterruptedException {
        String id = "f" + (++faults);
        long holdMs = 500 + random.nextInt(3_500);
        switch (kind) {
            case KILL -> {
                int server = randomServer();
                injected(id, "SIGKILL server " + server);
                ensemble.kill(server);
                Thread.sleep(holdMs);
                ensemble.start(server);
                healed(id, "restarted server " + server);
            }
            case KILL_LEADER -> {
                int leader = ensemble.awaitLeader(Duration.ofSeconds(30));
                injected(id, "SIGKILL leader server " + leader);
                ensemble.kill(leader);
                Thread.sleep(holdMs);
                ensemble.start(leader);
                healed(id, "restarted server " + leader);
            }
            case PARTITION -> {
                // Sometimes longer than a session, so that sessions expire while the client is cut off.
                long ms = 500 + random.nextInt((int) (sessionTimeout.toMillis() * 2));
                TcpProxy.Mode mode = random.nextBoolean() ? TcpProxy.Mode.DROP : TcpProxy.Mode.BLACKHOLE;
                List<Integer> victims = randomClients(1 + random.nextInt(2));
                injected(id, "partition clients " + names(victims) + " from all servers (" + mode + ") for " + ms
                        + " ms");
                victims.forEach(c -> links.get(c).partition(mode));
                Thread.sleep(ms);
                victims.forEach(c -> links.get(c).heal());
                healed(id, "healed clients " + names(victims));
            }
            case ISOLATE -> {
                int server = randomServer();
                TcpProxy.Mode mode = random.nextBoolean() ? TcpProxy.Mode.DROP : TcpProxy.Mode.BLACKHOLE;
                injected(id, "isolate server " + server + " from its peers (" + mode + ")");
                ensemble.isolate(server, mode);
                Thread.sleep(holdMs);
                ensemble.healPeers();
                healed(id, "healed peers of server " + server);
            }
            case EXPIRE -> {
                int victim = random.nextInt(sessions.size());
                ZooKeeper zk = sessions.get(victim).get();
                if (zk.getSessionId() == 0) {
                    // Between sessions (its last one expired, the new handle is not connected yet): nothing to end.
                    history.note("fault " + id + " skipped: " + name(victim) + " has no session to expire");
                    return;
                }
                injected(id, "expire session 0x" + Long.toHexString(zk.getSessionId()) + " of " + name(victim));
                // From here the session is ending on the servers while the client, not told yet, still believes
                // what it believed: the window a client cannot know about, as in a pause. Mark it out of touch;
                // its own SUSPENDED/LOST/RECONNECTED follow, and a belief it still holds at RECONNECTED counts.
                history.recorder(name(victim)).disconnected("session expired on the servers by fault " + id
                        + "; the client is not told yet");
                try {
                    ensemble.expireSession(zk);
                } catch (IllegalStateException e) {
                    LOG.warn("session expiry of {} did not complete: {}", name(victim), e.toString());
                }
                healed(id, "expired");
            }
            case PAUSE_SERVER -> {
                int server = randomServer();
                injected(id, "SIGSTOP server " + server);
                ensemble.pause(server);
                Thread.sleep(holdMs);
                ensemble.resume(server);
                healed(id, "SIGCONT server " + server);
            }
            case QUORUM -> {
                injected(id, "lose quorum");
                Set<Integer> killed = ensemble.loseQuorum();
                history.note("killed servers " + killed);
                Thread.sleep(holdMs);
                int leader = ensemble.regainQuorum();
                healed(id, "regained quorum, leader " + leader);
            }
            default -> throw new IllegalStateException("unexpected fault kind " + kind);
        }
    }

    private void injected(String id, String description) {
        LOG.info("fault {}: {}", id, description);
        history.faultInjected(id, description);
    }

    private void healed(String id, String description) {
        LOG.info("fault {} healed: {}", id, description);
        history.faultHealed(id, description);
    }

    private int randomServer() {
        List<Integer> ids = new ArrayList<>(ensemble.serverIds());
        return ids.get(random.nextInt(ids.size()));
    }

    private List<Integer> randomClients(int n) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < links.size(); i++) {
            all.add(i);
        }
        Collections.shuffle(all, random);
        return all.subList(0, Math.min(n, all.size()));
    }

    private static String name(int client) {
        return "c" + (client + 1);
    }

    private static String names(List<Integer> clients) {
        return clients.stream().map(RandomFaults::name).toList().toString();
    }
}
