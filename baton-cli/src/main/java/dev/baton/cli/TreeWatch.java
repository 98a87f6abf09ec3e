package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.ServerFeature;
import dev.baton.UnsupportedServerFeatureException;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.cache.BatonCacheListener;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;

/**
 * A demo's view of its tree: a persistent recursive watch on the demo's path, set by a viewer client, recording
 * every change below it (connection events left out) so the demo can wait for the server to show what a recipe
 * did. The watch goes when the viewer client closes. A server without persistent watches (ZooKeeper 3.5) gets a
 * {@link BatonCache} of the tree instead, on one-shot watches, whose changes are told as the same events; it is
 * closed when the demo ends.
 */
final class TreeWatch {

    private TreeWatch() {
    }

    /**
     * Starts watching.
     *
     * @param ctx the demo, told when the server needs the cache instead, and which closes that cache
     * @param viewer a connected client the demo does not use for its recipes
     * @param path the top node; it need not exist
     * @param onEvent also told of each event, on ZooKeeper's event thread (the cache's thread on 3.5), before it
     *        is recorded (to print it)
     * @return the recorded events, in the order the server sent them
     * @throws KeeperException if the watch cannot be set
     * @throws InterruptedException if interrupted
     * @throws DemoException if the cache (on ZooKeeper 3.5) does not load in time
     */
    static Recorder<WatchedEvent> on(DemoContext ctx, BatonClient viewer, String path, Consumer<WatchedEvent> onEvent)
            throws KeeperException, InterruptedException, DemoException {
        Recorder<WatchedEvent> events = new Recorder<>();
        Consumer<WatchedEvent> record = e -> {
            onEvent.accept(e);
            events.record(e);
        };
        try {
            viewer.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE).usingWatcher((WatchedEvent e) -> {
                if (e.getType() != EventType.None) { // connection news comes through the state listener
                    record.accept(e);
                }
            }).forPath(path);
        } catch (UnsupportedServerFeatureException refused) {
            if (refused.feature() != ServerFeature.PERSISTENT_WATCHES) {
                throw refused;
            }
            ctx.log("watch", "%s has no persistent watches: a BatonCache on one-shot watches follows %s instead",
                    refused.serverVersion().map(v -> "ZooKeeper " + v).orElse("the server"), path);
            BatonCache cache = ctx.closeOnExit(BatonCache.build(viewer, path));
            cache.listenable().addListener(BatonCacheListener.builder().forAll((type, oldData, data) -> record
                    .accept(new WatchedEvent(eventType(type), KeeperState.SyncConnected,
                            (data != null ? data : oldData).path())))
                    .afterInitialized().build());
            try {
                // Changes the demo makes next must come after the load, as events.
                cache.startAsync().get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException failed) {
                throw new DemoException("the cache of " + path + " did not load: " + failed);
            }
        }
        return events;
    }

    private static EventType eventType(BatonCacheListener.Type type) {
        return switch (type) {
            case NODE_CREATED -> EventType.NodeCreated;
            case NODE_CHANGED -> EventType.NodeDataChanged;
            case NODE_DELETED -> EventType.NodeDeleted;
        };
    }

    /**
     * {@return a matcher for {@link Recorder#await}}
     *
     * @param type an event type
     * @param marker text the path must contain
     */
    static Predicate<WatchedEvent> is(EventType type, String marker) {
        return e -> e.getType() == type && e.getPath() != null && e.getPath().contains(marker);
    }
}
