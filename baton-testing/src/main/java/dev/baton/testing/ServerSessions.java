package dev.baton.testing;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.server.ZKDatabase;

/**
 * The sessions and watches an {@link EmbeddedZooKeeper} holds, seen and ended from the test's side: lists the
 * live sessions from the server's database, reads the watches through the {@code wchs} and {@code wchp}
 * four-letter words, and expires sessions, waiting until the server has dropped them and their ephemeral nodes.
 */
final class ServerSessions {

    private static final Pattern TOTAL_WATCHES = Pattern.compile("Total watches:(\\d+)");

    /** Bound on an expiry when no timeout is given. */
    private static final Duration DEFAULT_EXPIRY_TIMEOUT = Duration.ofSeconds(30);

    private final ServerLifecycle lifecycle;

    ServerSessions(ServerLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    /** As {@link EmbeddedZooKeeper#liveSessions()}. */
    Set<Long> live() {
        CountingZooKeeperServer zks = lifecycle.runningServer();
        if (zks == null) {
            return Set.of();
        }
        ZKDatabase db = zks.getZKDatabase();
        return db == null ? Set.of() : Set.copyOf(db.getSessionWithTimeOuts().keySet());
    }

    /** As {@link EmbeddedZooKeeper#watchCount()}. */
    int watchCount() {
        int port = lifecycle.plaintextPort();
        String answer = FourLetterWords.send(port, "wchs", 5_000).orElseThrow(() ->
                new IllegalStateException("the server on port " + port + " did not answer wchs"));
        Matcher total = TOTAL_WATCHES.matcher(answer);
        if (!total.find()) {
            throw new IllegalStateException("unexpected wchs answer: " + answer);
        }
        return Integer.parseInt(total.group(1));
    }

    /** As {@link EmbeddedZooKeeper#watchedPaths()}. */
    Set<String> watchedPaths() {
        int port = lifecycle.plaintextPort(); // four-letter words are plaintext, also on a TLS server
        String answer = FourLetterWords.send(port, "wchp", 5_000)
                .orElseThrow(() -> new IllegalStateException("the server on port " + port + " did not answer wchp"));
        Set<String> paths = new TreeSet<>();
        for (String line : answer.split("\n", -1)) {
            if (line.startsWith("/")) {
                paths.add(line.trim());
            }
        }
        return paths;
    }

    /** As {@link EmbeddedZooKeeper#expireSession(long, byte[])}. */
    void expire(long sessionId, byte[] password) throws InterruptedException {
        Objects.requireNonNull(password, "password");
        requireRunning();
        if (!lifecycle.settings().security().requiredSchemes().isEmpty()) {
            // The expirer's own handle could not authenticate, and the server would close it unheard.
            expire(sessionId);
            return;
        }
        String plaintextConnectString = ServerRun.HOST + ":" + lifecycle.plaintextPort();
        long deadline = System.nanoTime() + DEFAULT_EXPIRY_TIMEOUT.toNanos();
        SessionExpirer.expire(plaintextConnectString, sessionId, password, DEFAULT_EXPIRY_TIMEOUT);
        awaitGone(sessionId, deadline);
    }

    /** As {@link EmbeddedZooKeeper#expireSession(long)}. */
    void expire(long sessionId) throws InterruptedException {
        CountingZooKeeperServer zks = requireRunning();
        long deadline = System.nanoTime() + DEFAULT_EXPIRY_TIMEOUT.toNanos();
        if (zks.getZKDatabase().getSessionWithTimeOuts().containsKey(sessionId)) {
            zks.expire(sessionId);
        }
        awaitGone(sessionId, deadline);
    }

    private CountingZooKeeperServer requireRunning() {
        CountingZooKeeperServer zks = lifecycle.runningServer();
        if (zks == null) {
            throw new IllegalStateException("ZooKeeper server is not running");
        }
        return zks;
    }

    /**
     * Waits until the closeSession transaction is applied: the session is unknown and owns no ephemerals.
     * (The tracker forgets the session a moment before the data tree drops its ephemerals, hence both checks.)
     */
    private void awaitGone(long sessionId, long deadlineNanos) throws InterruptedException {
        while (true) {
            CountingZooKeeperServer zks = requireRunning();
            ZKDatabase db = zks.getZKDatabase();
            if (!db.getSessionWithTimeOuts().containsKey(sessionId)
                    && db.getDataTree().getEphemerals(sessionId).isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadlineNanos >= 0) {
                throw new IllegalStateException("session 0x" + Long.toHexString(sessionId)
                        + " still alive on the server after " + DEFAULT_EXPIRY_TIMEOUT, new TimeoutException());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }
}
