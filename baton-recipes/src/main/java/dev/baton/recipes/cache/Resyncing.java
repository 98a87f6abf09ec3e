package dev.baton.recipes.cache;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.internal.Futures;
import dev.baton.internal.Lifecycle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BatonCache}'s reads of the whole subtree: the initial load, and the resync after every (re)registration
 * of the watch (a {@code RECONNECTED}, or {@link BatonCache#refresh()}). Each node is read once, its children
 * listed if it has any (or always, with one-shot watches), with up to {@link BatonCache#MAX_IN_FLIGHT} reads in
 * flight; what a read finds is applied to the {@link CachedTree} at once, and the listener calls are delivered a
 * batch at a time. A complete resync ends by removing the cached nodes it did not find, and by completing the
 * initial load or the waiting refreshes.
 *
 * <p>Also keeps the cache's generation: bumped for every (re)registration of the watch, so that the reads of an
 * older one count less. State guarded by the cache's lock, {@link CachedTree#lock}.
 */
final class Resyncing {
    /** A resync starts reads this many at a time, once the window has room for them. */
    static final int REFILL_BATCH = 64;
    /** A resync delivers its listener calls after every this many reads (and at its end). */
    static final int DELIVERY_BATCH = 256;

    private final CachedTree tree;
    private final Lifecycle lifecycle;
    private final String root;
    /** The cache's current way of watching, for its reads. */
    private final Supplier<Watching> watching;
    /** Completed (after the listeners heard {@code initialized()}) when the initial load is done. */
    private final CompletableFuture<Void> loaded;
    /** Where a failed read or listing is reported: what was done, and why it failed. */
    private final BiConsumer<String, Throwable> failures;

    /** Bumped for every (re)registration of the watch; reads and resyncs of older generations count less. */
    @GuardedBy("tree.lock")
    private long generation;
    /** The initial load or resync under way; null if none. */
    @GuardedBy("tree.lock")
    private @Nullable Resync resync;
    @GuardedBy("tree.lock")
    private boolean initialized;
    /** Callers of {@link BatonCache#refresh()} waiting for the next complete read of the tree. */
    @GuardedBy("tree.lock")
    private final List<CompletableFuture<Void>> refreshWaiters = new ArrayList<>();

    Resyncing(CachedTree tree, Lifecycle lifecycle, String root, Supplier<Watching> watching,
            CompletableFuture<Void> loaded, BiConsumer<String, Throwable> failures) {
        this.tree = tree;
        this.lifecycle = lifecycle;
        this.root = root;
        this.watching = watching;
        this.loaded = loaded;
        this.failures = failures;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Generations (each method takes the cache's lock; callers may hold it already)

    /** {@return the current generation} */
    long generation() {
        synchronized (tree.lock) {
            return generation;
        }
    }

    /**
     * Starts a new generation: the resync under way, if any, is abandoned (its reads count less).
     *
     * @return the new generation
     */
    long nextGeneration() {
        synchronized (tree.lock) {
            resync = null;
            return ++generation;
        }
    }

    /**
     * Starts a new generation for {@link BatonCache#refresh()}, whose future {@code waiter} completes after the
     * next complete read of the tree.
     *
     * @return the new generation
     * @throws IllegalStateException if the cache is not started, or closed
     */
    long refresh(CompletableFuture<Void> waiter) {
        synchronized (tree.lock) {
            lifecycle.requireStarted();
            long gen = nextGeneration();
            refreshWaiters.add(waiter);
            return gen;
        }
    }

    /** Fails the waiting refreshes: the cache is closed. */
    void failRefreshes(IllegalStateException closed) {
        List<CompletableFuture<Void>> waiting;
        synchronized (tree.lock) {
            waiting = List.copyOf(refreshWaiters);
            refreshWaiters.clear();
        }
        waiting.forEach(f -> f.completeExceptionally(closed));
    }

    /**
     * The node of a watch event's step was found present by a read: a resync of the step's generation that ends
     * before the step applies keeps it.
     */
    void sawPresent(CacheStep step) {
        synchronized (tree.lock) {
            if (resync != null && resync.generation == step.generation) {
                resync.seen.add(step.path);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Reads

    /**
     * Begins a resync of generation {@code gen}, reading from the root, unless a newer generation began meanwhile.
     *
     * @return the resync, for {@link #pump}; null if {@code gen} is not the current generation
     */
    @Nullable Resync begin(long gen) {
        synchronized (tree.lock) {
            if (gen != generation) {
                return null;
            }
            Resync r = new Resync(gen);
            resync = r;
            r.queue.add(root);
            return r;
        }
    }

    /** Starts as many queued reads of a resync as the window allows; completes the resync when all are done. */
    void pump(Resync r) {
        List<String> toRead;
        synchronized (tree.lock) {
            if (resync != r || !lifecycle.isStarted()) {
                return;
            }
            toRead = refill(r);
        }
        if (toRead == null) {
            tree.flush(); // the resync is over (or needs nothing more now): deliver what it found
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
    @GuardedBy("tree.lock")
    private @Nullable List<String> refill(Resync r) {
        if (r.inFlight > BatonCache.MAX_IN_FLIGHT - REFILL_BATCH && !r.queue.isEmpty()) {
            return null; // wait for a batch of room: one pass over the queue per batch, not per completed read
        }
        if (!r.queue.isEmpty()) {
            int n = Math.min(BatonCache.MAX_IN_FLIGHT - r.inFlight, r.queue.size());
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
                tree.removeUnseen(r.seen);
                if (!initialized) {
                    initialized = true;
                    tree.emitInitialized();
                    tree.queue(() -> loaded.complete(null));
                }
                if (!refreshWaiters.isEmpty()) {
                    List<CompletableFuture<Void>> waiting = List.copyOf(refreshWaiters);
                    refreshWaiters.clear();
                    tree.queue(() -> waiting.forEach(f -> f.complete(null)));
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
        watching.get().read(path, (stat, data, error) -> applyRead(path, gen, r, stat, data, error));
    }

    /** What a read of {@code path} found ({@code stat} null: no such node), applied with the lock held. */
    private void applyRead(String path, long gen, Resync r, @Nullable Stat stat, byte @Nullable [] data,
            @Nullable Throwable error) {
        boolean missing = (error == null && stat == null) || Watching.isNoNode(error);
        boolean listChildren = false;
        boolean deliver = true;
        List<String> toRead = null;
        synchronized (tree.lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            Resync current = resync != null && resync.generation == gen ? resync : null;
            if (missing) {
                tree.removeSubtree(path, Long.MAX_VALUE);
            } else if (error == null && stat != null) { // not missing: without an error, the read found a node
                if (current != null) {
                    current.seen.add(path);
                }
                tree.observed(path, stat, data);
                listChildren = r != null && current == r && tree.coversChildrenOf(path)
                        && (stat.getNumChildren() > 0 || watching.get().listsEveryNode());
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
            tree.flush();
        }
        if (error != null && !missing) {
            failures.accept("reading " + path, error);
        }
        if (listChildren) {
            listChildren(path, r);
        } else if (toRead != null) {
            readAll(toRead, r);
        }
    }

    private void listChildren(String path, Resync r) {
        Futures.whenDone(watching.get().list(path, new Stat()), (children, error) -> {
            List<String> toRead;
            synchronized (tree.lock) {
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
                failures.accept("listing the children of " + path, error);
            }
            if (toRead != null) {
                readAll(toRead, r);
            } else {
                tree.flush();
            }
        });
    }
}
