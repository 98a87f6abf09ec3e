package dev.baton.cli;

import dev.baton.BatonClient;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * A demo's view of its tree: a persistent recursive watch on the demo's path, set by a viewer client, recording
 * every change below it (connection events left out) so the demo can wait for the server to show what a recipe
 * did. The watch goes when the viewer client closes.
 */
final class TreeWatch {

    private TreeWatch() {
    }

    /**
     * Starts watching.
     *
     * @param viewer a connected client the demo does not use for its recipes
     * @param path the top node; it need not exist
     * @param onEvent also told of each event, on ZooKeeper's event thread, before it is recorded (to print it)
     * @return the recorded events, in the order the server sent them
     * @throws KeeperException if the watch cannot be set
     * @throws InterruptedException if interrupted
     */
    static Recorder<WatchedEvent> on(BatonClient viewer, String path, Consumer<WatchedEvent> onEvent)
            throws KeeperException, InterruptedException {
        Recorder<WatchedEvent> events = new Recorder<>();
        viewer.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE).usingWatcher((WatchedEvent e) -> {
            if (e.getType() != EventType.None) {
                onEvent.accept(e);
                events.record(e);
            }
        }).forPath(path);
        return events;
    }

    /**
     * @param type an event type
     * @param marker text the path must contain
     * @return a matcher for {@link Recorder#await}
     */
    static Predicate<WatchedEvent> is(EventType type, String marker) {
        return e -> e.getType() == type && e.getPath() != null && e.getPath().contains(marker);
    }
}
