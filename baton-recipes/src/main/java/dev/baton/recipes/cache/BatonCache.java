package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.UnsupportedServerFeatureException;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.ErrorSink;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Requests;
import dev.baton.listen.Listenable;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.zookeeper.AddWatchMode;
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
 * <p>This file is the public API and the cache's lifecycle; the cached tree and its listener calls
 * ({@code CachedTree}), the initial load and resyncs ({@code Resyncing}) and the watch events in their order
 * ({@code EventSteps}) are package-private classes sharing one lock. How the watches are set and what the reads
 * ask for is the package's {@code Watching} strategy (persistent or one-shot); the classic caches
 * ({@code NodeCache}, {@code PathChildrenCache}, {@code TreeCache}) live in their own files over it.
 */
public final class BatonCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BatonCache.class);
    /**
     * How many reads the initial load and a resync keep in flight at most. A larger window measured no faster
     * (the server's own outstanding-request limit is 1,000) and makes the session's other requests wait behind
     * more of the cache's reads.
     */
    static final int MAX_IN_FLIGHT = 1_000;

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
    private final boolean dataLess;
    private final boolean clearOnClose;
    private final ListenerContainer<BatonCacheListener> listeners = new ListenerContainer<>(Runnable::run,
            (message, e) -> LOG.error("BatonCache listener failed: {}", message, e));
    /** The cached nodes, the listener calls their changes cause, and the cache's lock ({@code tree.lock}). */
    private final CachedTree tree;
    /** The initial load and the resyncs; the cache's generation. */
    private final Resyncing resyncing;
    /** The watch events, applied in their order. */
    private final EventSteps steps;
    /**
     * How changes are watched: a persistent watch, until the server refuses one (before ZooKeeper 3.6); then
     * one-shot watches, for good. Written with the cache's lock held, read without it (hence volatile, and no
     * {@code @GuardedBy}, which would require the lock for reads too).
     */
    private volatile Watching watching;
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;
    /** Completed (after the listeners heard {@code initialized()}) when the initial load is done. */
    private final CompletableFuture<Void> loaded = new CompletableFuture<>();

    private BatonCache(BatonClient client, String root, int maxDepth, Set<Option> options) {
        this.client = client;
        this.root = root;
        this.lifecycle = new Lifecycle("BatonCache " + root);
        boolean singleNode = options.contains(Option.SINGLE_NODE_CACHE);
        this.dataLess = options.contains(Option.DATA_LESS);
        this.clearOnClose = !options.contains(Option.DO_NOT_CLEAR_ON_CLOSE);
        this.tree = new CachedTree(root, singleNode, singleNode ? 0 : maxDepth, dataLess, listeners);
        this.resyncing = new Resyncing(tree, lifecycle, root, this::watching, loaded, this::report);
        this.steps = new EventSteps(tree, resyncing, lifecycle, this::watching, this::report);
        this.watching = new PersistentWatching(client, root, dataLess, singleNode, steps::watched);
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
        synchronized (tree.lock) {
            lifecycle.start();
            gen = resyncing.nextGeneration();
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
            if (tree.isDelivering()) {
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
        registerAndResync(resyncing.refresh(done));
        return done;
    }

    /**
     * Forgets every cached node without reporting anything (the classic {@code PathChildrenCache.clear()}): a
     * node read later (after a change, or by a {@link #refresh()}) is then reported as created, and the deletion
     * of a forgotten node is not reported.
     */
    void clearNodes() {
        synchronized (tree.lock) {
            tree.clear();
        }
    }

    /**
     * The cached direct children of a cached node.
     *
     * @return name to node, sorted by name; null if {@code path} itself is not cached
     */
    @Nullable Map<String, ChildData> children(String path) {
        return tree.children(path);
    }

    /**
     * The cached node at a path.
     *
     * @param path a full path
     * @return the node, or empty if it is not cached
     * @throws NullPointerException if {@code path} is null
     */
    public Optional<ChildData> get(String path) {
        return tree.get(Objects.requireNonNull(path, "path"));
    }

    /**
     * A weakly consistent view of the cached nodes, sorted by path (a parent before its descendants).
     *
     * @return the nodes
     */
    public Stream<ChildData> stream() {
        return tree.stream();
    }

    /** {@return how many nodes are cached, the root included} */
    public int size() {
        return tree.size();
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
        synchronized (tree.lock) {
            boolean started = lifecycle.close() == Lifecycle.State.STARTED;
            resyncing.nextGeneration();
            tree.dropQueued();
            steps.clear();
            if (!started) {
                return;
            }
        }
        IllegalStateException closed = new IllegalStateException("BatonCache " + root + " was closed");
        loaded.completeExceptionally(closed);
        resyncing.failRefreshes(closed);
        client.getConnectionStateListenable().removeListener(connectionListener);
        listeners.clear();
        watching.remove(tree.watchedPaths(), false);
        if (clearOnClose) {
            tree.clear();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Watch registration and connection events

    /** {@return how changes are watched now} */
    private Watching watching() {
        return watching;
    }

    /** Registers the watch (idempotent), then reads the whole tree again, unless a newer generation began. */
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
            synchronized (tree.lock) {
                if (lifecycle.state() == Lifecycle.State.CLOSED) {
                    way.remove(tree.watchedPaths(), true); // closed meanwhile
                    return;
                }
                r = resyncing.begin(gen);
            }
            if (r != null) {
                resyncing.pump(r);
            }
        });
    }

    /**
     * The server refused the persistent watch, sending nothing (it is older than ZooKeeper 3.6): from now on the
     * cache watches with one-shot watches. Not a failure: logged once, at info level.
     */
    private void oneShot(Watching refused, UnsupportedServerFeatureException why) {
        synchronized (tree.lock) {
            if (watching != refused) {
                return; // switched already
            }
            watching = new OneShotWatching(client, root, dataLess, steps::watched);
        }
        LOG.info("BatonCache {}: one-shot watches instead of a persistent watch: {}", root, why.getMessage());
    }

    private void connectionStateChanged(BatonClient c, ConnectionState newState) {
        long gen;
        synchronized (tree.lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST
                    || newState == ConnectionState.RECONNECTED) {
                tree.queue(() -> listeners.forEach(l -> {
                    if (l instanceof Adapters.ConnectionAware aware) {
                        aware.connectionStateChanged(newState);
                    }
                }));
            }
            gen = newState == ConnectionState.RECONNECTED ? resyncing.nextGeneration() : 0;
        }
        tree.flush();
        if (gen != 0) {
            // A new session has no watch; the same session kept it but missed the changes while disconnected.
            // Either way: register (idempotent) and read everything again.
            registerAndResync(gen);
        }
    }

    /** Reports a failed request: at debug level if a reconnection or closing explains it, else as an error. */
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

    @Override
    public String toString() {
        return "BatonCache[" + root + ", " + tree.size() + " nodes]";
    }
}
