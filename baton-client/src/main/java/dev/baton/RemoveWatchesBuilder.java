package dev.baton;

import org.apache.zookeeper.Watcher;

/** Removes watches from a path. Not thread-safe: one builder per call. */
public interface RemoveWatchesBuilder extends Pathable<Void>, Backgroundable<BackgroundPathable> {

    /**
     * {@return this builder}
     *
     * @param type which watches: {@link Watcher.WatcherType#Any} (the default), data, children, persistent
     */
    RemoveWatchesBuilder ofType(Watcher.WatcherType type);

    /** {@return this builder, removing the watch in this client even if the server cannot be reached} */
    RemoveWatchesBuilder locally();

    /** {@return this builder; a watch that is not there is not an error} */
    RemoveWatchesBuilder quietly();
}
