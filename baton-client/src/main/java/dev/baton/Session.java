package dev.baton;

import dev.baton.internal.Futures;
import dev.baton.internal.TlsProbe;
import dev.baton.state.ConnectionState;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.StaticHostProvider;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the ZooKeeper handle and turns its connection events into {@link ConnectionState}s.
 *
 * <p>A handle whose session expired is replaced by a new one at once, so the client always has a handle that is
 * connecting or connected. Events from a replaced handle are ignored: each handle gets its own watcher, and only
 * the current watcher's events count. All state changes happen under {@code lock}, so states are posted in the
 * order they happened, whichever thread (ZooKeeper's event thread, the scheduler) saw them.
 *
 * <p>A session the client gives up on its own (simulated expiry: suspended too long) may still be alive on the
 * server, with a request of it still on its way there (in a stopped server's socket buffer, say). Such a request
 * could land after the client's next operations on its new session, and be applied behind their backs. So the
 * old session is closed on the server, through a handle of its own that reattaches to it ({@link OldSession}),
 * and the new session's connection is held back (not reported, no operation sent) until the server has
 * confirmed the old one is gone: from then on, nothing of the old session can be applied.
 */
final class Session {
    private static final Logger LOG = LoggerFactory.getLogger(Session.class);

    private final ClientCore core;
    private final Object lock = new Object();
    /** Guards the TLS diagnosis fields below. */
    private final Object probeLock = new Object();
    @GuardedBy("lock")
    private final List<CompletableFuture<Void>> connectWaiters = new ArrayList<>();
    /** Sessions given up by the client and not yet confirmed closed on the server. */
    @GuardedBy("lock")
    private final List<OldSession> closing = new ArrayList<>();
    /** The current handle's connection, held back while {@link #closing} is not empty; null if none. */
    @GuardedBy("lock")
    private Watcher.Event.@Nullable KeeperState heldBack;

    /** The current handle; null before {@link #start()}. */
    private volatile @Nullable ZooKeeper zk;
    private volatile boolean connected;
    /** The last state posted; null before the first connection. */
    private volatile @Nullable ConnectionState lastPosted;
    /** The watcher of the current handle, whose events alone count; null before {@link #start()}. */
    @GuardedBy("lock")
    private @Nullable HandleWatcher currentWatcher;
    private volatile boolean everConnected;
    private volatile boolean closed;
    @GuardedBy("lock")
    private long disconnectEpoch;
    /**
     * The last contact of the session as known when the connection dropped: the handle's last-heard time then,
     * but no later than the read-timeout bound, because the handle resets its last-heard time whenever it
     * tries to reconnect and may already have done so.
     */
    private volatile long heardAtDisconnectMs;
    /** The event thread of the current handle, learned from its first event; null before. */
    private volatile @Nullable Thread eventThread;
    /** The last TLS diagnosis ({@link #notConnected()}), reused until {@link #diagnosedAtNanos} is stale. */
    @GuardedBy("probeLock")
    private Optional<TlsProbe.TlsFailure> diagnosis = Optional.empty();
    @GuardedBy("probeLock")
    private long diagnosedAtNanos;
    /** The message of the last diagnosis logged, so that a diagnosis is logged once; null before. */
    @GuardedBy("probeLock")
    private @Nullable String lastReported;

    Session(ClientCore core) {
        this.core = core;
    }

    void start() {
        synchronized (lock) {
            zk = newHandle();
        }
    }

    ZooKeeper handle() {
        ZooKeeper current = zk;
        if (current == null || closed) {
            throw closed ? core.closedException() : new IllegalStateException("client is not started");
        }
        return current;
    }

    boolean isConnected() {
        return connected;
    }

    /** The server the current handle is connected to, or null while it is not. */
    java.net.@Nullable InetSocketAddress serverAddress() {
        ZooKeeper current = zk;
        return connected && current instanceof Handle handle ? handle.server() : null;
    }

    /** Counts connections: changes each time the client connects (to the same server or another). */
    long connectionEpoch() {
        synchronized (lock) {
            return disconnectEpoch;
        }
    }

    /**
     * How long the current session is sure to stay alive on the server if the client hears nothing more:
     * last contact + negotiated timeout − margin − now, never negative. The margin (a tenth of the timeout,
     * at least 100 ms) covers clock-rate drift and the server's expiry check granularity. Zero when closed or
     * the session was lost and no new one is connected yet.
     */
    Duration safeFor() {
        ZooKeeper current = zk;
        if (current == null || closed || lastPosted == ConnectionState.LOST || !everConnected) {
            return Duration.ZERO;
        }
        long timeoutMs = current.getSessionTimeout();
        long nowMs = System.nanoTime() / 1_000_000;
        long heardMs;
        if (connected && current.getState().isConnected()) {
            heardMs = LastContact.lastHeardMillis(current);
            if (heardMs <= 0) {
                heardMs = nowMs - readTimeoutMs(timeoutMs); // unknown: a live handle heard within its read timeout
            }
        } else if (!connected) {
            heardMs = heardAtDisconnectMs;
        } else {
            // The handle has dropped the connection but its event has not reached us yet. Its last-heard time is
            // reset by each reconnection attempt, so it can't be trusted any more.
            heardMs = Math.min(LastContact.lastHeardMillis(current), nowMs - readTimeoutMs(timeoutMs));
        }
        long marginMs = Math.max(100, timeoutMs / 10);
        return Duration.ofMillis(Math.max(0, heardMs + timeoutMs - marginMs - nowMs));
    }

    /** ZooKeeper's client declares a connection dead after hearing nothing for 2/3 of the session timeout. */
    private static long readTimeoutMs(long sessionTimeoutMs) {
        return sessionTimeoutMs * 2 / 3;
    }

    @Nullable ConnectionState lastState() {
        return lastPosted;
    }

    /** Opens a handle. */
    @GuardedBy("lock")
    private ZooKeeper newHandle() {
        ClientConfig config = core.config();
        HandleWatcher watcher = new HandleWatcher();
        currentWatcher = watcher;
        String connectString = config.ensembleProvider().getConnectionString();
        int timeoutMs = (int) config.sessionTimeout().toMillis();
        ZKClientConfig clientConfig = config.zkClientConfig();
        try {
            ZooKeeper handle = clientConfig == null
                    ? new Handle(connectString, timeoutMs, watcher, config.canBeReadOnly())
                    : new Handle(connectString, timeoutMs, watcher, config.canBeReadOnly(), clientConfig);
            for (AuthInfo auth : config.authInfos()) {
                handle.addAuthInfo(auth.scheme(), auth.auth());
            }
            return handle;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a ZooKeeper handle for " + connectString, e);
        }
    }

    private final class HandleWatcher implements Watcher {
        @Override
        public void process(WatchedEvent event) {
            if (source() == this) {
                eventThread = Thread.currentThread(); // watchers and callbacks of this handle run here
            }
            if (event.getType() == Event.EventType.None) {
                onConnectionEvent(this, event.getState());
            }
        }
    }

    private @Nullable HandleWatcher source() {
        synchronized (lock) {
            return currentWatcher;
        }
    }

    /** True on the event thread of the current handle, where watchers and callbacks run. */
    boolean isEventThread() {
        return Thread.currentThread() == eventThread;
    }

    private void onConnectionEvent(HandleWatcher source, Watcher.Event.KeeperState keeperState) {
        boolean justConnected = false;
        synchronized (lock) {
            if (closed || source != currentWatcher) {
                return;
            }
            switch (keeperState) {
                case SyncConnected, ConnectedReadOnly -> {
                    if (closing.isEmpty()) {
                        connectedNow(keeperState);
                        justConnected = true;
                    } else {
                        heldBack = keeperState; // reported once the given-up sessions are closed
                    }
                }
                case Disconnected -> {
                    if (heldBack != null) {
                        heldBack = null; // never reported as connected: nothing to suspend
                        return;
                    }
                    connected = false;
                    ZooKeeper current = handle();
                    long nowMs = System.nanoTime() / 1_000_000;
                    long bound = nowMs - readTimeoutMs(current.getSessionTimeout());
                    long heard = LastContact.lastHeardMillis(current);
                    heardAtDisconnectMs = heard > 0 ? Math.min(heard, bound) : bound;
                    post(ConnectionState.SUSPENDED);
                    scheduleSimulatedExpiry();
                }
                case Expired -> {
                    LOG.info("Session 0x{} expired; opening a new session",
                            Long.toHexString(handle().getSessionId()));
                    expire(false);
                }
                case AuthFailed -> core.reportError("authentication failed for the ZooKeeper session",
                        new KeeperException.AuthFailedException());
                default -> {
                }
            }
        }
        if (justConnected) {
            wakeConnectWaiters();
        }
    }

    /** Reports the current handle's connection. */
    @GuardedBy("lock")
    private void connectedNow(Watcher.Event.KeeperState keeperState) {
        connected = true;
        ConnectionState state = keeperState == Watcher.Event.KeeperState.ConnectedReadOnly
                ? ConnectionState.READ_ONLY
                : everConnected ? ConnectionState.RECONNECTED : ConnectionState.CONNECTED;
        everConnected = true;
        disconnectEpoch++;
        post(state);
        // Before anyone waiting for the connection goes on: their requests then queue behind the tracker's read
        // (and its watch), not ahead of it.
        core.onConnected(handle());
        lock.notifyAll();
    }

    private void wakeConnectWaiters() {
        List<CompletableFuture<Void>> waiters;
        synchronized (lock) {
            waiters = new ArrayList<>(connectWaiters);
            connectWaiters.clear();
        }
        waiters.forEach(w -> w.complete(null));
    }

    /** Posts LOST and replaces the handle. */
    @GuardedBy("lock")
    private void expire(boolean killOldHandle) {
        connected = false;
        disconnectEpoch++;
        heldBack = null;
        ZooKeeper old = handle();
        post(ConnectionState.LOST);
        zk = newHandle();
        if (killOldHandle) {
            // The old handle cannot reach a server; stop its threads without waiting for a close round trip,
            // and have the session closed on the server before the next one is reported.
            long sessionId = old.getSessionId();
            byte[] password = old.getSessionPasswd();
            old.getTestable().injectSessionExpiration();
            if (sessionId != 0) {
                OldSession oldSession = new OldSession(sessionId, password);
                closing.add(oldSession);
                oldSession.attach();
            }
        }
    }

    /** An old session confirmed closed (or given up on): reports a held-back connection once none is left. */
    private void closedOnServer(OldSession oldSession) {
        boolean justConnected = false;
        synchronized (lock) {
            if (!closing.remove(oldSession) || closed || !closing.isEmpty() || heldBack == null) {
                return;
            }
            Watcher.Event.KeeperState state = heldBack;
            heldBack = null;
            if (handle().getState().isConnected()) {
                connectedNow(state);
                justConnected = true;
            }
        }
        if (justConnected) {
            wakeConnectWaiters();
        }
    }

    /**
     * Closes a given-up session on the server: a handle reattaches to it (with its id and password) and closes
     * it. The close's own answer is not reported by ZooKeeper's handle, so the closing is confirmed by attaching
     * once more: the server then answers that the session has expired. Attempts stop after a few, with an error
     * reported, should the server keep accepting the session; every handle opened here ends with its attempt.
     */
    private final class OldSession {
        private static final int MAX_ATTEMPTS = 5;

        private final long sessionId;
        private final byte[] password;
        @GuardedBy("Session.this.lock")
        private int attempts;
        /** The handle of the attempt in progress; null before the first. */
        @GuardedBy("Session.this.lock")
        private @Nullable ZooKeeper handle;

        OldSession(long sessionId, byte[] password) {
            this.sessionId = sessionId;
            this.password = password;
        }

        /** Opens a handle on the old session; called under {@code lock} or on an attempt's event thread. */
        void attach() {
            ClientConfig config = core.config();
            String connectString = config.ensembleProvider().getConnectionString();
            int timeoutMs = (int) config.sessionTimeout().toMillis();
            // The handle's events may come before its constructor returns: the watcher waits for it.
            CompletableFuture<ZooKeeper> opened = new CompletableFuture<>();
            Watcher watcher = event -> attemptEvent(opened, event);
            ZKClientConfig clientConfig = config.zkClientConfig();
            try {
                ZooKeeper next = clientConfig == null
                        ? new ZooKeeper(connectString, timeoutMs, watcher, sessionId, password, false)
                        : new ZooKeeper(connectString, timeoutMs, watcher, sessionId, password, false,
                                new StaticHostProvider(new ConnectStringParser(connectString).getServerAddresses()),
                                clientConfig);
                opened.complete(next);
                synchronized (lock) {
                    attempts++;
                    handle = next;
                    if (!closed) {
                        return;
                    }
                }
                next.getTestable().injectSessionExpiration(); // the client closed meanwhile
            } catch (IOException e) {
                opened.cancel(false);
                giveUp("cannot open a ZooKeeper handle for " + connectString, e);
            }
        }

        /** An event of an attempt's handle, on that handle's own event thread. */
        private void attemptEvent(CompletableFuture<ZooKeeper> opened, WatchedEvent event) {
            if (event.getType() != Watcher.Event.EventType.None || opened.isCancelled()) {
                return;
            }
            switch (event.getState()) {
                case SyncConnected -> {
                    // Reattached: close it. This thread has nothing else to do; close() waits for the server's
                    // answer, which the handle's I/O thread reads.
                    try {
                        opened.join().close();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    int made;
                    synchronized (lock) {
                        made = attempts;
                    }
                    if (made >= MAX_ATTEMPTS) {
                        giveUp("the server still accepts it after " + made + " closes", null);
                    } else if (!closed) {
                        attach(); // to hear the server say it is gone
                    }
                }
                case Expired -> {
                    LOG.debug("Given-up session 0x{} is closed on the server", Long.toHexString(sessionId));
                    closedOnServer(this);
                }
                case AuthFailed -> {
                    opened.join().getTestable().injectSessionExpiration();
                    giveUp("authentication failed", new KeeperException.AuthFailedException());
                }
                default -> {
                }
            }
        }

        /** Reports the old session as maybe alive; {@code cause} is null when there is no exception to tell. */
        private void giveUp(String why, @Nullable Exception cause) {
            String message = "could not close the given-up session 0x" + Long.toHexString(sessionId)
                    + " on the server: " + why + "; a request it sent may still be applied";
            // The unhandled-error listeners are promised an error: without a cause, one that says what happened.
            core.reportError(message, cause != null ? cause : new IllegalStateException(message));
            closedOnServer(this);
        }

        /** Stops the attempt's handle without a round trip, when the client closes. */
        void abandon() {
            ZooKeeper current;
            synchronized (lock) { // held already by close(), the caller; taken again for the checker to see
                current = handle;
            }
            if (current != null) {
                current.getTestable().injectSessionExpiration();
            }
        }
    }

    @GuardedBy("lock")
    private void scheduleSimulatedExpiry() {
        int percent = core.config().simulatedExpirationPercent();
        if (percent == 0) {
            return;
        }
        int negotiated = handle().getSessionTimeout();
        long timeoutMs = (negotiated > 0 ? negotiated : core.config().sessionTimeout().toMillis()) * percent / 100;
        long epoch = ++disconnectEpoch;
        try {
            core.rootClient().schedule(() -> {
                synchronized (lock) {
                    if (!closed && !connected && epoch == disconnectEpoch) {
                        LOG.info("Suspended for {} ms; treating session 0x{} as lost", timeoutMs,
                                Long.toHexString(handle().getSessionId()));
                        expire(true);
                    }
                }
            }, Duration.ofMillis(timeoutMs));
        } catch (RuntimeException e) {
            LOG.debug("Could not schedule simulated expiration (closing?)", e);
        }
    }

    /** Posts a state unless it repeats the last one. */
    @GuardedBy("lock")
    private void post(ConnectionState state) {
        if (state == lastPosted) {
            return;
        }
        lastPosted = state;
        core.postState(state);
    }

    /** Test hook and simulated expiry: drop the session as if the server had expired it. */
    void injectExpiry() {
        synchronized (lock) {
            if (!closed) {
                expire(true);
            }
        }
    }

    /** Waits until connected or closed; {@code timeoutMs < 0} waits without limit. */
    boolean awaitConnected(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(timeoutMs, 0));
        synchronized (lock) {
            while (!connected && !closed) {
                if (timeoutMs < 0) {
                    lock.wait();
                    continue;
                }
                long leftNanos = deadline - System.nanoTime();
                if (leftNanos <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, leftNanos);
            }
            return connected && !closed;
        }
    }

    /**
     * A future completed when the client is connected; failed with a connection loss after {@code timeoutMs}
     * ({@code <= 0}: no limit), or with an {@link IllegalStateException} when the client closes.
     */
    CompletableFuture<Void> whenConnected(long timeoutMs) {
        CompletableFuture<Void> waiter = new CompletableFuture<>();
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(core.closedException());
            }
            if (connected) {
                return CompletableFuture.completedFuture(null);
            }
            connectWaiters.add(waiter);
        }
        if (timeoutMs > 0) {
            try {
                var timer = core.scheduler().schedule(
                        () -> waiter.completeExceptionally(notConnected()),
                        timeoutMs, TimeUnit.MILLISECONDS);
                Futures.whenDone(waiter, (v, e) -> {
                    timer.cancel(false);
                    synchronized (lock) {
                        connectWaiters.removeIf(w -> w == waiter); // the very waiter: futures have no equality
                    }
                });
            } catch (RuntimeException e) {
                waiter.completeExceptionally(core.closedException());
            }
        }
        return waiter;
    }

    /**
     * The failure of an operation that waited the connection timeout in vain: a connection loss, caused by a
     * {@link TlsProbe.TlsFailure} when the client uses TLS and a handshake of its own shows why it cannot
     * connect (the handle itself would only keep trying). One probe serves every caller for a connection timeout.
     */
    KeeperException notConnected() {
        KeeperException loss = new KeeperException.ConnectionLossException();
        ClientConfig config = core.config();
        if (!TlsProbe.isSecure(config.zkClientConfig()) || connected || closed) {
            return loss;
        }
        Optional<TlsProbe.TlsFailure> failure;
        synchronized (probeLock) { // not "lock": a probe takes seconds and must not hold up state changes
            long now = System.nanoTime();
            if (diagnosedAtNanos == 0 || now - diagnosedAtNanos > config.connectionTimeout().toNanos()) {
                diagnosis = TlsProbe.diagnose(config.zkClientConfig(), config.ensembleProvider().getConnectionString());
                diagnosedAtNanos = System.nanoTime();
                String message = diagnosis.map(Throwable::getMessage).orElse(null);
                if (message != null && !message.equals(lastReported)) {
                    lastReported = message;
                    LOG.warn("Not connected within {} ms: {}", config.connectionTimeout().toMillis(), message);
                }
            }
            failure = diagnosis;
        }
        failure.ifPresent(loss::initCause);
        return loss;
    }

    void close() {
        ZooKeeper handle;
        boolean wasConnected;
        List<CompletableFuture<Void>> waiters;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            handle = zk;
            wasConnected = connected;
            connected = false;
            heldBack = null;
            waiters = new ArrayList<>(connectWaiters);
            connectWaiters.clear();
            for (OldSession oldSession : closing) {
                oldSession.abandon();
            }
            closing.clear();
            lock.notifyAll();
        }
        waiters.forEach(w -> w.completeExceptionally(core.closedException()));
        if (handle == null) {
            return;
        }
        if (wasConnected) {
            try {
                handle.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            // No server to tell; a close round trip would wait for the next failed connection attempt.
            handle.getTestable().injectSessionExpiration();
        }
    }
}
