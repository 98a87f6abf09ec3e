package dev.baton;

import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.Watcher;

/**
 * Adds a persistent watch: it stays set after it fires, until removed or the session ends. Not thread-safe:
 * one builder per call.
 *
 * <p>The watched node need not exist. The request is sent at once, even through a namespace whose node the client
 * has yet to make sure of (that create follows it): as ZooKeeper handles one session's requests in order, once the
 * call has sent the watch, no later request of the same session, through any namespace view, can reach the
 * server before it.
 */
public interface AddWatchBuilder extends Pathable<Void>, Backgroundable<BackgroundPathable> {

    /**
     * {@return this builder}
     *
     * @param mode {@link AddWatchMode#PERSISTENT} (the default) or {@link AddWatchMode#PERSISTENT_RECURSIVE}
     */
    AddWatchBuilder withMode(AddWatchMode mode);

    /**
     * {@return this builder}
     *
     * @param watcher told about every change; without it, events go to {@link BatonClient#getEventListenable()}
     */
    AddWatchBuilder usingWatcher(Watcher watcher);
}
