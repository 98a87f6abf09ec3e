package dev.baton.recipes.leader;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.ErrorSink;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Monitor;
import dev.baton.internal.Requests;
import dev.baton.internal.SerialExecutor;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
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
 *
 * <p>Why one file: much of it is the public API's documentation, and the rest is one state machine (queue,
 * confirm, watch, lead) whose steps all read and write the same few fields under one lock; split apart, each part
 * would need all of them.
 */
public final class LeaderLatch implements AutoCloseable {
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
    private final Lifecycle lifecycle;
    private final String latchPath;
    private final String id;
    private final byte[] idBytes;
    private final CloseMode closeMode;
    private final ListenerContainer<LeaderLatchListener> listeners;
    private final SerialExecutor notifications = new SerialExecutor(Runnable::run);
    private final Monitor lock = new Monitor();
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;
    private final Watcher watchedWatcher = this::watchedChanged;
    private final Watcher ownNodeWatcher = this::ownNodeChanged;

    @GuardedBy("lock")
    private long generation;
    /** Our node; null until the create's reply, and once the node is deleted or gone. */
    @GuardedBy("lock")
    private @Nullable String ourPath;
    @GuardedBy("lock")
    private long ourSession;
    @GuardedBy("lock")
    private long ourCzxid;
    /** The node ahead of ours that we watch; null when none. */
    @GuardedBy("lock")
    private @Nullable String watchedPath;
    /** The watched node is the only one ahead of ours: its deletion makes us leader. */
    @GuardedBy("lock")
    private boolean leadsWhenWatchedGoes;
    /**
     * With the first node of our listing watched from third in line: the node between, the only one that can
     * still be ahead of ours once the watched node goes (we then wait for it without listing). Otherwise null.
     */
    @GuardedBy("lock")
    private @Nullable String onlyOtherAhead;
    /** The listing sent with the create, when it came back before the create's reply was handled; else null. */
    @GuardedBy("lock")
    private @Nullable List<String> earlyListing;
    /**
     * The latest create: done once its reply is handled, and for a create that answered a latch already closed (or
     * reset), once the node it made is deleted. Null before the first.
     */
    @GuardedBy("lock")
    private @Nullable CompletableFuture<Void> createInFlight;
    @GuardedBy("lock")
    private boolean leader;
    /** The futures of {@link #awaitAsync()} not completed yet. */
    @GuardedBy("lock")
    private final List<CompletableFuture<Void>> leadershipWaiters = new ArrayList<>();

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
        this.lifecycle = new Lifecycle("LeaderLatch " + latchPath);
        this.id = Objects.requireNonNull(id, "id");
        this.idBytes = id.getBytes(StandardCharsets.UTF_8);
        this.closeMode = Objects.requireNonNull(closeMode, "closeMode");
        this.listeners = new ListenerContainer<>(Runnable::run,
                (message, e) -> LOG.error("LeaderLatch listener failed: {}", message, e));
    }

    /**
     * Joins the election and returns at once; leadership arrives through {@link #await()} and listeners.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        lifecycle.start();
        client.getConnectionStateListenable().addListener(connectionListener);
        enqueue();
    }

    /** Creates a new node in the queue, dropping any node this latch had. */
    private void enqueue() {
        long gen;
        String old;
        CompletableFuture<Void> attempt = new CompletableFuture<>();
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            gen = ++generation;
            old = ourPath;
            ourPath = null;
            earlyListing = null;
            createInFlight = attempt;
        }
        setLeadership(false);
        if (old != null) {
            deleteNode(old);
        }
        Stat stat = new Stat();
        CompletableFuture<String> created = client.create().creatingParentContainersIfNeeded().withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).storingStatIn(stat)
                .forPathAsync(BatonPaths.makePath(latchPath, NODE_NAME), idBytes);
        Futures.whenDone(created, (path, error) -> {
            if (error != null) {
                attempt.complete(null);
                // Connection trouble: RECONNECTED will queue again. Anything else is reported.
                if (!isConnectionProblem(error)) {
                    LOG.error("LeaderLatch {} could not create its node", latchPath, Failures.unwrap(error));
                    ErrorSink.report(client, "LeaderLatch " + latchPath + " could not create its node",
                            Failures.unwrap(error));
                }
                return;
            }
            boolean current;
            List<String> listing = null;
            synchronized (lock) {
                current = lifecycle.isStarted() && gen == generation;
                if (current) {
                    ourPath = path;
                    ourSession = stat.getEphemeralOwner();
                    ourCzxid = stat.getCzxid();
                    listing = earlyListing;
                    earlyListing = null;
                }
            }
            if (!current) { // closed or reset while the create was in flight
                Futures.whenDone(deleteNode(path), (v, e) -> attempt.complete(null));
                return;
            }
            attempt.complete(null);
            // Watch our own node too: if someone deletes it (or the whole latch path), a leader
            // must stop leading at once, not when it next reconnects. One request per join; a read,
            // not exists, so a node deleted meanwhile leaves no watch behind.
            Futures.whenDone(client.getData().usingWatcher(ownNodeWatcher).forPathAsync(path), (d, e) -> {
                if (Failures.code(e) == KeeperException.Code.NONODE) {
                    ownNodeChanged(new WatchedEvent(Watcher.Event.EventType.NodeDeleted,
                            Watcher.Event.KeeperState.SyncConnected, path));
                }
            });
            if (listing != null) {
                firstListing(gen, listing);
            }
        });
        // Pipelined behind the create: ZooKeeper answers one session's requests in order, so the listing already
        // shows our node and joining takes one round trip, not two.
        Futures.whenDone(client.getChildren().forPathAsync(latchPath), (children, error) -> firstListing(gen,
                error == null ? children : List.of()));
    }

    /**
     * The listing sent with the create (empty if it failed). It waits for the create's reply if it came first. It
     * must show our node; if not, it was read before the node existed (its parent had to be created first, or the
     * create was sent again), and the queue is listed again.
     */
    private void firstListing(long gen, List<String> children) {
        String path;
        synchronized (lock) {
            if (!lifecycle.isStarted() || gen != generation) {
                return;
            }
            if (ourPath == null) {
                earlyListing = children;
                return;
            }
            path = ourPath;
        }
        if (children.contains(BatonPaths.nodeName(path))) {
            decide(gen, children);
        } else {
            checkLeadership(gen);
        }
    }

    /** Lists the queue and leads, or watches a node ahead of ours (see the class comment for which). */
    private void checkLeadership(long gen) {
        Futures.whenDone(client.getChildren().forPathAsync(latchPath), (children, error) -> {
            if (error == null) {
                decide(gen, children);
                return;
            }
            synchronized (lock) {
                if (!lifecycle.isStarted() || gen != generation) {
                    return;
                }
            }
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                enqueue(); // the latch path itself was deleted
            } else if (!isConnectionProblem(error)) {
                LOG.error("LeaderLatch {} could not list its queue", latchPath, Failures.unwrap(error));
            }
        });
    }

    /** Leads, or watches a node ahead of ours, on a listing that came after our node was created. */
    private void decide(long gen, List<String> children) {
        String path;
        synchronized (lock) {
            if (!lifecycle.isStarted() || gen != generation || ourPath == null) {
                return; // a newer round decides, or the node's deletion queues one
            }
            path = ourPath;
        }
        List<String> queue = BatonPaths.sortBySequence(children, NODE_NAME);
        int index = queue.indexOf(BatonPaths.nodeName(path));
        if (index < 0) {
            enqueue(); // our node is gone
        } else if (index == 0) {
            if (belongsToCurrentSession()) {
                setLeadership(true);
            } else {
                enqueue();
            }
        } else {
            setLeadership(false);
            // Second in line: the leader. Further back: the node two ahead, whose deletion usually means
            // that the node just ahead of ours now leads, so the listing it prompts finds us second in line
            // while there is still a leader to wait for. Third in line: no listing then, as only the second
            // can still be ahead of us.
            watchAhead(gen, BatonPaths.makePath(latchPath, queue.get(Math.max(index - 2, 0))), index == 1,
                    index == 2 ? BatonPaths.makePath(latchPath, queue.get(1)) : null);
        }
    }

    private boolean belongsToCurrentSession() {
        long session;
        synchronized (lock) {
            session = ourSession;
        }
        try {
            return client.isConnected() && client.getZooKeeper().getSessionId() == session;
        } catch (IllegalStateException e) {
            return false; // client closed
        }
    }

    /**
     * Watches a node ahead of ours with a read (on a node already gone it sets no watch that would never fire).
     * If it is the only node ahead ({@code leadsWhenGone}), its deletion makes us leader; if {@code then} is the
     * only other one, its deletion makes us wait for {@code then}; otherwise it makes us list the queue again.
     */
    private void watchAhead(long gen, String node, boolean leadsWhenGone, @Nullable String then) {
        synchronized (lock) {
            watchedPath = node;
            leadsWhenWatchedGoes = leadsWhenGone;
            onlyOtherAhead = then;
        }
        Futures.whenDone(client.getData().usingWatcher(watchedWatcher).forPathAsync(node), (data, error) -> {
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                watchedGone(gen, node); // gone before the watch was set
            }
        });
    }

    private void watchedChanged(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            return;
        }
        long gen;
        boolean again;
        String then;
        synchronized (lock) {
            if (!lifecycle.isStarted() || !event.getPath().equals(watchedPath)) {
                return;
            }
            gen = generation;
            again = leadsWhenWatchedGoes;
            then = onlyOtherAhead;
        }
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            watchedGone(gen, event.getPath());
        } else {
            watchAhead(gen, event.getPath(), again, then); // its data changed: a watch fires once, set it again
        }
    }

    /**
     * The node we waited for is gone: lead if it was the only one ahead, wait for the one node left ahead if there
     * is just one, otherwise look at the queue again.
     */
    private void watchedGone(long gen, String node) {
        boolean lead;
        String next;
        synchronized (lock) {
            if (!lifecycle.isStarted() || gen != generation || !node.equals(watchedPath)) {
                return;
            }
            watchedPath = null;
            lead = leadsWhenWatchedGoes && ourPath != null;
            next = ourPath != null ? onlyOtherAhead : null;
            onlyOtherAhead = null;
        }
        if (lead && belongsToCurrentSession()) {
            setLeadership(true);
        } else if (next != null) {
            watchAhead(gen, next, true, null); // every other node our listing showed ahead is gone
        } else {
            checkLeadership(gen);
        }
    }

    private void ownNodeChanged(WatchedEvent event) {
        if (event.getType() != Watcher.Event.EventType.NodeDeleted) {
            return;
        }
        synchronized (lock) {
            if (!lifecycle.isStarted() || !event.getPath().equals(ourPath)) {
                return;
            }
            ourPath = null; // gone already: nothing to delete
        }
        enqueue();
    }

    private void connectionStateChanged(BatonClient c, ConnectionState newState) {
        long gen;
        String path;
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            gen = generation;
            path = ourPath;
        }
        switch (newState) {
            case SUSPENDED -> {
                if (client.getConnectionStateErrorPolicy().isErrorState(newState)) {
                    setLeadership(false);
                }
            }
            case LOST -> setLeadership(false);
            case RECONNECTED -> {
                if (path == null) {
                    enqueue();
                    return;
                }
                Futures.whenDone(client.checkExists().forPathAsync(path), (stat, error) -> {
                    if (error != null) {
                        return; // the next RECONNECTED tries again
                    }
                    long session;
                    synchronized (lock) {
                        session = ourSession;
                    }
                    if (stat != null && stat.getEphemeralOwner() == session && belongsToCurrentSession()) {
                        checkLeadership(gen);
                    } else {
                        enqueue();
                    }
                });
            }
            default -> {
            }
        }
    }

    private void setLeadership(boolean newValue) {
        List<CompletableFuture<Void>> waiting = List.of();
        synchronized (lock) {
            if (leader == newValue || (newValue && !lifecycle.isStarted())) {
                return;
            }
            leader = newValue;
            lock.signalAll();
            if (newValue) {
                waiting = List.copyOf(leadershipWaiters);
                leadershipWaiters.clear();
            }
        }
        waiting.forEach(f -> f.complete(null));
        LOG.debug("LeaderLatch {} ({}) leadership {}", latchPath, id, newValue);
        notifications.execute(() -> listeners.forEach(newValue ? LeaderLatchListener::isLeader
                : LeaderLatchListener::notLeader));
    }

    /**
     * Deletes a node of ours, retried in the background until done; the future completes after the first try and
     * never fails, so a caller that need not know when may ignore it.
     */
    @CanIgnoreReturnValue
    private CompletableFuture<Void> deleteNode(String path) {
        return client.delete().guaranteed().quietly().forPathAsync(path).exceptionally(e -> null);
    }

    /**
     * Waits until this latch leads.
     *
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the latch is not started, or is closed while waiting
     */
    public void await() throws InterruptedException {
        synchronized (lock) {
            if (lifecycle.isStarted() && !leader) {
                Requests.requireNotEventThread(client, "wait for the leadership of " + latchPath);
            }
            // Monitor.await runs the condition holding the lock; GuardedBy cannot follow the lambda there.
            @SuppressWarnings("GuardedBy")
            BooleanSupplier leadsOrStopped = () -> !lifecycle.isStarted() || leader;
            lock.await(leadsOrStopped);
            lifecycle.requireStarted();
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
        synchronized (lock) {
            if (lifecycle.isStarted() && !leader && timeout > 0) {
                Requests.requireNotEventThread(client, "wait for the leadership of " + latchPath);
            }
            // Monitor.await runs the condition holding the lock; GuardedBy cannot follow the lambda there.
            @SuppressWarnings("GuardedBy")
            BooleanSupplier leadsOrStopped = () -> !lifecycle.isStarted() || leader;
            if (!lock.await(leadsOrStopped, deadline)) {
                return false;
            }
            lifecycle.requireStarted();
            return leader;
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
        synchronized (lock) {
            lifecycle.requireStarted();
            if (leader) {
                return CompletableFuture.completedFuture(null);
            }
            leadershipWaiters.add(led);
        }
        Futures.whenDone(led, (v, e) -> {
            synchronized (lock) {
                leadershipWaiters.removeIf(waiter -> waiter == led); // cancelled, or failed by close: forget it
            }
        });
        return led;
    }

    /** {@return how many {@link #awaitAsync()} futures are waiting (for tests)} */
    int awaitingCount() {
        synchronized (lock) {
            return leadershipWaiters.size();
        }
    }

    /** {@return where this latch is in its life} */
    public State getState() {
        return State.valueOf(lifecycle.state().name());
    }

    /** {@return true if this latch is started and leads now} */
    public boolean hasLeadership() {
        synchronized (lock) {
            return lifecycle.isStarted() && leader;
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
        synchronized (lock) {
            return ourPath;
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
        synchronized (lock) {
            return lifecycle.isStarted() && leader ? OptionalLong.of(ourCzxid) : OptionalLong.empty();
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
        synchronized (lock) {
            if (!lifecycle.isStarted() || !leader) {
                return Duration.ZERO;
            }
            session = ourSession;
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
        synchronized (lock) {
            wasStarted = lifecycle.close() == Lifecycle.State.STARTED;
            generation++;
            path = ourPath;
            pending = createInFlight;
            watched = watchedPath;
            ourPath = null;
            watchedPath = null;
            lock.signalAll();
            waiting = List.copyOf(leadershipWaiters);
            leadershipWaiters.clear();
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
        boolean wasLeader;
        synchronized (lock) {
            wasLeader = leader;
            leader = false;
        }
        if (wasLeader) {
            notifications.execute(() -> listeners.forEach(LeaderLatchListener::notLeader));
        }
        if (watched != null) {
            client.watchers().remove(watchedWatcher).locally().quietly().forPathAsync(watched)
                    .exceptionally(e -> null);
        }
        if (path != null) {
            if (client.isConnected()) {
                try {
                    client.delete().guaranteed().quietly().forPath(path);
                } catch (KeeperException e) {
                    LOG.debug("LeaderLatch {} node delete failed; retrying in the background", path, e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else {
                deleteNode(path);
            }
        } else if (pending != null && !Requests.awaitAtClose(client, pending)) {
            // it deletes what it made once it sees we are closed
            LOG.debug("LeaderLatch {}: the create in flight at close is finished in the background", latchPath);
        }
    }

    /** Connection trouble (the connection listener takes over) or a closed client: nothing to report. */
    private static boolean isConnectionProblem(Throwable t) {
        return Failures.isConnectionProblem(t) || Failures.unwrap(t) instanceof IllegalStateException;
    }
}
