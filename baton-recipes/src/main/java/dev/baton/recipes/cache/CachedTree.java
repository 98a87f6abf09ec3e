package dev.baton.recipes.cache;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.SerialExecutor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BatonCache}'s in-memory copy of the subtree, and the listener calls its changes cause. A node read is
 * compared with the cached one by incarnation ({@code czxid}) and data version ({@code mzxid}); each difference
 * is applied to the map and its listener call queued, with {@link #lock} held, and {@link #flush()} runs the
 * queued calls in order, outside the lock, one thread at a time.
 *
 * <p>{@link #lock} is the whole cache's lock: the initial load and resyncs ({@link Resyncing}) and the queue of
 * watch events ({@link EventSteps}) guard their state with it too, so that a read's outcome, the model's change
 * and the listener calls it causes are decided in one step. Reads of the map ({@link #get}, {@link #stream()},
 * {@link #size()}, {@link #children}) take no lock and never block.
 */
final class CachedTree {
    /** The cache's lock (see the class comment). */
    final Object lock = new Object();
    private final String root;
    private final boolean singleNode;
    /** How deep below the root nodes are cached: 0 the root alone, {@link Integer#MAX_VALUE} for no limit. */
    private final int maxDepth;
    private final boolean dataLess;
    /** Sorted by path, so a node's descendants are one contiguous range right after it. */
    private final ConcurrentSkipListMap<String, ChildData> nodes = new ConcurrentSkipListMap<>();
    private final ListenerContainer<BatonCacheListener> listeners;
    private final SerialExecutor delivery = new SerialExecutor(Runnable::run);
    /** Listener calls decided under the lock, run outside it, in order, by {@link #delivery}. */
    @GuardedBy("lock")
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();
    /** The thread running listener calls now ({@link #drain()}), or null; one at a time. */
    private volatile @Nullable Thread delivering;

    CachedTree(String root, boolean singleNode, int maxDepth, boolean dataLess,
            ListenerContainer<BatonCacheListener> listeners) {
        this.root = root;
        this.singleNode = singleNode;
        this.maxDepth = maxDepth;
        this.dataLess = dataLess;
        this.listeners = listeners;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Reading the model (no lock)

    /** {@return the cached node at {@code path}, or empty} */
    Optional<ChildData> get(String path) {
        return Optional.ofNullable(nodes.get(path));
    }

    /** {@return a weakly consistent view of the cached nodes, sorted by path} */
    Stream<ChildData> stream() {
        return nodes.values().stream();
    }

    /** {@return how many nodes are cached} */
    int size() {
        return nodes.size();
    }

    /** {@return true if {@code path}'s node is cached} */
    boolean contains(String path) {
        return nodes.containsKey(path);
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
        Map<String, ChildData> children = new LinkedHashMap<>();
        for (ChildData child : nodes.subMap(prefix, false, prefix + "\uffff", false).values()) {
            String name = child.path().substring(prefix.length());
            if (name.indexOf('/') < 0) {
                children.put(name, child);
            }
        }
        return nodes.containsKey(path) ? children : null; // deleted while listing: no children to show
    }

    /** The paths the cache may have watches on: the root and every cached node. */
    List<String> watchedPaths() {
        List<String> paths = new ArrayList<>(nodes.keySet());
        if (!nodes.containsKey(root)) {
            paths.add(root);
        }
        return paths;
    }

    /** {@return true if the cache holds {@code path}'s node when it exists: at the root, or below within the depth} */
    boolean covers(String path) {
        return singleNode ? path.equals(root) : isUnderRoot(path) && depth(path) <= maxDepth;
    }

    /** {@return true if the children of {@code path}'s node are cached too: it is above the maximum depth} */
    boolean coversChildrenOf(String path) {
        return depth(path) < maxDepth;
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

    // ---------------------------------------------------------------------------------------------------------
    // Applying observations (all with the lock held; listener calls are queued in `pending`)

    /** A node was read: compare it with the cache by incarnation (czxid) and data version (mzxid). */
    @GuardedBy("lock")
    void observed(String path, Stat stat, byte @Nullable [] data) {
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
    void removeSubtree(String path, long czxidBelow) {
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
     * End of a complete resync: cached nodes no read of it found ({@code seen} lacks them) are gone from the
     * server. They are reported as a deleted subtree is, each node after its descendants, and siblings in the
     * order of their names (as the initial load reported them), so the removals a lost session causes read in a
     * predictable order.
     */
    @GuardedBy("lock")
    void removeUnseen(Set<String> seen) {
        List<String> gone = new ArrayList<>();
        for (String path : nodes.keySet()) {
            if (!seen.contains(path)) {
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

    /**
     * Forgets every cached node without reporting anything. With the lock held unless the cache is closed (then
     * nothing changes the map any more).
     */
    void clear() {
        nodes.clear();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Listener calls

    @GuardedBy("lock")
    private void emit(BatonCacheListener.Type type, @Nullable ChildData oldData, @Nullable ChildData data) {
        pending.add(() -> listeners.forEach(l -> l.event(type, oldData, data)));
    }

    /** Queues the listeners' {@link BatonCacheListener#initialized()} call. */
    @GuardedBy("lock")
    void emitInitialized() {
        pending.add(() -> listeners.forEach(BatonCacheListener::initialized));
    }

    /** Queues a call (a listener call, or the completion of a future) to run in order with the listener calls. */
    @GuardedBy("lock")
    void queue(Runnable call) {
        pending.add(call);
    }

    /** Drops the queued calls, run none of them (the cache is closed). */
    @GuardedBy("lock")
    void dropQueued() {
        pending.clear();
    }

    /** Runs the queued listener calls, in order, outside the lock. */
    void flush() {
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

    /** {@return true if the calling thread is running the listener calls now (so is in a listener)} */
    boolean isDelivering() {
        return Thread.currentThread() == delivering;
    }
}
