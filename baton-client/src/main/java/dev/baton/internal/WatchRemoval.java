package dev.baton.internal;

import dev.baton.BatonClient;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tracks the persistent watches recipes register, so that the last recipe to close removes the watch from the
 * server too.
 *
 * <p>Why: ZooKeeper's {@code removeWatches(path, watcher, ...)} removes the watcher only in the client (it sends
 * the server a mere {@code checkWatches}), because the server keeps one watch per connection and path, shared by
 * every watcher of the client. Only {@code removeAllWatches} removes it on the server, and that removes every
 * watcher of that type on the path in the client. So each recipe watcher is recorded per ZooKeeper handle, path
 * and mode; closing one removes just it while others remain, and the last one removes the watch of that mode on
 * the path altogether (a watcher the application added itself through the same client on the same path and
 * mode would go with it).
 */
public final class WatchRemoval {
    private static final Logger LOG = LoggerFactory.getLogger(WatchRemoval.class);
    /** Handles are weak keys: a handle closed after a session loss is forgotten. */
    @GuardedBy("REGISTERED")
    private static final Map<ZooKeeper, Map<String, Set<Watcher>>> REGISTERED = new WeakHashMap<>();

    private WatchRemoval() {
    }

    /**
     * Records that {@code watcher} has a persistent watch of {@code mode} on {@code path} (idempotent).
     *
     * @param client the client the watch was added through
     * @param watcher the recipe's watcher
     * @param path the watched path
     * @param mode the watch's mode
     */
    public static void registered(BatonClient client, Watcher watcher, String path, AddWatchMode mode) {
        ZooKeeper zk;
        try {
            zk = client.getZooKeeper();
        } catch (IllegalStateException e) {
            return;
        }
        synchronized (REGISTERED) {
            REGISTERED.computeIfAbsent(zk, k -> new HashMap<>())
                    .computeIfAbsent(key(client, path, mode), k -> new HashSet<>()).add(watcher);
        }
    }

    /**
     * Removes a recipe's persistent watch. Connected: waits for the removal, so that it is done when the
     * recipe's {@code close()} returns. Disconnected: starts it and returns (the server drops a connection's
     * watches with the connection, and the client no longer re-registers the watch).
     *
     * @param client the client the watch was added through
     * @param watcher the recipe's watcher
     * @param path the watched path
     * @param mode the watch's mode
     * @param recipe how log messages name the recipe
     */
    public static void remove(BatonClient client, Watcher watcher, String path, AddWatchMode mode, String recipe) {
        remove(client, watcher, path, mode, recipe, false);
    }

    /**
     * As {@link #remove(BatonClient, Watcher, String, AddWatchMode, String)}, never waiting when {@code async}
     * (for callbacks on ZooKeeper's event thread, which must not block on ZooKeeper).
     *
     * @param client the client the watch was added through
     * @param watcher the recipe's watcher
     * @param path the watched path
     * @param mode the watch's mode
     * @param recipe how log messages name the recipe
     * @param async true never to wait for the removal
     */
    public static void remove(BatonClient client, Watcher watcher, String path, AddWatchMode mode, String recipe,
            boolean async) {
        boolean last;
        try {
            ZooKeeper zk = client.getZooKeeper();
            synchronized (REGISTERED) {
                String key = key(client, path, mode);
                Map<String, Set<Watcher>> byPath = REGISTERED.get(zk);
                Set<Watcher> watchers = byPath == null ? null : byPath.get(key);
                last = true; // none recorded: remove the watch altogether
                if (byPath != null && watchers != null) {
                    watchers.remove(watcher);
                    last = watchers.isEmpty();
                    if (last) {
                        byPath.remove(key);
                    }
                }
            }
            Watcher.WatcherType type = mode == AddWatchMode.PERSISTENT_RECURSIVE
                    ? Watcher.WatcherType.PersistentRecursive : Watcher.WatcherType.Persistent;
            var removal = last
                    ? client.watchers().removeAll().ofType(type).locally().quietly()
                    : client.watchers().remove(watcher).ofType(type).locally().quietly();
            if (client.isConnected() && !async) {
                removal.forPath(path);
            } else {
                removal.forPathAsync(path).exceptionally(e -> null);
            }
        } catch (KeeperException e) {
            LOG.debug("{} {}: removing the watch failed", recipe, path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IllegalStateException e) {
            LOG.debug("{} {}: client already closed", recipe, path);
        }
    }

    private static String key(BatonClient client, String path, AddWatchMode mode) {
        return mode + " /" + client.getNamespace() + " " + path;
    }
}
