package dev.baton.recipes.cache;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.UnsupportedServerFeatureException;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.ErrorSink;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Requests;
import dev.baton.internal.SerialExecutor;
import dev.baton.listen.Listenable;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local copy of one node or a whole subtree, kept current by a single persistent watch (on ZooKeeper 3.6 and
 * newer; one-shot watches on older servers), with listeners for every creation, change and deletion. The root node
 * itself is cached (and counted by {@link #size()}).
 *
 * <pre>{@code
 * try (BatonCache cache = BatonCache.build(client, "/app/config")) {
 *     cache.listenable().addListener(BatonCacheListener.builder()
 *             .forChanges((oldNode, node) -> reload(node.path(), node.data()))
 *             .build());
 *     cache.startAsync().join();                    // or start(), then awaitInitialized(timeout, unit)
 *     Optional<ChildData> db = cache.get("/app/config/db");
 * }
 * }</pre>
 *
 * <h2>How it stays current</h2>
 * One {@link AddWatchMode#PERSISTENT_RECURSIVE} watch on the path ({@link AddWatchMode#PERSISTENT} with
 * {@link Option#SINGLE_NODE_CACHE}) reports every create, data change and delete below it; created and changed
 * nodes are read back. After a {@code RECONNECTED} (same session or a new one after {@code LOST}) the watch is
 * registered again and the whole subtree is read again and compared with the cache, by each node's
 * {@code czxid} (which node incarnation it is) and {@code mzxid} (which version of its data): so a node deleted
 * and created again while the client was cut off is reported as {@link BatonCacheListener.Type#NODE_DELETED}
 * then {@link BatonCacheListener.Type#NODE_CREATED}, a node changed meanwhile as one
 * {@link BatonCacheListener.Type#NODE_CHANGED}, and a node seen before is never reported again. Changes the
 * client could not observe (several updates of one node, or a node created and deleted again, while it was
 * disconnected or between a watch event and the read that follows it) are coalesced: the listeners see every
 * difference between successive states the cache observed, and after quiescence the cache equals the server.
 *
 * <p>Reads are pipelined: the initial load and every resync keep up to {@value #MAX_IN_FLIGHT} reads in flight,
 * and a node whose stat says it has no children is not listed.
 *
 * <h2>Order</h2>
 * The watch's events arrive in the order of the changes (zxid order), and the listeners hear them in that order,
 * across all paths: each event takes a place in a queue and is applied and reported only after every event before
 * it, a creation or change once its read has completed, a deletion (which needs no read) at once if nothing is
 * ahead of it, else right after the reads ahead of it. What each event reports:
 * <ul>
 * <li>A creation or change reports the node as its read found it, which may be newer than that change (the read
 * follows the event): then the later changes' own events find nothing newer and report nothing, so quick changes
 * of one node may be reported as one {@link BatonCacheListener.Type#NODE_CHANGED} (or a
 * {@link BatonCacheListener.Type#NODE_CREATED} showing the changed data), with the latest data, in the place of
 * the first. No event reports data older than what an earlier event reported.
 * <li>A creation or change whose read finds the node already deleted reports nothing in its place: the deletion's
 * own event, queued after it, reports the {@link BatonCacheListener.Type#NODE_DELETED} (with the data last read).
 * So a change followed at once by a deletion may be reported as the deletion alone, and a node created and deleted
 * at once may not be reported at all.
 * <li>A deletion reports the cached node and its cached descendants, deepest first, if they were created before
 * the deletion (by the event's zxid; a server older than 3.9 does not send it, and then whatever is cached there
 * is removed).
 * <li>A read that fails otherwise (connection loss) reports nothing; the resync after reconnecting reports what
 * was missed.
 * </ul>
 * The initial load and every resync are reads of the whole tree, not of events: their listener calls report the
 * differences they find as they find them, a parent before its children, between the calls of the watch events
 * applied meanwhile.
 *
 * <h2>Servers without persistent watches (ZooKeeper 3.5)</h2>
 * {@link #start()} asks for the persistent watch; a server older than 3.6 lacks them, and the client refuses the
 * request at once without sending it ({@link dev.baton.UnsupportedServerFeatureException}). The cache then works
 * as Curator's classic caches do, with one-shot watches, for the rest of its life: every read of a node leaves a
 * data watch on it, and every node above the maximum depth is listed (even without children) leaving a child
 * watch; the root, while missing, has an existence watch. A fired watch is set again by the read it causes: a data
 * change reads the node again, a change of children lists the parent again and compares the names with the
 * cache (a new child is read and listed in the place of that event, so a parent is reported before its
 * children), a deletion removes the cached subtree. Initial load, {@link Option}s, depth limit, events, the
 * initialized future and the resync after {@code RECONNECTED} or {@code LOST} are the same; a server's refusal
 * is not a failure (logged at info level). Differences: more requests (a read per change, a listing per change
 * of children, and one listing per cached node at load); a node created and deleted again before the listing
 * that would find it is not reported (a persistent watch usually reports it, but not always: see Order); and
 * {@link #close()} removes the cache's watchers from the client, while the server keeps its one-shot watches until
 * they fire or the session ends (ZooKeeper removes one client watcher of a path only in the client).
 *
 * <h2>Stats</h2>
 * A node's {@link ChildData#stat()} is the one read with its data. A recursive watch does not report child
 * additions and removals to the parent, so the child-related fields of a cached stat ({@code cversion},
 * {@code numChildren}, {@code pzxid}) may be older than the server's; {@code czxid}, {@code mzxid},
 * {@code version} and the data are current.
 *
 * <h2>Limits</h2>
 * No limit of its own on the number of nodes or of children. ZooKeeper's limit applies: one
 * {@code getChildren} answer must fit in the client's {@code jute.maxbuffer} (about 1 MB by default), which holds
 * about 100,000 children with 6-character names (4 bytes of length per name plus the name in UTF-8). Raise
 * {@code jute.maxbuffer} in the client's {@code ZKClientConfig} for more or longer names.
 *
 * <h2>Threads</h2>
 * No thread of its own. Listeners added without an executor are called one at a time, in the order described
 * above, on the thread that applied the change (usually ZooKeeper's event thread; the client's event thread
 * for connection events): they must not block. A listener added with an executor is called on that executor;
 * calls keep their order only if the executor runs tasks in order. All methods are thread-safe; {@link #get},
 * {@link #stream()} and {@link #size()} never block.
 *
 * <p>Why one file of some 1,000 lines: a good part is the public API's documentation, and the rest is one state
 * machine (load, follow the watch events, rebuild after a session loss) whose event ordering depends on every step
 * sharing one queue of pending reads. How the watches are set and what the reads ask for is the package's
 * {@code Watching} strategy (persistent or one-shot); the classic caches ({@code NodeCache},
 * {@code PathChildrenCache}, {@code TreeCache}) live in their own files over it.
 */
public final class BatonCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BatonCache.class);
    /**
     * How many reads the initial load and a resync keep in flight at most. A larger window measured no faster
     * (the server's own outstanding-request limit is 1,000) and makes the session's other requests wait behind
     * more of the cache's reads.
     */
    static final int MAX_IN_FLIGHT = 1_000;
    /** A resync starts reads this many at a time, once the window has room for them. */
    static final int REFILL_BATCH = 64;
    /** A resync delivers its listener calls after every this many reads (and at its end). */
    static final int DELIVERY_BATCH = 256;

    /** How a cache is built. */
    public enum Option {
        /** Cache only the node at the path, not its descendants (a non-recursive persistent watch). */
        SINGLE_NODE_CACHE,
        /** Keep only stats: {@link ChildData#data()} is null. Nodes are read with {@code exists}. */
        DATA_LESS,
        /** Keep the cached nodes after {@link #close()} (by default they are cleared). */
        DO_NOT_CLEAR_ON_CLOSE
    }

    private final BatonClient client;
    private final Lifecycle lifecycle;
    private final String root;
    private final boolean singleNode;
    /** How deep below the root nodes are cached: 0 the root alone, {@link Integer#MAX_VALUE} for no limit. */
    private final int maxDepth;
    private final boolean dataLess;
    private final boolean clearOnClose;
    /** Sorted by path, so a node's descendants are one contiguous range right after it. */
    private final ConcurrentSkipListMap<String, ChildData> nodes = new ConcurrentSkipListMap<>();
    private final ListenerContainer<BatonCacheListener> listeners = new ListenerContainer<>(Runnable::run,
            (message, e) -> LOG.error("BatonCache listener failed: {}", message, e));
    private final SerialExecutor delivery = new SerialExecutor(Runnable::run);
    /**
     * How changes are watched: a persistent watch, until the server refuses one (before ZooKeeper 3.6); then
     * one-shot watches, for good. Written with {@link #lock} held, read without it (hence volatile, and no
     * {@code @GuardedBy}, which would require the lock for reads too).
     */
    private volatile Watching watching;
    private final Object lock = new Object();
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;

    /** Bumped for every (re)registration of the watch; reads and resyncs of older generations count less. */
    @GuardedBy("lock")
    private long generation;
    /** The initial load or resync under way; null if none. */
    @GuardedBy("lock")
    private @Nullable Resync resync;
    @GuardedBy("lock")
    private boolean initialized;
    /** Completed (after the listeners heard {@code initialized()}) when the initial load is done. */
    private final CompletableFuture<Void> loaded = new CompletableFuture<>();
    /** Callers of {@link #refresh()} waiting for the next complete read of the tree. */
    @GuardedBy("lock")
    private final List<CompletableFuture<Void>> refreshWaiters = new ArrayList<>();
    /** Listener calls decided under the lock, run outside it, in order, by {@link #delivery}. */
    @GuardedBy("lock")
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();
    /** The thread running listener calls now ({@link #drain()}), or null; one at a time. */
    private volatile @Nullable Thread delivering;
    /**
     * The watch events not applied yet, in the order they arrived (zxid order). The head is applied (and its
     * listener calls queued in {@link #pending}) as soon as it is ready; a later event waits for every earlier one.
     */
    @GuardedBy("lock")
    private final ArrayDeque<CacheStep> steps = new ArrayDeque<>();

    private BatonCache(BatonClient client, String root, int maxDepth, Set<Option> options) {
        this.client = client;
        this.root = root;
        this.lifecycle = new Lifecycle("BatonCache " + root);
        this.singleNode = options.contains(Option.SINGLE_NODE_CACHE);
        this.maxDepth = singleNode ? 0 : maxDepth;
        this.dataLess = options.contains(Option.DATA_LESS);
        this.clearOnClose = !options.contains(Option.DO_NOT_CLEAR_ON_CLOSE);
        this.watching = new PersistentWatching(client, root, dataLess, singleNode, this::watched);
    }

    /**
     * Builds a cache; nothing happens on the server until {@link #start()}.
     *
     * @param client the client
     * @param path the root of the cached subtree (or the node, with {@link Option#SINGLE_NODE_CACHE}); it need
     *        not exist
     * @param options how to cache
     * @return the cache
     * @throws NullPointerException if an argument or an option is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public static BatonCache build(BatonClient client, String path, Option... options) {
        return build(client, path, Integer.MAX_VALUE, options);
    }

    /**
     * A cache of the nodes at most {@code maxDepth} levels below {@code path} (0: the node alone), for the classic
     * façades. Deeper nodes are neither read nor reported; the watch is still recursive (a depth of 0 asks for
     * {@link Option#SINGLE_NODE_CACHE} instead).
     */
    static BatonCache build(BatonClient client, String path, int maxDepth, Option... options) {
        Objects.requireNonNull(client, "client");
        BatonPaths.validate(Objects.requireNonNull(path, "path"));
        Objects.requireNonNull(options, "options");
        Set<Option> set = EnumSet.noneOf(Option.class);
        for (Option option : options) {
            set.add(Objects.requireNonNull(option, "option"));
        }
        if (maxDepth < 0) {
            throw new IllegalArgumentException("maxDepth must be >= 0, was " + maxDepth);
        }
        return new BatonCache(client, path, maxDepth, set);
    }

    /**
     * Registers the watch and starts the initial load in the background; returns at once. Listeners hear a
     * {@link BatonCacheListener.Type#NODE_CREATED} for each node found, then
     * {@link BatonCacheListener#initialized()}. On a server without persistent watches (before ZooKeeper 3.6) the
     * cache uses one-shot watches instead (see the class comment); while the client is connected that is known
     * before this returns.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        long gen;
        synchronized (lock) {
            lifecycle.start();
            gen = ++generation;
        }
        client.getConnectionStateListenable().addListener(connectionListener);
        registerAndResync(gen);
    }

    /**
     * Starts as {@link #start()} does, and tells when the initial load is done: every node that existed when the
     * cache started is cached and has been reported, and {@link BatonCacheListener#initialized()} has been
     * called. No thread waits meanwhile. If the load fails for a connection reason, it is done again after the
     * client reconnects, and the future completes then.
     *
     * @return a future that completes once the initial load is done, or fails with
     *         {@link IllegalStateException} if the cache is closed first. Cancelling it does not stop the cache.
     * @throws IllegalStateException if already started or closed
     */
    public CompletableFuture<Void> startAsync() {
        start();
        return whenLoaded();
    }

    /** {@return a future that completes once the initial load is done, as the one {@link #startAsync()} returns} */
    CompletableFuture<Void> whenLoaded() {
        return loaded.copy();
    }

    /**
     * Waits until the initial load is done (see {@link #startAsync()}), so that {@link #get}, {@link #stream()}
     * and {@link #size()} answer for the whole subtree.
     *
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return true once loaded, false if the time ran out first
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws IllegalStateException if the cache is not started, or is closed (also while waiting), or if called
     *         before the load is done on ZooKeeper's event thread (the load needs that thread) or in a listener of
     *         this cache (the load is done once its listeners return): the wait could never end
     */
    public boolean awaitInitialized(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0, was " + timeout);
        }
        lifecycle.requireStarted();
        if (!loaded.isDone()) {
            if (Thread.currentThread() == delivering) {
                // A listener of this cache: the load completes after it returns, whatever thread it runs on.
                throw new IllegalStateException("cannot wait for BatonCache " + root + " to load in one of its "
                        + "listeners (on ZooKeeper's event thread or the client's): the wait could never end; "
                        + "use startAsync() or initialized() instead");
            }
            Requests.requireNotEventThread(client, "wait for BatonCache " + root + " to load");
        }
        try {
            loaded.get(timeout, unit);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException("BatonCache " + root + " was closed while waiting", e.getCause());
        }
    }

    /** {@return where the cache is in its life} */
    Lifecycle.State state() {
        return lifecycle.state();
    }

    /** {@return true once the initial load is done} */
    boolean isInitialized() {
        return loaded.isDone() && !loaded.isCompletedExceptionally();
    }

    /**
     * Reads the whole subtree again, as after a reconnection, reporting any difference found (for the classic
     * façades' {@code rebuild()}).
     *
     * @return a future that completes once a complete read that started after this call is done, or fails with
     *         {@link IllegalStateException} if the cache is closed first
     * @throws IllegalStateException if the cache is not started, or closed
     */
    CompletableFuture<Void> refresh() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long gen;
        synchronized (lock) {
            lifecycle.requireStarted();
            gen = ++generation;
            resync = null;
            refreshWaiters.add(done);
        }
        registerAndResync(gen);
        return done;
    }

    /**
     * Forgets every cached node without reporting anything (the classic {@code PathChildrenCache.clear()}): a
     * node read later (after a change, or by a {@link #refresh()}) is then reported as created, and the deletion
     * of a forgotten node is not reported.
     */
    void clearNodes() {
        synchronized (lock) {
            nodes.clear();
        }
    }

    /**
     * The cached direct children of a cached node.
     *
     * @return name to node, sorted by name; null if {@code path} itself is not cached
     */
    @Nullable Map<String, ChildData> children(String path) {
        if (!nodes.containsKey(path)) {
            return null;
        }
        String prefix = Subtrees.childPrefix(path);
        Map<String, ChildData> children = new java.util.LinkedHashMap<>();
        for (ChildData child : nodes.subMap(prefix, false, prefix + "\uffff", false).values()) {
            String name = child.path().substring(prefix.length());
            if (name.indexOf('/') < 0) {
                children.put(name, child);
            }
        }
        return nodes.containsKey(path) ? children : null; // deleted while listing: no children to show
    }

    /**
     * The cached node at a path.
     *
     * @param path a full path
     * @return the node, or empty if it is not cached
     * @throws NullPointerException if {@code path} is null
     */
    public Optional<ChildData> get(String path) {
        return Optional.ofNullable(nodes.get(Objects.requireNonNull(path, "path")));
    }

    /**
     * A weakly consistent view of the cached nodes, sorted by path (a parent before its descendants).
     *
     * @return the nodes
     */
    public Stream<ChildData> stream() {
        return nodes.values().stream();
    }

    /** {@return how many nodes are cached, the root included} */
    public int size() {
        return nodes.size();
    }

    /**
     * The listeners. Add them before {@link #start()} to hear the initial load.
     *
     * @return where to add and remove listeners
     */
    public Listenable<BatonCacheListener> listenable() {
        return listeners;
    }

    /**
     * Stops: removes the watch (on the server, and in the client even if the server cannot be reached), the
     * connection listener and the listeners, and clears the cache unless
     * {@link Option#DO_NOT_CLEAR_ON_CLOSE}. Reads still in flight are ignored. Closing twice does nothing.
     */
    @Override
    public void close() {
        synchronized (lock) {
            boolean started = lifecycle.close() == Lifecycle.State.STARTED;
            generation++;
            resync = null;
            pending.clear();
            steps.clear();
            if (!started) {
                return;
            }
        }
        IllegalStateException closed = new IllegalStateException("BatonCache " + root + " was closed");
        loaded.completeExceptionally(closed);
        List<CompletableFuture<Void>> waiting;
        synchronized (lock) {
            waiting = List.copyOf(refreshWaiters);
            refreshWaiters.clear();
        }
        waiting.forEach(f -> f.completeExceptionally(closed));
        client.getConnectionStateListenable().removeListener(connectionListener);
        listeners.clear();
        watching.remove(watchedPaths(), false);
        if (clearOnClose) {
            nodes.clear();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Watch and connection events

    private void registerAndResync(long gen) {
        Watching way = watching;
        Futures.whenDone(way.register(), (ok, error) -> {
            if (error != null) {
                if (Failures.unwrap(error) instanceof UnsupportedServerFeatureException unsupported) {
                    oneShot(way, unsupported);
                    registerAndResync(gen);
                } else {
                    report("registering the watch", error);
                }
                return;
            }
            Resync r;
            synchronized (lock) {
                if (lifecycle.state() == Lifecycle.State.CLOSED) {
                    way.remove(watchedPaths(), true); // closed meanwhile
                    return;
                }
                if (gen != generation) {
                    return;
                }
                r = new Resync(gen);
                resync = r;
                r.queue.add(root);
            }
            pump(r);
        });
    }

    /**
     * The server refused the persistent watch, sending nothing (it is older than ZooKeeper 3.6): from now on the
     * cache watches with one-shot watches. Not a failure: logged once, at info level.
     */
    private void oneShot(Watching refused, UnsupportedServerFeatureException why) {
        synchronized (lock) {
            if (watching != refused) {
                return; // switched already
            }
            watching = new OneShotWatching(client, root, dataLess, this::watched);
        }
        LOG.info("BatonCache {}: one-shot watches instead of a persistent watch: {}", root, why.getMessage());
    }

    /** The paths the cache may have watches on: the root and every cached node. */
    private List<String> watchedPaths() {
        List<String> paths = new ArrayList<>(nodes.keySet());
        if (!nodes.containsKey(root)) {
            paths.add(root);
        }
        return paths;
    }

    private void watched(WatchedEvent event) {
        String path = event.getPath();
        if (path == null) {
            return; // connection news: the connection listener handles it
        }
        if (!(singleNode ? path.equals(root) : isUnderRoot(path) && depth(path) <= maxDepth)) {
            return;
        }
        switch (event.getType()) {
            case NodeCreated, NodeDataChanged -> {
                CacheStep step;
                synchronized (lock) {
                    if (!lifecycle.isStarted()) {
                        return;
                    }
                    step = new CacheStep(path, generation, CacheStep.READ);
                    // With one-shot watches nothing watches a new node's children until it is listed.
                    step.relist = event.getType() == Watcher.Event.EventType.NodeCreated && watching.isOneShot();
                    steps.add(step);
                }
                readStep(step);
            }
            case NodeChildrenChanged -> {
                // Only from a one-shot child watch: list again, and compare in the event's place.
                if (depth(path) >= maxDepth) {
                    return;
                }
                CacheStep step;
                synchronized (lock) {
                    if (!lifecycle.isStarted()) {
                        return;
                    }
                    step = new CacheStep(path, generation, CacheStep.LIST);
                    steps.add(step);
                }
                listStep(step);
            }
            case NodeDeleted -> {
                // The event's zxid is the deletion's: cached incarnations created before it are the deleted
                // ones (one created later, found by a resync or by an earlier event's read, stays).
                long zxid = event.getZxid();
                List<CacheStep> next;
                synchronized (lock) {
                    if (!lifecycle.isStarted()) {
                        return;
                    }
                    CacheStep step = new CacheStep(path, generation, zxid > 0 ? zxid : Long.MAX_VALUE);
                    step.done = true; // needs no read, but waits for the reads of the events before it
                    steps.add(step);
                    next = applySteps();
                }
                flush();
                startSteps(next);
            }
            default -> {
            }
        }
    }

    private void connectionStateChanged(BatonClient c, ConnectionState newState) {
        long gen;
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST
                    || newState == ConnectionState.RECONNECTED) {
                pending.add(() -> listeners.forEach(l -> {
                    if (l instanceof Adapters.ConnectionAware aware) {
                        aware.connectionStateChanged(newState);
                    }
                }));
            }
            if (newState != ConnectionState.RECONNECTED) {
                gen = 0;
            } else {
                gen = ++generation;
                resync = null;
            }
        }
        flush();
        if (gen != 0) {
            // A new session has no watch; the same session kept it but missed the changes while disconnected.
            // Either way: register (idempotent) and read everything again.
            registerAndResync(gen);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Watch events, applied in their order

    /** Reads the node of a creation or change event; the step is done when the read completes, however. */
    private void readStep(CacheStep step) {
        // A failure (client closed too) still completes the step, or the queue would stall.
        watching.read(step.path, (stat, data, error) -> stepRead(step, stat, data, error));
    }

    /** Lists the children of a one-shot child watch's node; the step is done when the listing completes. */
    private void listStep(CacheStep step) {
        Futures.whenDone(watching.list(step.path, step.parentStat), (children, error) -> {
            List<CacheStep> next;
            synchronized (lock) {
                if (!lifecycle.isStarted()) {
                    return;
                }
                step.done = true;
                step.children = error == null ? children : null; // failed: the resync after reconnecting sees it
                next = applySteps();
            }
            flush();
            startSteps(next);
            if (error != null && !Watching.isNoNode(error)) {
                report("listing the children of " + step.path, error);
            }
        });
    }

    /** Starts the reads and listings of steps queued while applying others, in their order. */
    private void startSteps(List<CacheStep> next) {
        for (CacheStep step : next) {
            if (step.deletedBefore == CacheStep.LIST) {
                listStep(step);
            } else {
                readStep(step);
            }
        }
    }

    private void stepRead(CacheStep step, @Nullable Stat stat, byte @Nullable [] data, @Nullable Throwable error) {
        boolean missing = (error == null && stat == null) || Watching.isNoNode(error);
        List<CacheStep> next;
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            step.done = true;
            if (stat != null && error == null) {
                step.stat = stat;
                step.data = data;
                if (resync != null && resync.generation == step.generation) {
                    resync.seen.add(step.path); // present now: a resync ending before the step applies keeps it
                }
            } else {
                step.missing = missing; // another failure: nothing to apply; a resync follows the reconnect
            }
            next = applySteps();
        }
        flush();
        startSteps(next);
        if (error != null && !missing) {
            report("reading " + step.path, error);
        }
    }

    /**
     * With the lock held: applies the ready steps at the head of the queue, in order.
     *
     * @return the steps applying them put in the queue (one-shot watches: listings of new nodes, reads of new
     *         children), to start once the lock is released. They go at its head, in the place of the step that
     *         found the new nodes, so that the new nodes are reported there: in the order of the changes, and a
     *         parent before its children.
     */
    @GuardedBy("lock")
    private List<CacheStep> applySteps() {
        List<CacheStep> next = new ArrayList<>(0);
        CacheStep step;
        while ((step = steps.peek()) != null && step.done) {
            steps.poll();
            if (step.deletedBefore == CacheStep.LIST) {
                if (step.children != null) {
                    applyListing(step, step.children, next);
                }
            } else if (step.isDeletion()) {
                removeSubtree(step.path, step.deletedBefore);
            } else if (step.stat != null) {
                observed(step.path, step.stat, step.data, null);
                if (step.relist && depth(step.path) < maxDepth && nodes.containsKey(step.path)) {
                    queueFirst(new CacheStep(step.path, generation, CacheStep.LIST), next);
                }
            } else if (step.missing && !deletionQueued(step.path)) {
                // Gone, but no deletion event is queued to report it (none can be missed while the watch is
                // registered: ZooKeeper delivers the event before the reply of a later read).
                removeSubtree(step.path, Long.MAX_VALUE);
            }
            // Else: gone with its deletion still queued; that deletion reports it, in its place.
        }
        return next;
    }

    @GuardedBy("lock")
    private void queueFirst(CacheStep step, List<CacheStep> next) {
        steps.addFirst(step);
        next.add(step);
    }

    /**
     * With the lock held: a listing of a cached node's children (one-shot watches), compared with the cache. A
     * new child is read (and then listed) in a step of its own; a cached child the listing lacks is removed if it
     * was created before the listing was taken (the parent's {@code pzxid} says when its children last changed)
     * and no queued deletion will report it.
     */
    @GuardedBy("lock")
    private void applyListing(CacheStep step, List<String> children, List<CacheStep> next) {
        Map<String, ChildData> cached = children(step.path);
        if (cached == null) {
            return; // the node is gone (its deletion was applied): so are its children
        }
        Set<String> listed = new HashSet<>(children);
        for (ChildData child : cached.values()) {
            String name = child.path().substring(child.path().lastIndexOf('/') + 1);
            if (!listed.contains(name) && child.stat().getCzxid() <= step.parentStat.getPzxid()
                    && !deletionQueued(child.path())) {
                removeSubtree(child.path(), Long.MAX_VALUE); // else its queued deletion reports it, in its place
            }
        }
        String prefix = Subtrees.childPrefix(step.path);
        List<CacheStep> reads = new ArrayList<>();
        for (String name : children.stream().filter(name -> !cached.containsKey(name)).sorted().toList()) {
            CacheStep read = new CacheStep(prefix.concat(name), generation, CacheStep.READ);
            read.relist = true;
            reads.add(read);
        }
        for (int i = reads.size() - 1; i >= 0; i--) {
            steps.addFirst(reads.get(i)); // at the head, in name order
        }
        next.addAll(reads);
    }

    /** With the lock held: whether a queued deletion covers {@code path}. */
    @GuardedBy("lock")
    private boolean deletionQueued(String path) {
        for (CacheStep step : steps) {
            if (step.isDeletion()
                    && Subtrees.isAtOrBelow(step.path, path)) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Reads

    /** Starts as many queued reads of a resync as the window allows; completes the resync when all are done. */
    private void pump(Resync r) {
        List<String> toRead;
        synchronized (lock) {
            if (resync != r || !lifecycle.isStarted()) {
                return;
            }
            toRead = refill(r);
        }
        if (toRead == null) {
            flush(); // the resync is over (or needs nothing more now): deliver what it found
            return;
        }
        readAll(toRead, r);
    }

    /**
     * With the lock held: takes the queued paths the window has room for, or completes the resync when nothing is
     * queued or in flight.
     *
     * @return the paths to read now, or null if none
     */
    @GuardedBy("lock")
    private @Nullable List<String> refill(Resync r) {
        if (r.inFlight > MAX_IN_FLIGHT - REFILL_BATCH && !r.queue.isEmpty()) {
            return null; // wait for a batch of room: one pass over the queue per batch, not per completed read
        }
        if (!r.queue.isEmpty()) {
            int n = Math.min(MAX_IN_FLIGHT - r.inFlight, r.queue.size());
            List<String> toRead = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                toRead.add(r.queue.poll());
            }
            r.inFlight += n;
            return toRead;
        }
        if (r.inFlight == 0) {
            resync = null;
            if (!r.failed) {
                removeUnseen(r);
                if (!initialized) {
                    initialized = true;
                    pending.add(() -> listeners.forEach(BatonCacheListener::initialized));
                    pending.add(() -> loaded.complete(null));
                }
                if (!refreshWaiters.isEmpty()) {
                    List<CompletableFuture<Void>> waiting = List.copyOf(refreshWaiters);
                    refreshWaiters.clear();
                    pending.add(() -> waiting.forEach(f -> f.complete(null)));
                }
            }
        }
        return null;
    }

    private void readAll(List<String> paths, Resync r) {
        for (String path : paths) {
            read(path, r.generation, r);
        }
    }

    /** A resync's read of a node: applies what was found at once, then lists its children (if it has any). */
    private void read(String path, long gen, Resync r) {
        watching.read(path, (stat, data, error) -> applyRead(path, gen, r, stat, data, error));
    }

    /** What a read of {@code path} found ({@code stat} null: no such node), applied with the lock held. */
    private void applyRead(String path, long gen, Resync r, @Nullable Stat stat, byte @Nullable [] data,
            @Nullable Throwable error) {
        boolean missing = (error == null && stat == null) || Watching.isNoNode(error);
        boolean listChildren = false;
        boolean deliver = true;
        List<String> toRead = null;
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            Resync current = resync != null && resync.generation == gen ? resync : null;
            if (missing) {
                removeSubtree(path, Long.MAX_VALUE);
            } else if (error == null && stat != null) { // not missing: without an error, the read found a node
                observed(path, stat, data, current);
                listChildren = r != null && current == r && depth(path) < maxDepth
                        && (stat.getNumChildren() > 0 || watching.listsEveryNode());
            } else if (r != null && current == r) {
                r.failed = true;
            }
            if (r != null && current == r && !listChildren) {
                // This node's part of the resync is done. Listener calls of a resync are delivered a batch at a
                // time (and when it ends), not one delivery per read.
                r.inFlight--;
                toRead = refill(r);
                deliver = ++r.undelivered >= DELIVERY_BATCH || resync != r;
                if (deliver) {
                    r.undelivered = 0;
                }
            }
        }
        if (deliver) {
            flush();
        }
        if (error != null && !missing) {
            report("reading " + path, error);
        }
        if (listChildren) {
            listChildren(path, r);
        } else if (toRead != null) {
            readAll(toRead, r);
        }
    }

    private void listChildren(String path, Resync r) {
        Futures.whenDone(watching.list(path, new Stat()), (children, error) -> {
            List<String> toRead;
            synchronized (lock) {
                if (resync != r || !lifecycle.isStarted()) {
                    return;
                }
                if (error == null) {
                    String prefix = Subtrees.childPrefix(path);
                    for (String child : children) {
                        r.queue.add(prefix.concat(child));
                    }
                } else if (!Watching.isNoNode(error)) {
                    r.failed = true; // a deleted node's children are deleted too: NONODE is fine
                }
                r.inFlight--;
                toRead = refill(r);
            }
            if (error != null && !Watching.isNoNode(error)) {
                report("listing the children of " + path, error);
            }
            if (toRead != null) {
                readAll(toRead, r);
            } else {
                flush();
            }
        });
    }

    private void report(String what, Throwable error) {
        Throwable cause = Failures.unwrap(error);
        if (Failures.isConnectionProblem(cause) || cause instanceof IllegalStateException) {
            // The next RECONNECTED resynchronizes; a closed client needs nothing.
            LOG.debug("BatonCache {}: {} failed: {}", root, what, cause.toString());
        } else {
            LOG.error("BatonCache {}: {} failed", root, what, cause);
            ErrorSink.report(client, "BatonCache " + root + ": " + what + " failed", cause);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Applying observations (all with the lock held; listener calls are queued in `pending`)

    /** A node was read: compare it with the cache by incarnation (czxid) and data version (mzxid). */
    @GuardedBy("lock")
    private void observed(String path, Stat stat, byte @Nullable [] data, @Nullable Resync r) {
        if (r != null) {
            r.seen.add(path);
        }
        ChildData old = nodes.get(path);
        ChildData now = new ChildData(path, stat, dataLess ? null : data);
        if (old == null) {
            nodes.put(path, now);
            emit(BatonCacheListener.Type.NODE_CREATED, null, now);
            return;
        }
        long oldCzxid = old.stat().getCzxid();
        if (stat.getCzxid() == oldCzxid) {
            if (stat.getMzxid() > old.stat().getMzxid()) {
                nodes.put(path, now);
                emit(BatonCacheListener.Type.NODE_CHANGED, old, now);
            } else if (stat.getMzxid() == old.stat().getMzxid() && stat.getPzxid() > old.stat().getPzxid()) {
                nodes.put(path, now); // only child-related fields moved: fresher stat, nothing to report
            }
        } else if (stat.getCzxid() > oldCzxid) {
            // Deleted and created again unseen: the old incarnation and everything below it are gone.
            removeSubtree(path, stat.getCzxid());
            nodes.put(path, now);
            emit(BatonCacheListener.Type.NODE_CREATED, null, now);
        }
        // An older incarnation than the cached one: a stale read, ignored.
    }

    /**
     * Removes a node and its cached descendants created before {@code czxidBelow}, deepest first, reporting each.
     */
    @GuardedBy("lock")
    private void removeSubtree(String path, long czxidBelow) {
        String prefix = Subtrees.childPrefix(path);
        NavigableMap<String, ChildData> below = nodes.subMap(prefix, false, prefix + "\uffff", false);
        if (!below.isEmpty()) {
            for (Map.Entry<String, ChildData> e : below.descendingMap().entrySet()) {
                if (e.getValue().stat().getCzxid() < czxidBelow && nodes.remove(e.getKey(), e.getValue())) {
                    emit(BatonCacheListener.Type.NODE_DELETED, e.getValue(), null);
                }
            }
        }
        ChildData old = nodes.get(path);
        if (old != null && old.stat().getCzxid() < czxidBelow && nodes.remove(path, old)) {
            emit(BatonCacheListener.Type.NODE_DELETED, old, null);
        }
    }

    /**
     * End of a complete resync: cached nodes no read of it found are gone from the server. They are reported as
     * a deleted subtree is, each node after its descendants, and siblings in the order of their names (as the
     * initial load reported them), so the removals a lost session causes read in a predictable order.
     */
    @GuardedBy("lock")
    private void removeUnseen(Resync r) {
        List<String> gone = new ArrayList<>();
        for (String path : nodes.keySet()) {
            if (!r.seen.contains(path)) {
                gone.add(path);
            }
        }
        for (String path : Subtrees.childrenFirst(gone)) {
            ChildData old = nodes.remove(path);
            if (old != null) {
                emit(BatonCacheListener.Type.NODE_DELETED, old, null);
            }
        }
    }

    @GuardedBy("lock")
    private void emit(BatonCacheListener.Type type, @Nullable ChildData oldData, @Nullable ChildData data) {
        pending.add(() -> listeners.forEach(l -> l.event(type, oldData, data)));
    }

    /** Runs the queued listener calls, in order, outside the lock. */
    private void flush() {
        delivery.execute(this::drain);
    }

    private void drain() {
        delivering = Thread.currentThread();
        try {
            while (true) {
                Runnable next;
                synchronized (lock) {
                    next = pending.poll();
                }
                if (next == null) {
                    return;
                }
                next.run();
            }
        } finally {
            delivering = null;
        }
    }

    /** How many levels below the root a path is (0 for the root); for a path under the root only. */
    private int depth(String path) {
        if (maxDepth == Integer.MAX_VALUE || path.length() == root.length()) {
            return 0; // no limit: the depth does not matter
        }
        int depth = root.equals("/") ? 1 : 0; // "/a/b" under "/a" has one slash after the root, "/x" under "/" none
        for (int i = root.length(); i < path.length(); i++) {
            if (path.charAt(i) == '/') {
                depth++;
            }
        }
        return depth;
    }

    private boolean isUnderRoot(String path) {
        return Subtrees.isAtOrBelow(root, path);
    }

    @Override
    public String toString() {
        return "BatonCache[" + root + ", " + nodes.size() + " nodes]";
    }
}
