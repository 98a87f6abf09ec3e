package dev.baton;

import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * Creates a node. Returns the created path (with the sequence suffix for sequential modes). Not thread-safe:
 * use one builder per call.
 */
public interface CreateBuilder extends PathAndBytesable<String>, Backgroundable<BackgroundPathAndBytesable> {

    /**
     * @param mode the create mode; default {@link CreateMode#PERSISTENT}
     * @return this builder
     */
    CreateBuilder withMode(CreateMode mode);

    /**
     * Sets the time-to-live for the TTL modes ({@link CreateMode#PERSISTENT_WITH_TTL},
     * {@link CreateMode#PERSISTENT_SEQUENTIAL_WITH_TTL}).
     *
     * @param ttlMs the TTL in milliseconds, {@code > 0}
     * @return this builder
     */
    CreateBuilder withTtl(long ttlMs);

    /**
     * @param ttl the time-to-live for the TTL modes, positive
     * @return this builder
     */
    CreateBuilder withTtl(Duration ttl);

    /**
     * @param acl the node's ACL; default from the client's {@link ACLProvider}
     * @return this builder
     */
    CreateBuilder withACL(List<ACL> acl);

    /** @return this builder, creating missing parents as persistent nodes */
    CreateBuilder creatingParentsIfNeeded();

    /** @return this builder, creating missing parents as container nodes (removed by the server when empty) */
    CreateBuilder creatingParentContainersIfNeeded();

    /**
     * Prefixes the node name with {@code _c_<uuid>-} so that after a connection loss the client finds the node
     * it may have created instead of creating a second one. A protected create is retried safely; if it still
     * fails, a node it may have left behind is deleted in the background.
     *
     * @return this builder
     */
    CreateBuilder withProtection();

    /** @return this builder; if the node exists, its data is set instead (any version) */
    CreateBuilder orSetData();

    /**
     * @param version the version the existing node must have for its data to be set
     * @return this builder; if the node exists, its data is set instead
     */
    CreateBuilder orSetData(int version);

    /** @return this builder, compressing the data with the client's {@link CompressionProvider} */
    CreateBuilder compressed();

    /**
     * @param stat receives the created node's stat
     * @return this builder
     */
    CreateBuilder storingStatIn(Stat stat);
}
