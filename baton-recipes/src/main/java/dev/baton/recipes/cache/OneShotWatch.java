package dev.baton.recipes.cache;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.baton.BatonClient;
import dev.baton.internal.Futures;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * A persistent watch on one node, imitated with ZooKeeper's one-shot watches for servers that have no persistent
 * watches (before 3.6): an existence watch (creation, data change, deletion) and, while the node exists, a child
 * watch, each set again as soon as it fired. Changes between a watch firing and its renewal reach the listener as
 * the event that fired, so a listener that re-reads on each event sees every state that lasts; it cannot see
 * each intermediate one, as a persistent watch would.
 *
 * <p>ZooKeeper keeps one-shot watches across a reconnect in the same session; after a new session, {@link #arm()}
 * sets them again. Thread-safe.
 */
final class OneShotWatch {
    private final BatonClient client;
    private final String path;
    private final Consumer<WatchedEvent> events;
    private final Watcher nodeWatcher = this::nodeEvent;
    private final Watcher childWatcher = this::childEvent;
    private volatile boolean closed;

    /**
     * @param client the client
     * @param path the watched node
     * @param events where the events go (creation, data change, deletion, children changed)
     */
    OneShotWatch(BatonClient client, String path, Consumer<WatchedEvent> events) {
        this.client = client;
        this.path = path;
        this.events = events;
    }

    /** Sets both watches; the future completes once they are in place. */
    CompletableFuture<Void> arm() {
        return watchNode().thenCompose(stat -> stat == null ? CompletableFuture.completedFuture(null)
                : watchChildren());
    }

    /** Stops delivering events and removes the watches. */
    void close() {
        closed = true;
        if (client.getState() == BatonClient.State.STARTED) {
            client.watchers().remove(nodeWatcher).ofType(Watcher.WatcherType.Data).quietly().forPathAsync(path)
                    .exceptionally(e -> null);
            client.watchers().remove(childWatcher).ofType(Watcher.WatcherType.Children).quietly()
                    .forPathAsync(path).exceptionally(e -> null);
        }
    }

    private CompletableFuture<Stat> watchNode() {
        return send(() -> client.checkExists().usingWatcher(nodeWatcher).forPathAsync(path));
    }

    /**
     * Sets the child watch. The future completes once the request is answered and never fails (a node gone
     * meanwhile is reported by its existence watch), so a caller that need not wait may ignore it.
     */
    @CanIgnoreReturnValue
    private CompletableFuture<Void> watchChildren() {
        return send(() -> client.getChildren().usingWatcher(childWatcher).forPathAsync(path))
                .handle((children, error) -> null); // gone meanwhile: its existence watch says so
    }

    private void nodeEvent(WatchedEvent event) {
        if (closed || event.getType() == Watcher.Event.EventType.None) {
            return;
        }
        // A renewal lost with the connection is made again on RECONNECTED (the owner arms again).
        CompletableFuture<Stat> renewed = watchNode();
        if (event.getType() == Watcher.Event.EventType.NodeCreated) {
            Futures.whenDone(renewed, (stat, error) -> {
                if (error == null) {
                    watchChildren();
                }
            });
        }
        events.accept(event);
    }

    private void childEvent(WatchedEvent event) {
        if (closed || event.getType() != Watcher.Event.EventType.NodeChildrenChanged) {
            return; // the node's deletion also fires here; its existence watch reports it
        }
        watchChildren();
        events.accept(event);
    }

    private static <T> CompletableFuture<T> send(java.util.function.Supplier<CompletableFuture<T>> request) {
        try {
            return request.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
