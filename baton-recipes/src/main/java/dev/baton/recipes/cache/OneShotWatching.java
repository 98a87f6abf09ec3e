package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.internal.Futures;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The cache's watches on a server without persistent watches (ZooKeeper before 3.6): nothing to register; every
 * read leaves a one-shot watch, so the cache's reads renew the watches as they fire. A node read gets a data watch
 * ({@code NodeDataChanged}, {@code NodeDeleted}), a node listed a child watch ({@code NodeChildrenChanged}); the
 * root, while it does not exist, an existence watch ({@code NodeCreated}). This is how Curator's classic caches
 * work. ZooKeeper keeps one-shot watches across a reconnect in the same session (it re-sends them, and fires those
 * whose node changed meanwhile); after a new session the cache's resync reads everything again, which sets them
 * all again.
 *
 * <p>The client keeps one watcher per path and watcher object, so a path read again is not watched twice. On
 * {@link #remove}, the cache's watchers are removed from the client; the server drops a one-shot watch when it
 * fires or when the session ends (ZooKeeper can remove one client's watcher of a path only in the client).
 * Thread-safe.
 */
final class OneShotWatching extends Watching {
    private final Watcher dataWatcher = this::dataEvent;
    private final Watcher childWatcher = this::childEvent;
    /** Set by {@link #remove}: no event is passed on and no watch set any more. */
    private volatile boolean removed;

    OneShotWatching(BatonClient client, String root, boolean dataLess, Consumer<WatchedEvent> events) {
        super(client, root, dataLess, events);
    }

    @Override
    CompletableFuture<Void> register() {
        return CompletableFuture.completedFuture(null); // the reads set the watches
    }

    @Override
    void remove(Collection<String> watched, boolean async) {
        removed = true;
        if (client.getState() != BatonClient.State.STARTED) {
            return; // the watches went with the client's session
        }
        for (String path : watched) {
            removeQuietly(dataWatcher, Watcher.WatcherType.Data, path);
            removeQuietly(childWatcher, Watcher.WatcherType.Children, path);
        }
    }

    private void removeQuietly(Watcher watcher, Watcher.WatcherType type, String path) {
        send(() -> client.watchers().remove(watcher).ofType(type).locally().quietly().forPathAsync(path))
                .exceptionally(e -> null);
    }

    @Override
    boolean listsEveryNode() {
        return true; // a child watch is set by listing, so a childless node is listed too
    }

    @Override
    boolean isOneShot() {
        return true;
    }

    @Override
    void read(String path, ReadCallback callback) {
        if (dataLess) {
            // exists leaves a watch whether or not the node exists: its creation is watched too.
            deliver(send(() -> client.checkExists().usingWatcher(dataWatcher).forPathAsync(path)), null, callback);
            return;
        }
        Stat stat = new Stat();
        CompletableFuture<byte[]> read = send(() -> client.getData().usingWatcher(dataWatcher).storingStatIn(stat)
                .forPathAsync(path));
        deliver(read, stat, callback);
        if (path.equals(root)) {
            // getData leaves no watch on a missing node, and the root has no cached parent whose child watch
            // would tell its creation.
            Futures.whenDone(read, (data, error) -> {
                if (isNoNode(error)) {
                    watchRootCreation();
                }
            });
        }
    }

    @Override
    CompletableFuture<List<String>> list(String path, Stat stat) {
        return send(() -> client.getChildren().usingWatcher(childWatcher).storingStatIn(stat).forPathAsync(path));
    }

    private void dataEvent(WatchedEvent event) {
        if (removed || event.getType() == Watcher.Event.EventType.None) {
            return; // connection news: the cache's connection listener handles it
        }
        events.accept(event);
        if (event.getType() == Watcher.Event.EventType.NodeDeleted && event.getPath().equals(root)) {
            watchRootCreation();
        }
    }

    private void childEvent(WatchedEvent event) {
        if (!removed && event.getType() == Watcher.Event.EventType.NodeChildrenChanged) {
            events.accept(event);
        }
        // A deleted node's child watch fires NodeDeleted too; its data watch reports the deletion.
    }

    /**
     * Watches for the root's creation; if it exists already (created since the read that missed it), tells the
     * cache as its creation would have.
     */
    private void watchRootCreation() {
        if (removed) {
            return;
        }
        Futures.whenDone(send(() -> client.checkExists().usingWatcher(dataWatcher).forPathAsync(root)),
                (stat, error) -> {
                    if (stat != null && !removed) {
                        events.accept(new WatchedEvent(Watcher.Event.EventType.NodeCreated,
                                Watcher.Event.KeeperState.SyncConnected, root));
                    }
                });
    }
}
