package dev.baton;

import java.util.List;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/** Lists a node's children (names, not paths, in no particular order). Not thread-safe: one builder per call. */
public interface GetChildrenBuilder extends Pathable<List<String>>, Backgroundable<BackgroundPathable> {

    /**
     * {@return this builder}
     *
     * @param stat receives the parent's stat
     */
    GetChildrenBuilder storingStatIn(Stat stat);

    /** {@return this builder, leaving a watch whose event goes to {@link BatonClient#getEventListenable()}} */
    GetChildrenBuilder watched();

    /**
     * {@return this builder}
     *
     * @param watcher told once when a child is added or removed, or the node is deleted
     */
    GetChildrenBuilder usingWatcher(Watcher watcher);
}
