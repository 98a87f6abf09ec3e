package dev.baton;

import java.util.List;
import org.apache.zookeeper.data.ACL;

/**
 * Supplies the ACL for nodes the client creates without an explicit {@code withACL(...)}: the requested node
 * and any parents created for it.
 *
 * <p>Implementations must be thread-safe.
 */
public interface ACLProvider {

    /** {@return the ACL used when no path-specific ACL applies} */
    List<ACL> getDefaultAcl();

    /**
     * {@return the ACL for that node; {@link #getDefaultAcl()} if there is nothing specific}
     *
     * @param path the full path (namespace included) of the node about to be created
     */
    default List<ACL> getAclForPath(String path) {
        return getDefaultAcl();
    }
}
