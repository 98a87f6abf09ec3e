package dev.baton.recipes.cache;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.internal.Futures;
import dev.baton.internal.Lifecycle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BatonCache}'s watch events, applied to its {@link CachedTree} in the order they arrived (zxid order).
 * Each event takes a place ({@link CacheStep}) in one queue: a creation or change is read, a change of children
 * (one-shot watches) listed, a deletion needs nothing; the head is applied as soon as it is ready, and a later
 * event waits for every earlier one. With one-shot watches, a listing that finds new children queues their reads
 * at the head, in the place of the step that found them, so a parent is reported before its children.
 *
 * <p>State guarded by the cache's lock, {@link CachedTree#lock}.
 */
final class EventSteps {
    private final CachedTree tree;
    private final Resyncing resyncing;
    private final Lifecycle lifecycle;
    /** The cache's current way of watching, for the reads and listings the events cause. */
    private final Supplier<Watching> watching;
    /** Where a failed read or listing is reported: what was done, and why it failed. */
    private final BiConsumer<String, Throwable> failures;
    /**
     * The watch events not applied yet, in the order they arrived (zxid order). The head is applied (and its
     * listener calls queued in the tree) as soon as it is ready; a later event waits for every earlier one.
     */
    @GuardedBy("tree.lock")
    private final ArrayDeque<CacheStep> steps = new ArrayDeque<>();

    EventSteps(CachedTree tree, Resyncing resyncing, Lifecycle lifecycle, Supplier<Watching> watching,
            BiConsumer<String, Throwable> failures) {
        this.tree = tree;
        this.resyncing = resyncing;
        this.lifecycle = lifecycle;
        this.watching = watching;
        this.failures = failures;
    }

    /** Drops the events not applied yet (the cache is closed). Takes the cache's lock; the caller may hold it. */
    void clear() {
        synchronized (tree.lock) {
            steps.clear();
        }
    }

    /** A watch event of either way of watching: queues its step and starts its read or listing. */
    void watched(WatchedEvent event) {
        String path = event.getPath();
        if (path == null) {
            return; // connection news: the connection listener handles it
        }
        if (!tree.covers(path)) {
            return;
        }
        switch (event.getType()) {
            case NodeCreated, NodeDataChanged -> {
                CacheStep step;
                synchronized (tree.lock) {
                    if (!lifecycle.isStarted()) {
                        return;
                    }
                    step = new CacheStep(path, resyncing.generation(), CacheStep.READ);
                    // With one-shot watches nothing watches a new node's children until it is listed.
                    step.relist = event.getType() == Watcher.Event.EventType.NodeCreated
                            && watching.get().isOneShot();
                    steps.add(step);
                }
                readStep(step);
            }
            case NodeChildrenChanged -> {
                // Only from a one-shot child watch: list again, and compare in the event's place.
                if (!tree.coversChildrenOf(path)) {
                    return;
                }
                CacheStep step;
                synchronized (tree.lock) {
                    if (!lifecycle.isStarted()) {
                        return;
                    }
                    step = new CacheStep(path, resyncing.generation(), CacheStep.LIST);
                    steps.add(step);
                }
                listStep(step);
            }
            case NodeDeleted -> {
                // The event's zxid is the deletion's: cached incarnations created before it are the deleted
                // ones (one created later, found by a resync or by an earlier event's read, stays).
                long zxid = event.getZxid();
                List<CacheStep> next;
                synchronized (tree.lock) {
                    if (!lifecycle.isStarted()) {
                        return;
                    }
                    CacheStep step = new CacheStep(path, resyncing.generation(), zxid > 0 ? zxid : Long.MAX_VALUE);
                    step.done = true; // needs no read, but waits for the reads of the events before it
                    steps.add(step);
                    next = applySteps();
                }
                tree.flush();
                startSteps(next);
            }
            default -> {
            }
        }
    }

    /** Reads the node of a creation or change event; the step is done when the read completes, however. */
    private void readStep(CacheStep step) {
        // A failure (client closed too) still completes the step, or the queue would stall.
        watching.get().read(step.path, (stat, data, error) -> stepRead(step, stat, data, error));
    }

    /** Lists the children of a one-shot child watch's node; the step is done when the listing completes. */
    private void listStep(CacheStep step) {
        Futures.whenDone(watching.get().list(step.path, step.parentStat), (children, error) -> {
            List<CacheStep> next;
            synchronized (tree.lock) {
                if (!lifecycle.isStarted()) {
                    return;
                }
                step.done = true;
                step.children = error == null ? children : null; // failed: the resync after reconnecting sees it
                next = applySteps();
            }
            tree.flush();
            startSteps(next);
            if (error != null && !Watching.isNoNode(error)) {
                failures.accept("listing the children of " + step.path, error);
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
        synchronized (tree.lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            step.done = true;
            if (stat != null && error == null) {
                step.stat = stat;
                step.data = data;
                resyncing.sawPresent(step);
            } else {
                step.missing = missing; // another failure: nothing to apply; a resync follows the reconnect
            }
            next = applySteps();
        }
        tree.flush();
        startSteps(next);
        if (error != null && !missing) {
            failures.accept("reading " + step.path, error);
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
    @GuardedBy("tree.lock")
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
                tree.removeSubtree(step.path, step.deletedBefore);
            } else if (step.stat != null) {
                tree.observed(step.path, step.stat, step.data);
                if (step.relist && tree.coversChildrenOf(step.path) && tree.contains(step.path)) {
                    queueFirst(new CacheStep(step.path, resyncing.generation(), CacheStep.LIST), next);
                }
            } else if (step.missing && !deletionQueued(step.path)) {
                // Gone, but no deletion event is queued to report it (none can be missed while the watch is
                // registered: ZooKeeper delivers the event before the reply of a later read).
                tree.removeSubtree(step.path, Long.MAX_VALUE);
            }
            // Else: gone with its deletion still queued; that deletion reports it, in its place.
        }
        return next;
    }

    @GuardedBy("tree.lock")
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
    @GuardedBy("tree.lock")
    private void applyListing(CacheStep step, List<String> children, List<CacheStep> next) {
        Map<String, ChildData> cached = tree.children(step.path);
        if (cached == null) {
            return; // the node is gone (its deletion was applied): so are its children
        }
        Set<String> listed = new HashSet<>(children);
        for (ChildData child : cached.values()) {
            String name = child.path().substring(child.path().lastIndexOf('/') + 1);
            if (!listed.contains(name) && child.stat().getCzxid() <= step.parentStat.getPzxid()
                    && !deletionQueued(child.path())) {
                tree.removeSubtree(child.path(), Long.MAX_VALUE); // else its queued deletion reports it, in its place
            }
        }
        String prefix = Subtrees.childPrefix(step.path);
        List<CacheStep> reads = new ArrayList<>();
        long generation = resyncing.generation();
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
    @GuardedBy("tree.lock")
    private boolean deletionQueued(String path) {
        for (CacheStep step : steps) {
            if (step.isDeletion()
                    && Subtrees.isAtOrBelow(step.path, path)) {
                return true;
            }
        }
        return false;
    }
}
