package dev.baton.testing;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Asks the servers of a {@link ZooKeeperEnsemble} with four-letter words who leads and who serves, and waits
 * until they do. Thread-safe: it only reads the servers' volatile state and polls them.
 */
final class QuorumProbe {

    private static final long POLL_MILLIS = 100;

    private final String name;
    private final Map<Integer, EnsembleServer> servers;

    /**
     * A probe of the servers of one ensemble.
     *
     * @param name the ensemble's name, for messages
     * @param servers the ensemble's servers in id order, not modified afterwards
     */
    QuorumProbe(String name, Map<Integer, EnsembleServer> servers) {
        this.name = name;
        this.servers = servers;
    }

    /** The servers whose process is alive (paused or not), in id order. */
    List<EnsembleServer> runningServers() {
        return servers.values().stream().filter(EnsembleServer::isRunning).collect(Collectors.toList());
    }

    /**
     * The server that says it leads, asked of each running server with {@code srvr}; of several (an isolated old
     * leader has not noticed yet), the one of the newest epoch.
     */
    Optional<Integer> findLeader() {
        int best = -1;
        long bestEpoch = Long.MIN_VALUE;
        for (EnsembleServer s : runningServers()) {
            if (s.paused) {
                continue;
            }
            Optional<String> srvr = FourLetterWords.send(s.clientPort, "srvr", EnsembleServer.FOUR_LETTER_TIMEOUT_MS);
            if (srvr.isPresent() && FourLetterWords.mode(srvr.get()).filter("leader"::equals).isPresent()) {
                long epoch = FourLetterWords.epoch(srvr.get());
                if (epoch > bestEpoch) {
                    best = s.id;
                    bestEpoch = epoch;
                }
            }
        }
        return best < 0 ? Optional.empty() : Optional.of(best);
    }

    /** Waits until a server leads, until the {@link System#nanoTime()} {@code deadline}. */
    int awaitLeaderUntil(long deadline) {
        while (true) {
            Optional<Integer> leader = findLeader();
            if (leader.isPresent()) {
                return leader.get();
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("no leader in ensemble " + name + ": " + describe());
            }
            EnsembleServer.sleepMillis(POLL_MILLIS);
        }
    }

    /** Waits until a server other than {@code formerLeader} leads. */
    int awaitNewLeader(int formerLeader, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<Integer> leader = findLeader();
            if (leader.isPresent() && leader.get() != formerLeader) {
                return leader.get();
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("no leader other than " + formerLeader + " in ensemble " + name
                        + " after " + timeout + ": " + describe());
            }
            EnsembleServer.sleepMillis(POLL_MILLIS);
        }
    }

    /** Waits until every server runs and serves and one of them leads; fails at once if a server is down. */
    int awaitAllServing(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Integer> down = servers.values().stream().filter(s -> !s.isRunning()).map(s -> s.id).toList();
            if (!down.isEmpty()) {
                throw new IllegalStateException("servers " + down + " of ensemble " + name + " are down");
            }
            if (servers.values().stream().allMatch(EnsembleServer::isServing)) {
                Optional<Integer> leader = findLeader();
                if (leader.isPresent()) {
                    return leader.get();
                }
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("ensemble " + name + " not whole after " + timeout + ": "
                        + describe());
            }
            EnsembleServer.sleepMillis(POLL_MILLIS);
        }
    }

    /** Each server's release, state and client port, for messages and test output. */
    String describe() {
        return servers.values().stream().map(s -> s.id + "=" + s.version + " " + (s.isRunning()
                ? (s.paused ? "paused" : s.mode().orElse("not-serving")) : "down") + ":" + s.clientPort)
                .collect(Collectors.joining(", ", "{", "}"));
    }
}
