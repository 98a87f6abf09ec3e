package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.internal.Futures;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A revocation listener with its executor, and the watch of one held node's data that calls it. The watch is a
 * one-time data watch set again after each change; the deletion of the node (release) fires and ends it, so
 * nothing stays on the server.
 */
final class Revocation<T> {
    private static final Logger LOG = LoggerFactory.getLogger(Revocation.class);

    private final RevocationListener<T> listener;
    private final Executor executor;

    Revocation(RevocationListener<T> listener, Executor executor) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    /** Follows the data of a node just granted to {@code owner}, starting with a read of it. */
    void follow(BatonClient client, String nodePath, T owner) {
        new Watcher() {
            {
                read();
            }

            @Override
            public void process(WatchedEvent event) {
                if (event.getType() == Event.EventType.NodeDataChanged) {
                    read();
                }
            }

            private void read() {
                try {
                    Futures.whenDone(client.getData().usingWatcher(this).forPathAsync(nodePath), (data, error) -> {
                        if (error == null && Arrays.equals(data, Revoker.REVOKE_MESSAGE)) {
                            tell(owner, nodePath);
                        } // an error: the node is gone (released), or the connection is; a new hold follows anew
                    });
                } catch (IllegalStateException e) {
                    // client closed
                }
            }
        };
    }

    private void tell(T owner, String nodePath) {
        try {
            executor.execute(() -> {
                try {
                    listener.revocationRequested(owner);
                } catch (RuntimeException e) {
                    LOG.error("Revocation listener of {} failed", nodePath, e);
                }
            });
        } catch (RuntimeException e) {
            LOG.error("Revocation listener of {} could not run", nodePath, e);
        }
    }
}
