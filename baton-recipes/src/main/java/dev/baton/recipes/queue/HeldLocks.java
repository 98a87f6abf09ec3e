package dev.baton.recipes.queue;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.Futures;
import dev.baton.internal.Monitor;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The lock nodes of items other consumers held when this consumer lost the race for them, and the watches on some
 * of them once this consumer runs out of work. Such a consumer removes the item and its lock node together when it
 * is done, so nothing is missed by not looking; but if its session ends mid-message, only the lock node goes, and
 * the queue's children do not change: these watches are what bring the item back. A lock node gone (or its watch
 * failed) is told to the {@link Delivery} as a change of the queue.
 *
 * <p>Thread-safety: thread-safe; state guarded by the delivery's lock, which every method takes (a caller may
 * hold it already).
 */
final class HeldLocks {
    /** At most this many lock nodes of items held by others are watched at once. */
    private static final int MAX_LOCK_WATCHES = 16;

    /** The delivery's lock. */
    private final Monitor lock;
    private final BatonClient client;
    /** Told when a watched lock node is gone, or could not be watched: the delivery should look again. */
    private final Runnable changed;
    @GuardedBy("lock")
    private final Set<String> heldElsewhere = new LinkedHashSet<>();
    @GuardedBy("lock")
    private final Set<String> watchedLocks = new HashSet<>();
    private final Watcher lockWatcher = this::lockEvent;

    HeldLocks(Monitor lock, BatonClient client, Runnable changed) {
        this.lock = lock;
        this.client = client;
        this.changed = changed;
    }

    /** Notes the lock node of an item another consumer holds, to watch if this consumer runs out of work. */
    void add(String lockNode) {
        synchronized (lock) {
            heldElsewhere.add(lockNode);
        }
    }

    /** Forgets the lock nodes noted so far (a new listing is taken). */
    void forgetHeld() {
        synchronized (lock) {
            heldElsewhere.clear();
        }
    }

    /** Forgets the watches set (a new session has none). */
    void forgetWatched() {
        synchronized (lock) {
            watchedLocks.clear();
        }
    }

    /** Watches the lock nodes of items other consumers held at the last look (some of them). */
    void watchHeld() {
        synchronized (lock) {
            int armed = 0;
            for (String lockNode : heldElsewhere) {
                if (armed++ >= MAX_LOCK_WATCHES) {
                    break;
                }
                watchLock(lockNode);
            }
            heldElsewhere.clear();
        }
    }

    /** Watches the lock node of an item another consumer holds. */
    @GuardedBy("lock")
    private void watchLock(String lockNode) {
        if (!watchedLocks.add(lockNode)) {
            return;
        }
        CompletableFuture<Stat> watched = send(() -> client.checkExists().usingWatcher(lockWatcher)
                .forPathAsync(lockNode));
        Futures.whenDone(watched, (stat, e) -> {
            if (e != null || stat == null) {
                synchronized (lock) {
                    watchedLocks.remove(lockNode);
                }
                changed.run();
            }
        });
    }

    private void lockEvent(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            return;
        }
        synchronized (lock) {
            watchedLocks.remove(event.getPath());
        }
        changed.run();
    }

    /** Removes the watches set (the delivery is closed). */
    void removeAll() {
        List<String> locks;
        synchronized (lock) {
            locks = List.copyOf(watchedLocks);
            watchedLocks.clear();
        }
        for (String lockNode : locks) {
            if (client.getState() == BatonClient.State.STARTED) {
                client.watchers().remove(lockWatcher).ofType(Watcher.WatcherType.Data).quietly()
                        .forPathAsync(lockNode).exceptionally(e -> null);
            }
        }
    }

    private static <R> CompletableFuture<R> send(Supplier<CompletableFuture<R>> request) {
        try {
            return request.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
