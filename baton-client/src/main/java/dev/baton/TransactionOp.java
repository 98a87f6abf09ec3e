package dev.baton;

import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.ACL;

/** Makes the operations of a transaction. Paths are validated and put under the namespace when made. */
public interface TransactionOp {

    /** @return a builder for a create */
    Create create();

    /** @return a builder for a delete */
    Delete delete();

    /** @return a builder for a set-data */
    SetData setData();

    /** @return a builder for a version check */
    Check check();

    /** A create within a transaction. */
    interface Create {
        /**
         * @param mode the create mode; default {@link CreateMode#PERSISTENT}
         * @return this builder
         */
        Create withMode(CreateMode mode);

        /**
         * @param acl the ACL; default from the client's {@link ACLProvider}
         * @return this builder
         */
        Create withACL(List<ACL> acl);

        /**
         * @param ttlMs the TTL in milliseconds for the TTL modes
         * @return this builder
         */
        Create withTtl(long ttlMs);

        /** @return this builder, compressing the data */
        Create compressed();

        /**
         * @param path the node's path
         * @return the operation, with empty data
         */
        BatonOp forPath(String path);

        /**
         * @param path the node's path
         * @param data the data
         * @return the operation
         */
        BatonOp forPath(String path, byte[] data);
    }

    /** A delete within a transaction. */
    interface Delete {
        /**
         * @param version the version the node must have; -1 for any
         * @return this builder
         */
        Delete withVersion(int version);

        /**
         * @param path the node's path
         * @return the operation
         */
        BatonOp forPath(String path);
    }

    /** A set-data within a transaction. */
    interface SetData {
        /**
         * @param version the version the node must have; -1 for any
         * @return this builder
         */
        SetData withVersion(int version);

        /** @return this builder, compressing the data */
        SetData compressed();

        /**
         * @param path the node's path
         * @param data the data
         * @return the operation
         */
        BatonOp forPath(String path, byte[] data);
    }

    /** A version check within a transaction. */
    interface Check {
        /**
         * @param version the version the node must have
         * @return this builder
         */
        Check withVersion(int version);

        /**
         * @param path the node's path
         * @return the operation
         */
        BatonOp forPath(String path);
    }
}
