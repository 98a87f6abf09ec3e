package dev.baton;

import java.util.List;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/** The default {@link ACLProvider}: every node open to everyone ({@code OPEN_ACL_UNSAFE}). */
public final class DefaultACLProvider implements ACLProvider {

    /** Creates the provider. */
    public DefaultACLProvider() {
    }

    @Override
    public List<ACL> getDefaultAcl() {
        return ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }
}
