package dev.baton;

import java.util.List;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/** Reads a node's ACL. Not thread-safe: one builder per call. */
public interface GetACLBuilder extends Pathable<List<ACL>>, Backgroundable<BackgroundPathable> {

    /**
     * {@return this builder}
     *
     * @param stat receives the node's stat
     */
    GetACLBuilder storingStatIn(Stat stat);
}
