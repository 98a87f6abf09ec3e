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
     * {@return this builder}
     *
     * @param mode the create mode; default {@link CreateMode#PERSISTENT}
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
     * {@return this builder}
     *
     * @param ttl the time-to-live for the TTL modes, positive
     */
    CreateBuilder withTtl(Duration ttl);

    /**
     * {@return this builder}
     *
     * @param acl the node's ACL; default from the client's {@link ACLProvider}
     */
    CreateBuilder withACL(List<ACL> acl);

    /** {@return this builder, creating missing parents as persistent nodes} */
    CreateBuilder creatingParentsIfNeeded();

    /** {@return this builder, creating missing parents as container nodes (removed by the server when empty)} */
    CreateBuilder creatingParentContainersIfNeeded();

    /**
     * Prefixes the node name with {@code _c_<uuid>-} so that after a connection loss the client finds the node
     * it may have created instead of creating a second one. A protected create is retried safely; if it still
     * fails, a node it may have left behind is deleted in the background.
     *
     * @return this builder
     */
    CreateBuilder withProtection();

    /** {@return this builder; if the node exists, its data is set instead (any version)} */
    CreateBuilder orSetData();

    /**
     * {@return this builder; if the node exists, its data is set instead}
     *
     * @param version the version the existing node must have for its data to be set
     */
    CreateBuilder orSetData(int version);

    /** {@return this builder, compressing the data with the client's {@link CompressionProvider}} */
    CreateBuilder compressed();

    /**
     * {@return this builder}
     *
     * @param stat receives the created node's stat
     */
    CreateBuilder storingStatIn(Stat stat);
}
