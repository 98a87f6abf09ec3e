package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.internal.WatchRemoval;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * One persistent watch on the cache's root ({@link AddWatchMode#PERSISTENT_RECURSIVE}, or
 * {@link AddWatchMode#PERSISTENT} for a single-node cache) reports every creation, data change and deletion; reads
 * set no watch. Needs ZooKeeper 3.6 or newer: on an older server {@link #register()} fails with
 * {@link dev.baton.UnsupportedServerFeatureException}, sending nothing. Thread-safe.
 */
final class PersistentWatching extends Watching {
    private final AddWatchMode mode;
    private final Watcher watcher;

    PersistentWatching(BatonClient client, String root, boolean dataLess, boolean singleNode,
            Consumer<WatchedEvent> events) {
        super(client, root, dataLess, events);
        this.mode = singleNode ? AddWatchMode.PERSISTENT : AddWatchMode.PERSISTENT_RECURSIVE;
        this.watcher = events::accept;
    }

    @Override
    CompletableFuture<Void> register() {
        return send(() -> client.watchers().add().withMode(mode).usingWatcher(watcher).forPathAsync(root))
                .thenRun(() -> WatchRemoval.registered(client, watcher, root, mode));
    }

    @Override
    void remove(Collection<String> watched, boolean async) {
        WatchRemoval.remove(client, watcher, root, mode, "BatonCache", async);
    }

    @Override
    boolean listsEveryNode() {
        return false; // the watch reports new children: a childless node needs no listing
    }

    @Override
    boolean isOneShot() {
        return false;
    }

    @Override
    void read(String path, ReadCallback callback) {
        if (dataLess) {
            deliver(send(() -> client.checkExists().forPathAsync(path)), null, callback);
        } else {
            Stat stat = new Stat();
            deliver(send(() -> client.getData().storingStatIn(stat).forPathAsync(path)), stat, callback);
        }
    }

    @Override
    CompletableFuture<List<String>> list(String path, Stat stat) {
        return send(() -> client.getChildren().storingStatIn(stat).forPathAsync(path));
    }
}
