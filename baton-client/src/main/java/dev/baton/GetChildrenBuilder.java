package dev.baton;

import java.util.List;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/** Lists a node's children (names, not paths, in no particular order). Not thread-safe: one builder per call. */
public interface GetChildrenBuilder extends Pathable<List<String>>, Backgroundable<BackgroundPathable> {

    /**
     * @param stat receives the parent's stat
     * @return this builder
     */
    GetChildrenBuilder storingStatIn(Stat stat);

    /** @return this builder, leaving a watch whose event goes to {@link BatonClient#getEventListenable()} */
    GetChildrenBuilder watched();

    /**
     * @param watcher told once when a child is added or removed, or the node is deleted
     * @return this builder
     */
    GetChildrenBuilder usingWatcher(Watcher watcher);
}
