package dev.baton;

import java.util.List;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/** Sets a node's ACL; returns the node's new stat. Not thread-safe: one builder per call. */
public interface SetACLBuilder extends Pathable<Stat>, Backgroundable<BackgroundPathable> {

    /**
     * {@return this builder}
     *
     * @param acl the new ACL; default from the client's {@link ACLProvider}
     */
    SetACLBuilder withACL(List<ACL> acl);

    /**
     * {@return this builder}
     *
     * @param aclVersion the ACL version the node must have; {@code -1} (the default) for any
     */
    SetACLBuilder withVersion(int aclVersion);
}
