package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.ListenerContainer;
import dev.baton.listen.Listenable;
import java.util.Objects;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local copy of one node, in the shape of Apache Curator's (deprecated) {@code NodeCache}, so code written
 * against it ports by changing its imports. A thin façade over a {@link BatonCache} with
 * {@link BatonCache.Option#SINGLE_NODE_CACHE}: one persistent watch on the node on ZooKeeper 3.6 and newer, a
 * one-shot data (or existence) watch set again after each event on 3.5 (see {@link BatonCache}); no thread of its
 * own.
 *
 * <pre>{@code
 * try (NodeCache cache = new NodeCache(client, "/app/config")) {
 *     cache.getListenable().addListener(() -> reload(cache.getCurrentData()));
 *     cache.start(true);                          // returns once the node has been read
 *     ChildData config = cache.getCurrentData();  // null while the node does not exist
 * }
 * }</pre>
 *
 * <p>As with Curator's: {@link #start()} returns at once and, if the node exists, the listeners hear
 * {@code nodeChanged()} once it has been read; {@link #start(boolean) start(true)} reads it before returning and
 * reports only later changes. After that every creation, data change and deletion of the node calls
 * {@code nodeChanged()}, in order, also across reconnections (what changed while disconnected is reported once the
 * client is back). Quick successive changes may be reported as one (the cache reads the node after each
 * notification and reports what it finds). The node need not exist, nor its parent.
 *
 * <p>Thread-safe. Listeners added without an executor run on ZooKeeper's event thread and must not block.
 */
public final class NodeCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeCache.class);

    private final Object lock = new Object();
    private final BatonClient client;
    private final String path;
    private final BatonCache cache;
    private final ListenerContainer<NodeCacheListener> listeners;

    /**
     * @param client the client
     * @param path the node to cache; it need not exist
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public NodeCache(BatonClient client, String path) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = BatonPaths.validate(Objects.requireNonNull(path, "path"));
        this.cache = BatonCache.build(client, path, BatonCache.Option.SINGLE_NODE_CACHE);
        this.listeners = new ListenerContainer<>(Runnable::run,
                (message, e) -> LOG.error("NodeCache {} listener failed: {}", path, message, e));
    }

    /**
     * Starts following the node and returns at once; if the node exists, the listeners hear
     * {@code nodeChanged()} once it has been read.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        begin(false);
    }

    /**
     * Starts following the node; with {@code buildInitial}, returns only once the node has been read (so
     * {@link #getCurrentData()} answers), and the listeners hear only the changes after that.
     *
     * @param buildInitial true to read the node before returning
     * @throws KeeperException.ConnectionLossException if the node could not be read within the session timeout
     *         (the cache stays started and reads it once the client is connected)
     * @throws InterruptedException if interrupted while waiting (the cache stays started)
     * @throws IllegalStateException if already started or closed, or if called on ZooKeeper's event thread with
     *         {@code buildInitial}
     */
    public void start(boolean buildInitial) throws KeeperException, InterruptedException {
        begin(buildInitial);
        if (buildInitial) {
            Facades.await(client, cache.whenLoaded(), path);
        }
    }

    private void begin(boolean quietUntilLoaded) {
        synchronized (lock) {
            Facades.requireLatent(cache, this);
            BatonCacheListener.Builder listener = BatonCacheListener.builder()
                    .forNodeCache(() -> Facades.dispatch(listeners, NodeCacheListener::nodeChanged));
            if (quietUntilLoaded) {
                listener.afterInitialized();
            }
            cache.listenable().addListener(listener.build());
            cache.start();
        }
    }

    /**
     * Reads the node again and waits until done. The cache is kept current by its watch, so this finds nothing
     * new unless a change is in flight; a change it finds is reported (Curator's reports none).
     *
     * @throws KeeperException.ConnectionLossException if the read did not complete within the session timeout
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if not started, or closed, or called on ZooKeeper's event thread
     */
    public void rebuild() throws KeeperException, InterruptedException {
        Facades.await(client, cache.refresh(), path);
    }

    /**
     * The node as last read: no guarantee that it is the server's current state, only the latest known here.
     *
     * @return the node, or null if it does not exist (or has not been read yet)
     */
    public @Nullable ChildData getCurrentData() {
        return cache.get(path).orElse(null);
    }

    /**
     * The listeners; add them before {@link #start()} to hear about the node found at start.
     *
     * @return where to add and remove listeners
     */
    public Listenable<NodeCacheListener> getListenable() {
        return listeners;
    }

    /** {@return the cached node's path} */
    public String getPath() {
        return path;
    }

    /** {@return the client} */
    public BatonClient getClient() {
        return client;
    }

    /**
     * Stops: removes the watch (from the server too), the listeners, and the cached data. Closing twice does
     * nothing.
     */
    @Override
    public void close() {
        cache.close();
        listeners.clear();
    }

    @Override
    public String toString() {
        return "NodeCache[" + path + "]";
    }
}
