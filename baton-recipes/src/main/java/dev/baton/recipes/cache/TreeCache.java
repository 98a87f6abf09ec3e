package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.ListenerContainer;
import dev.baton.listen.Listenable;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local copy of a whole subtree, in the shape of Apache Curator's (deprecated) {@code TreeCache}, so code
 * written against it ports by changing its imports. A thin façade over a {@link BatonCache}: one persistent
 * recursive watch on ZooKeeper 3.6 and newer; on 3.5, which has none, one-shot watches as Curator's (a data and a
 * child watch per node, each set again after it fires; see {@link BatonCache}). No thread of its own (Curator's
 * starts a thread per cache).
 *
 * <pre>{@code
 * try (TreeCache tree = TreeCache.newBuilder(client, "/app/config").setMaxDepth(2).build()) {
 *     tree.getListenable().addListener((c, event) -> System.out.println(event.getType() + " " + event.getData()));
 *     tree.start();
 *     Map<String, ChildData> sections = tree.getCurrentChildren("/app/config");   // null until it is cached
 * }
 * }</pre>
 *
 * <p>Events, as Curator's: {@code NODE_ADDED} for every node found by the initial load (the root included),
 * then {@code INITIALIZED}; then {@code NODE_ADDED}, {@code NODE_UPDATED} (with the old data) and
 * {@code NODE_REMOVED} for every change, in the order of the changes (a removed subtree deepest first), and
 * {@code CONNECTION_SUSPENDED}, {@code CONNECTION_RECONNECTED}, {@code CONNECTION_LOST} for the client's
 * connection. What changed while the client was disconnected is reported once it is back. Quick successive changes
 * of one node may be reported as one (the cache reads a node after each notification and reports what it finds).
 * After a session loss the cache reads the tree again and reports the differences: the ephemeral nodes the lost
 * session took away come as {@code NODE_REMOVED}, each node after its descendants and siblings in the order of
 * their names. Unlike Curator's, {@code INITIALIZED} comes once, not again after a session loss, and with
 * {@code setCacheData(false)} events carry no data either. On a namespaced client, paths are the namespace's own:
 * a cache of {@code "/"} reports the namespace node as {@code "/"} and its child {@code test} as {@code "/test"}.
 *
 * <p>Thread-safe. Listeners added without an executor run on ZooKeeper's event thread and must not block.
 */
public final class TreeCache implements AutoCloseable, Iterable<ChildData> {
    private static final Logger LOG = LoggerFactory.getLogger(TreeCache.class);

    private final Object lock = new Object();
    private final BatonClient client;
    private final String path;
    private final BatonCache cache;
    private final ListenerContainer<TreeCacheListener> listeners;

    /**
     * A tree cache with the default options: data cached, no depth limit.
     *
     * @param client the client
     * @param path the subtree's root; it need not exist
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public TreeCache(BatonClient client, String path) {
        this(newBuilder(client, path));
    }

    private TreeCache(Builder builder) {
        this.client = builder.client;
        this.path = builder.path;
        BatonCache.Option[] options = builder.cacheData ? new BatonCache.Option[0]
                : new BatonCache.Option[] {BatonCache.Option.DATA_LESS};
        this.cache = builder.maxDepth == 0
                ? BatonCache.build(client, path, 0, withSingleNode(options))
                : BatonCache.build(client, path, builder.maxDepth, options);
        this.listeners = new ListenerContainer<>(Runnable::run,
                (message, e) -> LOG.error("TreeCache {} listener failed: {}", path, message, e));
    }

    private static BatonCache.Option[] withSingleNode(BatonCache.Option[] options) {
        BatonCache.Option[] with = java.util.Arrays.copyOf(options, options.length + 1);
        with[options.length] = BatonCache.Option.SINGLE_NODE_CACHE;
        return with;
    }

    /**
     * Starts building a tree cache.
     *
     * @param client the client
     * @param path the subtree's root; it need not exist
     * @return a builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public static Builder newBuilder(BatonClient client, String path) {
        return new Builder(client, path);
    }

    /** Options of a {@link TreeCache}, as Curator's builder has them. Not thread-safe; reusable. */
    public static final class Builder {
        private final BatonClient client;
        private final String path;
        private boolean cacheData = true;
        private boolean cacheDataSet;
        private int maxDepth = Integer.MAX_VALUE;
        private boolean maxDepthSet;

        private Builder(BatonClient client, String path) {
            this.client = Objects.requireNonNull(client, "client");
            this.path = BatonPaths.validate(Objects.requireNonNull(path, "path"));
        }

        /**
         * Whether to keep each node's data; default true. Without it {@link ChildData#data()} is null, in the
         * cache and in the events.
         *
         * @param cacheData false to keep stats only
         * @return this builder
         * @throws IllegalStateException if already set
         */
        public Builder setCacheData(boolean cacheData) {
            if (cacheDataSet) {
                throw new IllegalStateException("setCacheData was already called");
            }
            cacheDataSet = true;
            this.cacheData = cacheData;
            return this;
        }

        /**
         * How many levels below the root to cache: 0 the root alone (as a {@link NodeCache}), 1 the root and its
         * children, and so on; default no limit.
         *
         * @param maxDepth the depth, {@code >= 0}
         * @return this builder
         * @throws IllegalArgumentException if {@code maxDepth} is negative
         * @throws IllegalStateException if already set
         */
        public Builder setMaxDepth(int maxDepth) {
            if (maxDepth < 0) {
                throw new IllegalArgumentException("maxDepth must be >= 0, was " + maxDepth);
            }
            if (maxDepthSet) {
                throw new IllegalStateException("setMaxDepth was already called");
            }
            maxDepthSet = true;
            this.maxDepth = maxDepth;
            return this;
        }

        /**
         * Builds a tree cache with the options set so far; nothing happens on the server until it starts.
         *
         * @return the cache
         */
        public TreeCache build() {
            return new TreeCache(this);
        }
    }

    /**
     * Starts following the subtree and returns at once: the nodes found come as {@code NODE_ADDED}, then
     * {@code INITIALIZED}.
     *
     * @return this cache
     * @throws IllegalStateException if already started or closed
     */
    public TreeCache start() {
        synchronized (lock) {
            Facades.requireLatent(cache, this);
            TreeCacheListener dispatch = (c, event) -> Facades.dispatch(listeners, l -> l.childEvent(c, event));
            cache.listenable().addListener(new Adapters.Composite(List.of(new Adapters.Tree(client, dispatch)), false));
            cache.start();
            return this;
        }
    }

    /**
     * A cached node: no guarantee that it is the server's current state, only the latest known here.
     *
     * @param fullPath the node's full path
     * @return the node, or null if it is not cached
     * @throws NullPointerException if {@code fullPath} is null
     */
    public @Nullable ChildData getCurrentData(String fullPath) {
        return cache.get(Objects.requireNonNull(fullPath, "fullPath")).orElse(null);
    }

    /**
     * The cached children of a cached node.
     *
     * @param fullPath the node's full path
     * @return child name to child, sorted by name (empty if it has none); null if the node is not cached
     * @throws NullPointerException if {@code fullPath} is null
     */
    public @Nullable Map<String, ChildData> getCurrentChildren(String fullPath) {
        Map<String, ChildData> children = cache.children(Objects.requireNonNull(fullPath, "fullPath"));
        return children == null ? null : java.util.Collections.unmodifiableMap(children);
    }

    /** {@return how many nodes are cached, the root included} */
    public int size() {
        return cache.size();
    }

    /** {@return the cached nodes, sorted by path (a parent before its descendants); weakly consistent} */
    @Override
    public Iterator<ChildData> iterator() {
        return cache.stream().iterator();
    }

    /**
     * The listeners; add them before {@link #start()} to hear about the nodes found at start.
     *
     * @return where to add and remove listeners
     */
    public Listenable<TreeCacheListener> getListenable() {
        return listeners;
    }

    /**
     * Stops: removes the watch (from the server too), the listeners and the cached nodes. Closing twice does
     * nothing.
     */
    @Override
    public void close() {
        cache.close();
        listeners.clear();
    }

    @Override
    public String toString() {
        return "TreeCache[" + path + "]";
    }
}
