package dev.baton.recipes.barriers;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * Takes a barrier call's watch off the server when the call gives up.
 *
 * <p>ZooKeeper's {@code removeWatches(path, watcher)} removes a watcher only in the client: the server keeps one
 * watch per connection, path and type, shared by every watcher of that client, and only
 * {@code removeAllWatches} drops it. So the barriers count their waiting calls per ZooKeeper handle, path and
 * type: a call that gives up while others still wait on the same watch removes only its own watcher (the server
 * watch is still needed); the last one removes the watch from the server. The removal is sent while the count is
 * held, so a call that starts watching the same path just then sends its read after the removal, never before it.
 *
 * <p>After a new session (the handle changed) the old session's watches are gone with it: the scope forgets them
 * and tracks the new session's. One scope belongs to one call; its methods may be called from different threads,
 * one at a time. The counts are thread-safe.
 */
final class WatchScope {
    /** Weak keys: a handle dropped after a session loss is forgotten. */
    @GuardedBy("ACTIVE")
    private static final Map<ZooKeeper, Map<String, Integer>> ACTIVE = new WeakHashMap<>();

    private final BatonClient client;
    private final Watcher watcher;
    private final Map<String, Watcher.WatcherType> watched = new HashMap<>();
    /** The session's handle the watches belong to; null until the first. */
    private @Nullable ZooKeeper handle;

    WatchScope(BatonClient client, Watcher watcher) {
        this.client = client;
        this.watcher = watcher;
    }

    /**
     * Records that the call is about to set a watch of {@code type} on {@code path} (idempotent per path and
     * session).
     */
    void watching(String path, Watcher.WatcherType type) {
        ZooKeeper zk;
        try {
            zk = client.getZooKeeper();
        } catch (IllegalStateException e) {
            return; // closed: the request will fail anyway
        }
        if (handle != zk) {
            if (handle != null) {
                end(false); // a new session: the old one's watches went with it
            }
            handle = zk;
        }
        if (watched.containsKey(path)) {
            return;
        }
        watched.put(path, type);
        synchronized (ACTIVE) {
            ACTIVE.computeIfAbsent(zk, k -> new HashMap<>()).merge(type + path, 1, Integer::sum);
        }
    }

    /**
     * Ends the call. {@code removeWatches}: the call gave up, so its watches must go (from the server too if no
     * other call of this process waits on them); false when the watches fired or went with the session.
     */
    void close(boolean removeWatches) {
        if (handle == null) {
            return;
        }
        end(removeWatches);
    }

    private void end(boolean removeWatches) {
        watched.forEach((path, type) -> {
            synchronized (ACTIVE) {
                Map<String, Integer> counts = ACTIVE.get(handle);
                Integer left = counts == null ? null : counts.merge(type + path, -1, Integer::sum);
                boolean last = left == null || left <= 0;
                if (counts != null && last) {
                    counts.remove(type + path);
                }
                if (removeWatches) {
                    remove(path, type, last); // sends without waiting, in order with the other calls' reads
                }
            }
        });
        watched.clear();
    }

    private void remove(String path, Watcher.WatcherType type, boolean last) {
        try {
            if (client.getZooKeeper() != handle) {
                return; // the session that held the watch is gone, and its watches with it
            }
            (last ? client.watchers().removeAll() : client.watchers().remove(watcher).locally())
                    .ofType(type).quietly().forPathAsync(path).exceptionally(e -> null);
        } catch (RuntimeException e) {
            // client closed: its watches went with its session
        }
    }
}
