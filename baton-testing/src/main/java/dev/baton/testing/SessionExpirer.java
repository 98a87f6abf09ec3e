package dev.baton.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.StaticHostProvider;
import org.apache.zookeeper.client.ZKClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires a ZooKeeper session on the server, the way a real session timeout ends it, without waiting for the
 * timeout and without touching the client that owns the session.
 *
 * <p>How: a second client handle connects with the victim's session id and password (the server moves the
 * session to it and drops the victim's connection), then closes, which makes the server end the session and
 * delete its ephemeral nodes. The helper then connects once more with the same credentials and expects the
 * server to answer {@code Expired}; if instead it gets the session (the victim reconnected in between and the
 * close was lost with the connection), it closes it again, until the server confirms or the timeout passes.
 * Works against any ZooKeeper server, embedded or not.
 *
 * <p>The victim learns of it when it next reaches the server: it sees {@code Disconnected}, reconnects and
 * receives {@code KeeperState.Expired}; its handle is then dead.
 *
 * <p>Thread-safety: stateless; call from any thread.
 */
public final class SessionExpirer {

    private static final Logger LOG = LoggerFactory.getLogger(SessionExpirer.class);

    /** Session timeout asked for by the helper's own handles; the server clamps it to its limits. */
    private static final int HELPER_SESSION_TIMEOUT_MS = 10_000;

    private SessionExpirer() {
    }

    /**
     * Expires the session of {@code victim} on the server at {@code connectString}. The handle itself is not
     * closed or otherwise touched.
     *
     * @param connectString the server(s) the victim is connected to, e.g. {@code "127.0.0.1:2181"}
     * @param victim the client handle whose session to end; it must have a session
     * @param timeout the longest time to wait for the server
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws IllegalArgumentException if the handle has no session yet or the timeout is not positive
     * @throws IllegalStateException if the server does not confirm within {@code timeout} (the cause is a
     *     {@link TimeoutException})
     * @throws UncheckedIOException if a helper handle cannot be created
     */
    public static void expire(String connectString, ZooKeeper victim, Duration timeout)
            throws InterruptedException {
        Objects.requireNonNull(victim, "victim");
        expire(connectString, victim.getSessionId(), victim.getSessionPasswd(), timeout);
    }

    /**
     * Expires session {@code sessionId} on the server at {@code connectString}. When this method returns the
     * server has refused the session's credentials, i.e. the session is over. In the usual case its
     * {@code closeSession} was applied, and its ephemeral nodes deleted, before that answer; if the session was
     * already ending for another reason (its own close, its timeout) the deletion may still be in flight.
     * A wrong password looks the same as an ended session to this method.
     *
     * @param connectString the server(s), e.g. {@code "127.0.0.1:2181"}
     * @param sessionId the session to end ({@code ZooKeeper.getSessionId()})
     * @param password its password ({@code ZooKeeper.getSessionPasswd()})
     * @param timeout the longest time to wait for the server
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws IllegalArgumentException if {@code sessionId} is 0 or the timeout is not positive
     * @throws IllegalStateException if the server does not confirm within {@code timeout} (the cause is a
     *     {@link TimeoutException})
     * @throws UncheckedIOException if a helper handle cannot be created
     */
    public static void expire(String connectString, long sessionId, byte[] password, Duration timeout)
            throws InterruptedException {
        Objects.requireNonNull(connectString, "connectString");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(timeout, "timeout");
        if (sessionId == 0) {
            throw new IllegalArgumentException("sessionId is 0: the handle has no session yet");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        String hexId = "0x" + Long.toHexString(sessionId);
        for (int attempt = 1; ; attempt++) {
            KeeperState answer = connectAs(connectString, sessionId, password, deadline, timeout, hexId);
            if (answer == KeeperState.Expired) {
                LOG.debug("session {} expired on {} after {} attempt(s)", hexId, connectString, attempt);
                return;
            }
            // The session was still alive; connectAs() closed it. Loop to have the server confirm.
        }
    }

    /**
     * Opens one handle with the session's credentials and waits for the server's answer. If it is
     * {@code SyncConnected}, closes the handle (waiting for the server to process {@code closeSession}).
     *
     * @return {@link KeeperState#Expired} or {@link KeeperState#SyncConnected}
     */
    private static KeeperState connectAs(String connectString, long sessionId, byte[] password,
            long deadline, Duration timeout, String hexId) throws InterruptedException {
        CompletableFuture<KeeperState> answer = new CompletableFuture<>();
        Watcher watcher = (WatchedEvent event) -> {
            KeeperState s = event.getState();
            if (s == KeeperState.SyncConnected || s == KeeperState.Expired || s == KeeperState.AuthFailed) {
                answer.complete(s);
            }
        };
        ZooKeeper helper = open(connectString, sessionId, password, watcher, remainingMillis(deadline));
        try {
            KeeperState state = answer.get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
            if (state == KeeperState.AuthFailed) {
                throw new IllegalStateException("authentication failed while expiring session " + hexId);
            }
            if (state == KeeperState.SyncConnected) {
                // Sends closeSession and waits for the server's reply (bounded by the request timeout).
                helper.close(remainingMillis(deadline));
            }
            return state;
        } catch (TimeoutException e) {
            throw new IllegalStateException("session " + hexId + " not expired on " + connectString
                    + " within " + timeout, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause()); // not reached: the future only completes normally
        } finally {
            closeQuietly(helper);
        }
    }

    private static ZooKeeper open(String connectString, long sessionId, byte[] password, Watcher watcher,
            int requestTimeoutMs) {
        ZKClientConfig config = new ZKClientConfig();
        // Bounds close(): without it the closeSession request could wait for as long as a session timeout.
        config.setProperty(ZKClientConfig.ZOOKEEPER_REQUEST_TIMEOUT, Integer.toString(requestTimeoutMs));
        try {
            ConnectStringParser parser = new ConnectStringParser(connectString);
            return new ZooKeeper(connectString, HELPER_SESSION_TIMEOUT_MS, watcher, sessionId, password, false,
                    new StaticHostProvider(parser.getServerAddresses()), config);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a ZooKeeper handle to " + connectString, e);
        }
    }

    /** Milliseconds left until {@code deadline}, at least 1 so a late check still makes one quick try. */
    private static int remainingMillis(long deadline) {
        long ms = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        return (int) Math.max(1, Math.min(ms, Integer.MAX_VALUE));
    }

    private static void closeQuietly(ZooKeeper zk) {
        try {
            zk.close(); // no-op if already closed or expired
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
