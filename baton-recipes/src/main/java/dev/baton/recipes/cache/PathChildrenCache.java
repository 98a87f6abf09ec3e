package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.ListenerContainer;
import dev.baton.listen.Listenable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local copy of the children of one node, in the shape of Apache Curator's (deprecated)
 * {@code PathChildrenCache}, so code written against it ports by changing its imports. A thin façade over a
 * {@link BatonCache} limited to the node and its children: one persistent recursive watch on ZooKeeper 3.6 and
 * newer; on 3.5, which has none, one-shot watches as Curator's (a child watch on the node, a data watch per child,
 * each set again after it fires; see {@link BatonCache}). No thread of its own (Curator's starts a thread per
 * cache).
 *
 * <pre>{@code
 * try (PathChildrenCache workers = new PathChildrenCache(client, "/app/workers", true)) {
 *     workers.getListenable().addListener((c, event) -> {
 *         switch (event.getType()) {
 *             case CHILD_ADDED -> assign(event.getData().getPath());
 *             case CHILD_REMOVED -> reassign(event.getData().getPath());
 *             default -> { }
 *         }
 *     });
 *     workers.start(PathChildrenCache.StartMode.BUILD_INITIAL_CACHE);   // loaded when this returns
 *     List<ChildData> now = workers.getCurrentData();
 * }
 * }</pre>
 *
 * <p>Events, as Curator's: {@code CHILD_ADDED}, {@code CHILD_UPDATED} (the child's data version moved),
 * {@code CHILD_REMOVED} for the direct children of the path (not for the node itself, nor deeper nodes), in the
 * order of the changes; {@code CONNECTION_SUSPENDED}, {@code CONNECTION_RECONNECTED}, {@code CONNECTION_LOST} for
 * the client's connection; {@code INITIALIZED} with {@link StartMode#POST_INITIALIZED_EVENT}. What changed while
 * the client was disconnected is reported once it is back; a child deleted and created again meanwhile comes as
 * {@code CHILD_REMOVED} then {@code CHILD_ADDED}. Quick successive changes of one child may be reported as one
 * (the cache reads a child after each notification and reports what it finds).
 *
 * <p>As Curator's, the cache makes sure its path exists: {@code start} creates it where missing as a
 * {@link CreateMode#CONTAINER container} node (its missing parents too), and whenever the cache sees it deleted,
 * it creates it again. So once its last child is gone and the server removes the empty container, the path is
 * back shortly after, and a plain create of a child under it works again. The path itself is never reported as
 * an event; {@link #close()} deletes it only if this cache created it and it never had a child.
 *
 * <p>Thread-safe. Listeners added without an executor run on ZooKeeper's event thread and must not block.
 */
public final class PathChildrenCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PathChildrenCache.class);

    /** How {@link #start(StartMode)} fills the cache, as in Curator. */
    public enum StartMode {
        /** Returns at once; the children found by the initial load are reported as {@code CHILD_ADDED}. */
        NORMAL,
        /** Returns once the children are loaded; they are not reported, only the changes after. */
        BUILD_INITIAL_CACHE,
        /** As {@link #NORMAL}, then an {@code INITIALIZED} event once every child found at start is reported. */
        POST_INITIALIZED_EVENT
    }

    private final Object lock = new Object();
    private final BatonClient client;
    private final String path;
    private final BatonCache cache;
    private final ListenerContainer<PathChildrenCacheListener> listeners;
    /** Makes the path again when the cache sees it deleted (the server removes an empty container). */
    private final BatonCacheListener pathKeeper = this::pathEvent;
    private volatile boolean closed;
    /** The creation zxid of the path as this cache last created it; 0 if it never did. */
    private volatile long createdCzxid;

    /**
     * @param client the client
     * @param path the parent whose children are cached; it need not exist ({@code start} creates it)
     * @param cacheData true to keep each child's data, false for its stat only ({@link ChildData#data()} null)
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public PathChildrenCache(BatonClient client, String path, boolean cacheData) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = BatonPaths.validate(Objects.requireNonNull(path, "path"));
        this.cache = cacheData ? BatonCache.build(client, path, 1)
                : BatonCache.build(client, path, 1, BatonCache.Option.DATA_LESS);
        this.listeners = new ListenerContainer<>(Runnable::run,
                (message, e) -> LOG.error("PathChildrenCache {} listener failed: {}", path, message, e));
    }

    /**
     * Starts in {@link StartMode#NORMAL}: returns at once.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        begin(StartMode.NORMAL);
    }

    /**
     * Starts, {@link StartMode#BUILD_INITIAL_CACHE} with {@code buildInitial}, else {@link StartMode#NORMAL}.
     *
     * @param buildInitial true to load the children before returning
     * @throws KeeperException.ConnectionLossException if the children could not be loaded within the session
     *         timeout (the cache stays started and loads them once the client is connected)
     * @throws InterruptedException if interrupted while waiting (the cache stays started)
     * @throws IllegalStateException if already started or closed
     */
    public void start(boolean buildInitial) throws KeeperException, InterruptedException {
        start(buildInitial ? StartMode.BUILD_INITIAL_CACHE : StartMode.NORMAL);
    }

    /**
     * Creates the path where it is missing (see the class comment) and starts the cache.
     *
     * @param mode how to fill it; with {@link StartMode#BUILD_INITIAL_CACHE} this returns once the children are
     *        loaded
     * @throws KeeperException.ConnectionLossException if {@link StartMode#BUILD_INITIAL_CACHE} could not load the
     *         children within the session timeout (the cache stays started and loads them once connected)
     * @throws InterruptedException if interrupted while waiting (the cache stays started)
     * @throws NullPointerException if {@code mode} is null
     * @throws IllegalStateException if already started or closed, or if called on ZooKeeper's event thread with
     *         {@link StartMode#BUILD_INITIAL_CACHE}
     */
    public void start(StartMode mode) throws KeeperException, InterruptedException {
        begin(Objects.requireNonNull(mode, "mode"));
        if (mode == StartMode.BUILD_INITIAL_CACHE) {
            Facades.await(client, cache.whenLoaded(), path);
        }
    }

    private void begin(StartMode mode) {
        synchronized (lock) {
            Facades.requireLatent(cache, this);
            PathChildrenCacheListener dispatch = (c, event) -> Facades.dispatch(listeners, l -> l.childEvent(c, event));
            BatonCacheListener children = new Adapters.PathChildren(path, client, dispatch,
                    mode == StartMode.POST_INITIALIZED_EVENT);
            cache.listenable().addListener(new Adapters.Composite(List.of(children),
                    mode == StartMode.BUILD_INITIAL_CACHE));
            cache.listenable().addListener(pathKeeper);
            // Sent before the cache's own requests: one session's requests are handled in order, so the initial load
            // finds the path.
            ensurePath();
            cache.start();
        }
    }

    private void pathEvent(BatonCacheListener.Type type, @Nullable ChildData oldData, @Nullable ChildData data) {
        if (type == BatonCacheListener.Type.NODE_DELETED && oldData != null && oldData.path().equals(path)) {
            ensurePath();
        }
    }

    /** Creates the path as a container, with its missing parents, unless it exists; in the background. */
    private void ensurePath() {
        if (closed || path.equals("/")) {
            return;
        }
        try {
            CompletableFuture<Stat> made = client.create().creatingParentContainersIfNeeded()
                    .withMode(CreateMode.CONTAINER).forPathAsync(path)
                    .thenCompose(created -> client.checkExists().forPathAsync(path));
            Futures.whenDone(made, (stat, error) -> {
                if (error == null && stat != null) {
                    createdCzxid = stat.getCzxid();
                    if (closed) {
                        removeIfUnused(); // closed while the create was in flight
                    }
                } else if (error != null && Failures.code(error) != KeeperException.Code.NODEEXISTS) {
                    // A connection problem: the resync after reconnecting finds the path missing and reports its
                    // deletion, which brings it back here.
                    LOG.debug("PathChildrenCache {}: could not create the path: {}", path,
                            Failures.unwrap(error).toString());
                }
            });
        } catch (IllegalStateException e) {
            LOG.debug("PathChildrenCache {}: client closed, path not created", path);
        }
    }

    /**
     * Reads the children again and waits until done. The cache is kept current by its watch, so this finds
     * nothing new unless a change is in flight or {@link #clear()} emptied the cache; what it finds is reported
     * (Curator's reports nothing).
     *
     * @throws KeeperException.ConnectionLossException if the read did not complete within the session timeout
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if not started, or closed, or called on ZooKeeper's event thread
     */
    public void rebuild() throws KeeperException, InterruptedException {
        Facades.await(client, cache.refresh(), path);
    }

    /**
     * Empties the cache without reporting anything and without reading again: a child read later (after a change
     * of it, or by {@link #rebuild()}) is then reported as {@code CHILD_ADDED}, and the removal of a child no
     * longer cached is not reported, as with Curator's.
     */
    public void clear() {
        cache.clearNodes();
    }

    /**
     * The cached children, sorted by path: no guarantee that they are the server's current state, only the
     * latest known here.
     *
     * @return the children (a copy)
     */
    public List<ChildData> getCurrentData() {
        Map<String, ChildData> children = cache.children(path);
        return children == null ? List.of() : List.copyOf(new ArrayList<>(children.values()));
    }

    /**
     * One cached child.
     *
     * @param fullPath the child's full path
     * @return the child, or null if it is not a cached child of the path
     * @throws NullPointerException if {@code fullPath} is null
     */
    public @Nullable ChildData getCurrentData(String fullPath) {
        Objects.requireNonNull(fullPath, "fullPath");
        return fullPath.equals(path) ? null : cache.get(fullPath).orElse(null);
    }

    /**
     * The listeners; add them before {@link #start()} to hear about the children found at start.
     *
     * @return where to add and remove listeners
     */
    public Listenable<PathChildrenCacheListener> getListenable() {
        return listeners;
    }

    /** {@return the parent's path} */
    public String getPath() {
        return path;
    }

    /**
     * Stops: removes the watch (from the server too), the listeners and the cached children, and, in the
     * background, the path if this cache created it and it never had a child (the server keeps such a container
     * for good); a path that had children is left for the server to remove once it is empty. Closing twice does
     * nothing.
     */
    @Override
    public void close() {
        closed = true;
        cache.close();
        listeners.clear();
        removeIfUnused();
    }

    /**
     * Deletes the path, in the background, if this cache created it and it never had a child: the server removes
     * a container only once it has had children, so such a path would otherwise stay for good.
     */
    private void removeIfUnused() {
        long czxid = createdCzxid;
        if (czxid == 0) {
            return;
        }
        try {
            CompletableFuture<Void> removed = client.checkExists().forPathAsync(path).thenCompose(stat ->
                    stat != null && stat.getCzxid() == czxid && stat.getNumChildren() == 0 && stat.getCversion() == 0
                    ? client.delete().withVersion(stat.getVersion()).forPathAsync(path)
                    : CompletableFuture.<Void>completedFuture(null));
            Futures.whenDone(removed, (v, error) -> {
                if (error != null) {
                    LOG.debug("PathChildrenCache {}: could not delete the unused path: {}", path,
                            Failures.unwrap(error).toString());
                }
            });
        } catch (IllegalStateException e) {
            LOG.debug("PathChildrenCache {}: client closed, unused path left", path);
        }
    }

    @Override
    public String toString() {
        return "PathChildrenCache[" + path + "]";
    }
}
