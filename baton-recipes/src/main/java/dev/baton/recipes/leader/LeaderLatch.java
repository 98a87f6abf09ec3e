package dev.baton.recipes.leader;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Futures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Requests;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Elects one leader among the instances that share a latch path, and keeps it leader until it closes or loses
 * its connection. Wire-compatible with Apache Curator's {@code LeaderLatch} on the same path.
 *
 * <pre>{@code
 * try (LeaderLatch latch = new LeaderLatch(client, "/services/scheduler/leader", "host-1")) {
 *     latch.addListener(new LeaderLatchListener() {
 *         public void isLeader() { scheduler.start(); }
 *         public void notLeader() { scheduler.stop(); }
 *     });
 *     latch.start();
 *     ...
 * }
 * }</pre>
 *
 * <p>Each instance creates a protected ephemeral-sequential node {@code latch-} under the path, holding its id (UTF-8),
 * and lists the path in the same round trip (the listing is sent right behind the create, and ZooKeeper answers one
 * session's requests in order). The instance whose node sorts first leads, once it has confirmed the node belongs to
 * its current session; every other instance watches one node ahead of its own, so a leader's departure wakes at most
 * two instances, not all. The second in line (as its last listing showed) watches the leader and leads as soon as the
 * leader's node is deleted, without listing the queue again: sequence numbers only grow, so no node (Baton's or
 * Curator's) can have queued ahead of it since it listed. An instance further back watches the node two ahead of its
 * own and lists the queue again when it goes. That node is usually the leader leaving, so the instance learns that it
 * is second in line while the new leader still leads, and the next failover needs no listing either. The third in line
 * lists nothing when the leader goes: only the second can still be ahead of it then, so it watches that node and leads
 * once it is gone. An instance leads only on a listing that shows its node first, or once every node its listing showed
 * ahead is gone; which node it watches only decides when it looks again. Watches are set with a read of the watched
 * node, so a node already gone leaves no watch behind on the server. Under the standard connection-state error policy a
 * {@code SUSPENDED} connection ends leadership at once; {@code LOST} always does. On {@code RECONNECTED} the latch
 * checks its node again and, if it is gone, queues again.
 *
 * <p>Beyond Curator: {@link #fencingToken()} (the czxid of the leader's node: it strictly increases across
 * successive leaders of the path) and {@link #safeFor()} (how long this process may still act as leader without
 * hearing from the server).
 *
 * <p>Thread-safe. Holds no thread: it is driven by ZooKeeper callbacks and watch events.
 */
public final class LeaderLatch implements AutoCloseable {
    // This class is the public face and the close step. The election's other steps are package-private: the join
    // (LatchJoin: create our node, watch it, check it on reconnection) and the watch (LatchWatch: lead, or watch a
    // node ahead of ours). All of them read and write the same few fields, kept with their one lock in LatchState.
    private static final Logger LOG = LoggerFactory.getLogger(LeaderLatch.class);
    static final String NODE_NAME = "latch-";

    /** What {@link #close()} does about listeners. */
    public enum CloseMode {
        /** Listeners are removed before leadership is given up: no {@code notLeader()} on close. The default. */
        SILENT,
        /** {@code notLeader()} is called (if leading) before the listeners are removed. */
        NOTIFY_LEADER
    }

    /** Where a latch is in its life, as {@link #getState()} tells. */
    public enum State {
        /** Made, not started. */
        LATENT,
        /** Started and not closed: in the election. */
        STARTED,
        /** Closed; for good. */
        CLOSED
    }

    private final BatonClient client;
    private final String latchPath;
    private final String id;
    private final CloseMode closeMode;
    private final ListenerContainer<LeaderLatchListener> listeners;
    /** The lifecycle, our node, the watched node and the leadership, under one lock. */
    private final LatchState state;
    /** Lists the queue and leads, or watches a node ahead of ours. */
    private final LatchWatch watch;
    /** Creates our node, watches it, checks it on reconnection, deletes it at close. */
    private final LatchJoin join;
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;

    /**
     * A latch with id {@code ""}.
     *
     * @param client the client
     * @param latchPath the election's path
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public LeaderLatch(BatonClient client, String latchPath) {
        this(client, latchPath, "");
    }

    /**
     * A latch with {@link CloseMode#SILENT}.
     *
     * @param client the client
     * @param latchPath the election's path
     * @param id this participant's id, shown by {@link #getParticipants()} and {@link #getLeader()}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public LeaderLatch(BatonClient client, String latchPath, String id) {
        this(client, latchPath, id, CloseMode.SILENT);
    }

    /**
     * @param client the client
     * @param latchPath the election's path
     * @param id this participant's id
     * @param closeMode what {@link #close()} does about listeners
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public LeaderLatch(BatonClient client, String latchPath, String id, CloseMode closeMode) {
        this.client = Objects.requireNonNull(client, "client");
        this.latchPath = BatonPaths.validate(Objects.requireNonNull(latchPath, "latchPath"));
        this.id = Objects.requireNonNull(id, "id");
        this.closeMode = Objects.requireNonNull(closeMode, "closeMode");
        this.listeners = new ListenerContainer<>(Runnable::run,
                (message, e) -> LOG.error("LeaderLatch listener failed: {}", message, e));
        this.state = new LatchState(this.client, this.latchPath, id, listeners);
        this.watch = new LatchWatch(this.client, this.latchPath, state, this::enqueue);
        this.join = new LatchJoin(this.client, this.latchPath, id.getBytes(StandardCharsets.UTF_8), state, watch);
    }

    /**
     * Joins the election and returns at once; leadership arrives through {@link #await()} and listeners.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        state.lifecycle.start();
        client.getConnectionStateListenable().addListener(connectionListener);
        enqueue();
    }

    /** Joins the queue with a new node, dropping any node this latch had: on start, and for the watch step. */
    private void enqueue() {
        join.enqueue();
    }

    private void connectionStateChanged(BatonClient c, ConnectionState newState) {
        long gen;
        String path;
        synchronized (state.lock) {
            if (!state.lifecycle.isStarted()) {
                return;
            }
            gen = state.generation;
            path = state.ourPath;
        }
        switch (newState) {
            case SUSPENDED -> {
                if (client.getConnectionStateErrorPolicy().isErrorState(newState)) {
                    state.setLeadership(false);
                }
            }
            case LOST -> state.setLeadership(false);
            case RECONNECTED -> join.reconnected(gen, path);
            default -> {
            }
        }
    }

    /**
     * Waits until this latch leads.
     *
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the latch is not started, or is closed while waiting
     */
    public void await() throws InterruptedException {
        synchronized (state.lock) {
            if (state.lifecycle.isStarted() && !state.leader) {
                Requests.requireNotEventThread(client, "wait for the leadership of " + latchPath);
            }
            // Monitor.await runs the condition holding the lock; GuardedBy cannot follow the lambda there.
            @SuppressWarnings("GuardedBy")
            BooleanSupplier leadsOrStopped = () -> !state.lifecycle.isStarted() || state.leader;
            state.lock.await(leadsOrStopped);
            state.lifecycle.requireStarted();
        }
    }

    /**
     * Waits until this latch leads or the time runs out.
     *
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return true if this latch leads
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws IllegalStateException if the latch is not started, or is closed while waiting
     */
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0, was " + timeout);
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (state.lock) {
            if (state.lifecycle.isStarted() && !state.leader && timeout > 0) {
                Requests.requireNotEventThread(client, "wait for the leadership of " + latchPath);
            }
            // Monitor.await runs the condition holding the lock; GuardedBy cannot follow the lambda there.
            @SuppressWarnings("GuardedBy")
            BooleanSupplier leadsOrStopped = () -> !state.lifecycle.isStarted() || state.leader;
            if (!state.lock.await(leadsOrStopped, deadline)) {
                return false;
            }
            state.lifecycle.requireStarted();
            return state.leader;
        }
    }

    /**
     * Waits until this latch leads, without holding a thread: the future completes when it does, on the thread
     * that learned of it (ZooKeeper's event thread, usually), so dependent stages that block should use an
     * {@code ...Async} stage with an executor. Cancelling the future stops the wait and leaves the latch in the
     * election; nothing of the wait remains.
     *
     * @return a future that completes (at once if leading now) when this latch leads, or fails with
     *         {@link IllegalStateException} if the latch is closed first
     * @throws IllegalStateException if the latch is not started, or closed
     */
    public CompletableFuture<Void> awaitAsync() {
        CompletableFuture<Void> led = new CompletableFuture<>();
        synchronized (state.lock) {
            state.lifecycle.requireStarted();
            if (state.leader) {
                return CompletableFuture.completedFuture(null);
            }
            state.leadershipWaiters.add(led);
        }
        Futures.whenDone(led, (v, e) -> {
            synchronized (state.lock) {
                // cancelled, or failed by close: forget it
                state.leadershipWaiters.removeIf(waiter -> waiter == led);
            }
        });
        return led;
    }

    /** {@return how many {@link #awaitAsync()} futures are waiting (for tests)} */
    int awaitingCount() {
        synchronized (state.lock) {
            return state.leadershipWaiters.size();
        }
    }

    /** {@return where this latch is in its life} */
    public State getState() {
        return State.valueOf(state.lifecycle.state().name());
    }

    /** {@return true if this latch is started and leads now} */
    public boolean hasLeadership() {
        synchronized (state.lock) {
            return state.lifecycle.isStarted() && state.leader;
        }
    }

    /** {@return this participant's id} */
    public String getId() {
        return id;
    }

    /** {@return the election's path} */
    public String getPath() {
        return latchPath;
    }

    /** {@return the path of this latch's node, or null before it is created} */
    public @Nullable String getOurPath() {
        synchronized (state.lock) {
            return state.ourPath;
        }
    }

    /**
     * The fencing token of this latch's leadership: the czxid of its node, which strictly increases across
     * successive leaders of the path, also when the path is deleted and created again. Pass it to the resources
     * the leader changes so they can refuse an older leader's writes.
     *
     * @return the token while leading, empty otherwise
     */
    public OptionalLong fencingToken() {
        synchronized (state.lock) {
            return state.lifecycle.isStarted() && state.leader ? OptionalLong.of(state.ourCzxid)
                    : OptionalLong.empty();
        }
    }

    /**
     * How long this process may still safely act as leader without hearing from the server: the client's
     * {@link BatonClient#safeFor()} while this latch leads on the client's current session.
     *
     * @return the time left; {@link Duration#ZERO} when not leading
     */
    public Duration safeFor() {
        long session;
        synchronized (state.lock) {
            if (!state.lifecycle.isStarted() || !state.leader) {
                return Duration.ZERO;
            }
            session = state.ourSession;
        }
        try {
            return client.getZooKeeper().getSessionId() == session ? client.safeFor() : Duration.ZERO;
        } catch (IllegalStateException e) {
            return Duration.ZERO;
        }
    }

    /**
     * Adds a listener called on the thread that saw the change.
     *
     * @param listener the listener
     * @throws NullPointerException if {@code listener} is null
     */
    public void addListener(LeaderLatchListener listener) {
        listeners.addListener(listener);
    }

    /**
     * Adds a listener called on the given executor.
     *
     * @param listener the listener
     * @param executor where it is called
     * @throws NullPointerException if an argument is null
     */
    public void addListener(LeaderLatchListener listener, Executor executor) {
        listeners.addListener(listener, executor);
    }

    /**
     * Removes a listener.
     *
     * @param listener the listener
     */
    public void removeListener(LeaderLatchListener listener) {
        listeners.removeListener(listener);
    }

    /**
     * The current leader: the participant whose node is first in the queue and still exists.
     *
     * @return the leader; {@code Participant("", false)} when nobody takes part
     * @throws KeeperException if the queue cannot be read
     * @throws InterruptedException if interrupted while waiting
     */
    public Participant getLeader() throws KeeperException, InterruptedException {
        return Participants.leader(client, latchPath, NODE_NAME);
    }

    /**
     * Everyone taking part, in queue order; the first is the leader.
     *
     * @return the participants
     * @throws KeeperException if the queue cannot be read
     * @throws InterruptedException if interrupted while waiting
     */
    public Collection<Participant> getParticipants() throws KeeperException, InterruptedException {
        return Participants.all(client, latchPath, NODE_NAME);
    }

    /** Closes with the latch's {@link CloseMode}. */
    @Override
    public void close() {
        close(closeMode);
    }

    /**
     * Leaves the election: gives up leadership, removes this latch's node (retrying in the background if the
     * connection is down), its watch and its connection listener. A node whose create is still unanswered is
     * waited for (up to the session timeout, not on ZooKeeper's event thread) and deleted before this returns.
     * Closing a closed latch does nothing.
     *
     * @param mode whether listeners hear {@code notLeader()}
     * @throws NullPointerException if {@code mode} is null
     */
    public void close(CloseMode mode) {
        Objects.requireNonNull(mode, "mode");
        String path;
        String watched;
        boolean wasStarted;
        CompletableFuture<Void> pending;
        List<CompletableFuture<Void>> waiting;
        synchronized (state.lock) {
            wasStarted = state.lifecycle.close() == Lifecycle.State.STARTED;
            state.generation++;
            path = state.ourPath;
            pending = state.createInFlight;
            watched = state.watchedPath;
            state.ourPath = null;
            state.watchedPath = null;
            state.lock.signalAll();
            waiting = List.copyOf(state.leadershipWaiters);
            state.leadershipWaiters.clear();
        }
        IllegalStateException closed = new IllegalStateException("LeaderLatch " + latchPath + " was closed");
        waiting.forEach(f -> f.completeExceptionally(closed));
        if (!wasStarted) {
            return;
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        if (mode == CloseMode.SILENT) {
            listeners.clear();
        }
        state.endLeadershipAtClose();
        if (watched != null) {
            watch.forget(watched);
        }
        join.leave(path, pending);
    }
}
