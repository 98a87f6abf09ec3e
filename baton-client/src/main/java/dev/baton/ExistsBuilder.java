package dev.baton;

import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/** Tells whether a node exists: its {@link Stat}, or null. Not thread-safe: one builder per call. */
public interface ExistsBuilder extends Pathable<Stat>, Backgroundable<BackgroundPathable> {

    /** {@return this builder, leaving a watch whose event goes to {@link BatonClient#getEventListenable()}} */
    ExistsBuilder watched();

    /**
     * {@return this builder}
     *
     * @param watcher told once when the node is created, deleted or changed
     */
    ExistsBuilder usingWatcher(Watcher watcher);
}
