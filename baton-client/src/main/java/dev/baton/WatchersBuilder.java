package dev.baton;

import org.apache.zookeeper.Watcher;

/** Adds persistent watches and removes watches. */
public interface WatchersBuilder {

    /** {@return a builder that adds a persistent (optionally recursive) watch} */
    AddWatchBuilder add();

    /**
     * {@return a builder that removes that watcher from a path}
     *
     * @param watcher the watcher to remove
     * @throws NullPointerException if {@code watcher} is null
     */
    RemoveWatchesBuilder remove(Watcher watcher);

    /** {@return a builder that removes every watcher from a path} */
    RemoveWatchesBuilder removeAll();
}
