package dev.baton.recipes.nodes;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Monitor;
import dev.baton.internal.Requests;
import dev.baton.internal.SerialExecutor;
import dev.baton.listen.Listenable;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node that stays on the server while this instance is open: it is created by {@link #start()} and created
 * again whenever it disappears, because someone deleted it or because the session that owned it (for an
 * ephemeral mode) expired. Typical use: an ephemeral registration of a service instance.
 *
 * <pre>{@code
 * try (PersistentNode node = new PersistentNode(client, CreateMode.EPHEMERAL, false,
 *         "/services/api/host-1", "10.0.0.1:8080".getBytes(UTF_8))) {
 *     node.start();
 *     if (!node.waitForInitialCreate(10, TimeUnit.SECONDS)) { ... }
 *     ...
 * }
 * }</pre>
 *
 * <p>Missing parents are created as container nodes. If a node already exists at a non-sequential path (for
 * example left by this process's previous session, not yet expired), it is taken over: its data is set to this
 * node's data and it is watched; if it then disappears, this instance creates its own. With a sequential mode
 * every creation, re-creations included, makes a new node with a new sequence number: {@link #getActualPath()}
 * tells the current one. With {@code useProtection} the name gets Curator's {@code _c_<uuid>-} prefix, so a
 * create whose answer was lost to a connection failure is found instead of made twice.
 *
 * <p>The node is watched (one exists-watch on it) and checked again after every {@code RECONNECTED}; the
 * re-creation after a session expiry therefore happens as soon as the new session is connected.
 *
 * <p>{@link #getListenable()} tells each creation; {@link #waitForInitialCreateAsync()} waits for the first
 * without holding a thread.
 *
 * <p>Thread-safe; no thread of its own (driven by ZooKeeper callbacks, watch events and connection events).
 *
 * <p>Why one file of some 550 lines: a fifth is documentation, and the rest is one state machine (create, watch,
 * re-create, close while a create is in flight) over a handful of fields under one lock.
 */
public final class PersistentNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PersistentNode.class);

    private final BatonClient client;
    private final Lifecycle lifecycle;
    private final CreateMode mode;
    private final boolean useProtection;
    private final String basePath;
    private final Monitor lock = new Monitor();
    private final Watcher watcher = this::watched;
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;
    private final ListenerContainer<PersistentNodeListener> listeners;
    private final SerialExecutor notifications = new SerialExecutor(Runnable::run);

    @GuardedBy("lock")
    private byte[] data;
    /** The node this instance has now; null while it has none. */
    @GuardedBy("lock")
    private @Nullable String actualPath;
    /** Bumped for every create attempt and by close; answers of older attempts are ignored. */
    @GuardedBy("lock")
    private long generation;
    /** A create (with its take-over, if the node existed) is in flight: at most one at a time. */
    @GuardedBy("lock")
    private boolean creating;
    /** Completes when the attempt in flight is over, a node it made after close deleted. */
    @GuardedBy("lock")
    private CompletableFuture<Void> attempt = CompletableFuture.completedFuture(null);
    @GuardedBy("lock")
    private boolean initialCreateDone;
    /** A setData failed: the node's data may differ from {@link #data}; written again on reconnect. */
    @GuardedBy("lock")
    private boolean dataDirty;
    /** The futures of {@link #waitForInitialCreateAsync()} not completed yet. */
    @GuardedBy("lock")
    private final List<CompletableFuture<Void>> createWaiters = new ArrayList<>();

    /**
     * @param client the client
     * @param mode how to create the node; usually {@link CreateMode#EPHEMERAL} or
     *        {@link CreateMode#EPHEMERAL_SEQUENTIAL}
     * @param useProtection true to create with Curator's protection prefix {@code _c_<uuid>-}
     * @param basePath the node's path; for a sequential mode, the prefix the sequence number is appended to
     * @param initData the node's data
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid, or a TTL mode is given (it needs a TTL)
     */
    public PersistentNode(BatonClient client, CreateMode mode, boolean useProtection, String basePath,
            byte[] initData) {
        this.client = Objects.requireNonNull(client, "client");
        this.mode = Objects.requireNonNull(mode, "mode");
        if (mode.isTTL()) {
            throw new IllegalArgumentException("mode " + mode + " needs a TTL, which PersistentNode does not take");
        }
        this.useProtection = useProtection;
        this.basePath = BatonPaths.validate(Objects.requireNonNull(basePath, "basePath"));
        this.lifecycle = new Lifecycle("PersistentNode " + basePath);
        this.data = Objects.requireNonNull(initData, "initData").clone();
        this.listeners = new ListenerContainer<>(Runnable::run,
                (message, e) -> LOG.error("PersistentNode {} listener failed: {}", basePath, message, e));
    }

    /**
     * Starts creating the node in the background and returns at once; see {@link #waitForInitialCreate}.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        lifecycle.start();
        client.getConnectionStateListenable().addListener(connectionListener);
        create();
    }

    /**
     * Waits until the node has been created (or taken over) the first time.
     *
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return true if the node was created, false if the time ran out
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws IllegalStateException if not started, or closed (also while waiting)
     */
    public boolean waitForInitialCreate(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0, was " + timeout);
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            lifecycle.requireStarted();
            if (!initialCreateDone && timeout > 0) {
                Requests.requireNotEventThread(client, "wait for the node " + basePath + " to be created");
            }
            // Monitor.await evaluates the condition with lock held, which Error Prone cannot see in a lambda.
            @SuppressWarnings("GuardedBy")
            boolean done = lock.await(() -> !lifecycle.isStarted() || initialCreateDone, deadline);
            lifecycle.requireStarted();
            return done;
        }
    }

    /**
     * Waits until the node has been created (or taken over) the first time, without holding a thread. Cancelling
     * the future stops the wait (the node is still kept); nothing of the wait remains.
     *
     * @return a future that completes (at once if done already) when the node has been created the first time,
     *         on the thread that learned of it (ZooKeeper's event thread, usually); or fails with
     *         {@link IllegalStateException} if this instance is closed first
     * @throws IllegalStateException if not started, or closed
     */
    public CompletableFuture<Void> waitForInitialCreateAsync() {
        CompletableFuture<Void> created = new CompletableFuture<>();
        synchronized (lock) {
            lifecycle.requireStarted();
            if (initialCreateDone) {
                return CompletableFuture.completedFuture(null);
            }
            createWaiters.add(created);
        }
        Futures.whenDone(created, (v, e) -> {
            synchronized (lock) {
                createWaiters.removeIf(f -> f == created); // cancelled, or failed by close: forget it
            }
        });
        return created;
    }

    /** {@return how many {@link #waitForInitialCreateAsync()} futures are waiting (for tests)} */
    int waitingCount() {
        synchronized (lock) {
            return createWaiters.size();
        }
    }

    /**
     * Listeners told of each creation of the node; those added without an executor run on ZooKeeper's event
     * thread and must not block. Add them before {@link #start()} to hear of the first creation.
     *
     * @return where to add and remove listeners
     */
    public Listenable<PersistentNodeListener> getListenable() {
        return listeners;
    }

    /**
     * {@return the path of the node this instance has now, or null while it has none (not yet created, or
     *         being re-created)}
     */
    public @Nullable String getActualPath() {
        synchronized (lock) {
            return actualPath;
        }
    }

    /** {@return a copy of the data this node has (or will have when it is created again)} */
    public byte[] getData() {
        synchronized (lock) {
            return data.clone();
        }
    }

    /**
     * Changes the node's data: on the server now if the node exists, and in every later re-creation.
     *
     * @param newData the data
     * @throws KeeperException if the server refused the write; a write that failed for a connection reason is
     *         done again after reconnecting
     * @throws InterruptedException if interrupted while waiting for the write
     * @throws NullPointerException if {@code newData} is null
     * @throws IllegalStateException if not started or closed
     */
    public void setData(byte[] newData) throws KeeperException, InterruptedException {
        Objects.requireNonNull(newData, "newData");
        byte[] copy = newData.clone();
        String path;
        synchronized (lock) {
            lifecycle.requireStarted();
            data = copy;
            path = actualPath;
            dataDirty = path != null;
        }
        if (path == null) {
            return; // the create in progress, or the next one, writes it
        }
        try {
            client.setData().forPath(path, copy);
            synchronized (lock) {
                if (data == copy) {
                    dataDirty = false;
                }
            }
        } catch (KeeperException e) {
            if (e.code() == KeeperException.Code.NONODE) {
                return; // gone: the re-creation writes the new data
            }
            throw e;
        }
    }

    /**
     * Deletes the node and stops watching it. Closing twice does nothing.
     *
     * <p>When this returns, the node this instance created or took over is gone from the server, also when
     * {@code close()} comes right after {@link #start()} while the create is still in flight: close waits for
     * that create's answer (up to the session timeout) and deletes what it made, or, when the answer is "node
     * exists" at a non-sequential path, the node there, as Curator's {@code PersistentNode} does. Only when the
     * server cannot be reached (or close is called on ZooKeeper's event thread, where it must not wait) does the
     * delete finish in the background, retried until it succeeds or the client closes; an ephemeral node also
     * goes with its session.
     */
    @Override
    public void close() {
        String path;
        CompletableFuture<Void> pending;
        boolean started;
        List<CompletableFuture<Void>> waiting;
        synchronized (lock) {
            started = lifecycle.close() == Lifecycle.State.STARTED;
            generation++;
            path = actualPath;
            actualPath = null;
            pending = creating ? attempt : null;
            lock.signalAll();
            waiting = List.copyOf(createWaiters);
            createWaiters.clear();
        }
        IllegalStateException closed = new IllegalStateException("PersistentNode " + basePath + " was closed");
        waiting.forEach(f -> f.completeExceptionally(closed));
        listeners.clear();
        if (!started) {
            return;
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        if (path == null) {
            if (pending != null && !Requests.awaitAtClose(client, pending)) {
                // it deletes what it made once it sees we are closed
                LOG.debug("PersistentNode {}: the create in flight at close is finished in the background", basePath);
            }
            return;
        }
        try {
            client.watchers().remove(watcher).locally().quietly().forPathAsync(path).exceptionally(e -> null);
            if (client.isConnected()) {
                client.delete().guaranteed().quietly().forPath(path);
            } else {
                client.delete().guaranteed().quietly().forPathAsync(path).exceptionally(e -> null);
            }
        } catch (KeeperException e) {
            LOG.debug("PersistentNode {}: delete failed; retrying in the background", path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IllegalStateException e) {
            LOG.debug("PersistentNode {}: client already closed", path);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Creates the node unless a create is already in flight. */
    private void create() {
        long gen;
        byte[] bytes;
        synchronized (lock) {
            if (!lifecycle.isStarted() || creating) {
                return;
            }
            creating = true;
            attempt = new CompletableFuture<>();
            gen = ++generation;
            actualPath = null;
            bytes = data;
        }
        Stat stat = new Stat();
        var builder = client.create().creatingParentContainersIfNeeded().withMode(mode).storingStatIn(stat);
        if (useProtection) {
            builder = builder.withProtection();
        }
        try {
            Futures.whenDone(builder.forPathAsync(basePath, bytes), (path, error) -> {
                if (error == null) {
                    own(gen, path);
                } else {
                    createFailed(gen, error);
                }
            });
        } catch (IllegalStateException e) {
            settle();
        }
    }

    private void createFailed(long gen, Throwable error) {
        KeeperException.Code code = Failures.code(error);
        if (code == KeeperException.Code.NODEEXISTS && !mode.isSequential()) {
            takeOver(gen);
            return;
        }
        settle();
        if (Failures.isConnectionProblem(error)) {
            LOG.debug("PersistentNode {}: create failed, retried on reconnect: {}", basePath,
                    Failures.unwrap(error).toString());
            if (client.isConnected()) {
                create(); // the reconnect came while this attempt was still failing
            }
        } else if (Failures.unwrap(error) instanceof IllegalStateException) {
            LOG.debug("PersistentNode {}: client closed", basePath);
        } else {
            LOG.error("PersistentNode {}: create failed", basePath, Failures.unwrap(error));
        }
    }

    /**
     * A node is already at our non-sequential path: make it ours by writing our data, then watch it. Closed
     * meanwhile, it is ours all the same, and goes.
     */
    private void takeOver(long gen) {
        byte[] bytes;
        synchronized (lock) {
            bytes = gen == generation ? data : null;
        }
        if (bytes == null) {
            own(gen, basePath); // closed while the create was in flight
            return;
        }
        Futures.whenDone(client.setData().forPathAsync(basePath, bytes), (stat, error) -> {
            if (error == null) {
                own(gen, basePath);
                return;
            }
            settle();
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                create(); // gone meanwhile
            } else if (!Failures.isConnectionProblem(error)) {
                LOG.error("PersistentNode {}: could not take over the existing node", basePath,
                        Failures.unwrap(error));
            }
        });
    }

    /**
     * The attempt ends with the node at {@code path} ours: keep and watch it, or, if this instance was closed
     * meanwhile, delete it before the attempt counts as settled (close may be waiting for that).
     */
    private void own(long gen, String path) {
        boolean keep;
        CompletableFuture<Void> done;
        List<CompletableFuture<Void>> waiting = List.of();
        synchronized (lock) {
            keep = lifecycle.isStarted() && gen == generation;
            done = attempt;
            creating = false;
            if (keep) {
                actualPath = path;
                initialCreateDone = true;
                lock.signalAll();
                waiting = List.copyOf(createWaiters);
                createWaiters.clear();
            }
        }
        if (!keep) {
            Futures.whenDone(deleteQuietly(path), (v, e) -> done.complete(null));
            return;
        }
        LOG.debug("PersistentNode {}: node is {}", basePath, path);
        watch(gen, path);
        done.complete(null);
        waiting.forEach(f -> f.complete(null));
        notifications.execute(() -> listeners.forEach(l -> {
            try {
                l.nodeCreated(path);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }));
    }

    /** The attempt in flight is over without a node. */
    private void settle() {
        CompletableFuture<Void> done;
        synchronized (lock) {
            creating = false;
            done = attempt;
        }
        done.complete(null);
    }

    /** Deletes a node, retrying in the background until done; the future completes after the first try. */
    private CompletableFuture<Void> deleteQuietly(String path) {
        try {
            return client.delete().guaranteed().quietly().forPathAsync(path).exceptionally(e -> null);
        } catch (IllegalStateException e) {
            return CompletableFuture.completedFuture(null); // client closed: an ephemeral node goes with it
        }
    }

    private void watch(long gen, String path) {
        Futures.whenDone(client.checkExists().usingWatcher(watcher).forPathAsync(path), (stat, error) -> {
            if (error == null && stat == null) {
                lost(gen, path); // deleted before the watch was set
            }
        });
    }

    private void watched(WatchedEvent event) {
        String path = event.getPath();
        if (path == null) {
            return;
        }
        long gen;
        synchronized (lock) {
            if (!lifecycle.isStarted() || !path.equals(actualPath)) {
                return;
            }
            gen = generation;
        }
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            lost(gen, path);
        } else {
            watch(gen, path); // a one-time watch: set it again
        }
    }

    private void lost(long gen, String path) {
        synchronized (lock) {
            if (!lifecycle.isStarted() || gen != generation || !path.equals(actualPath)) {
                return;
            }
            actualPath = null;
        }
        LOG.debug("PersistentNode {}: {} is gone; creating it again", basePath, path);
        create();
    }

    private void connectionStateChanged(BatonClient c, ConnectionState newState) {
        if (newState != ConnectionState.RECONNECTED) {
            return;
        }
        long gen;
        String path;
        boolean dirty;
        byte[] bytes;
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            gen = generation;
            path = actualPath;
            dirty = dataDirty;
            bytes = data;
        }
        if (path == null) {
            create();
            return;
        }
        // The session may be new (its ephemeral node gone, its watch gone) or the node deleted meanwhile.
        Futures.whenDone(client.checkExists().usingWatcher(watcher).forPathAsync(path), (stat, error) -> {
            if (error != null) {
                return; // the next RECONNECTED looks again
            }
            if (stat == null || (mode.isEphemeral() && stat.getEphemeralOwner() != sessionId())) {
                if (stat != null) {
                    // An ephemeral node of an earlier session: it goes when that session is reaped.
                    LOG.debug("PersistentNode {}: {} belongs to an old session", basePath, path);
                }
                if (stat == null) {
                    lost(gen, path);
                }
            } else if (dirty) {
                Futures.whenDone(client.setData().forPathAsync(path, bytes), (s, e) -> {
                    if (e == null) {
                        synchronized (lock) {
                            if (data == bytes) {
                                dataDirty = false;
                            }
                        }
                    }
                });
            }
        });
    }

    private long sessionId() {
        try {
            return client.getZooKeeper().getSessionId();
        } catch (IllegalStateException e) {
            return 0;
        }
    }

    @Override
    public String toString() {
        return "PersistentNode[" + basePath + ", " + mode + ", actual=" + getActualPath() + "]";
    }
}
