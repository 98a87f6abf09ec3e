package dev.baton;

import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.ACL;

/** Makes the operations of a transaction. Paths are validated and put under the namespace when made. */
public interface TransactionOp {

    /** {@return a builder for a create} */
    Create create();

    /** {@return a builder for a delete} */
    Delete delete();

    /** {@return a builder for a set-data} */
    SetData setData();

    /** {@return a builder for a version check} */
    Check check();

    /** A create within a transaction. */
    interface Create {
        /**
         * {@return this builder}
         *
         * @param mode the create mode; default {@link CreateMode#PERSISTENT}
         */
        Create withMode(CreateMode mode);

        /**
         * {@return this builder}
         *
         * @param acl the ACL; default from the client's {@link ACLProvider}
         */
        Create withACL(List<ACL> acl);

        /**
         * {@return this builder}
         *
         * @param ttlMs the TTL in milliseconds for the TTL modes
         */
        Create withTtl(long ttlMs);

        /** {@return this builder, compressing the data} */
        Create compressed();

        /**
         * {@return the operation, with empty data}
         *
         * @param path the node's path
         */
        BatonOp forPath(String path);

        /**
         * {@return the operation}
         *
         * @param path the node's path
         * @param data the data
         */
        BatonOp forPath(String path, byte[] data);
    }

    /** A delete within a transaction. */
    interface Delete {
        /**
         * {@return this builder}
         *
         * @param version the version the node must have; -1 for any
         */
        Delete withVersion(int version);

        /**
         * {@return the operation}
         *
         * @param path the node's path
         */
        BatonOp forPath(String path);
    }

    /** A set-data within a transaction. */
    interface SetData {
        /**
         * {@return this builder}
         *
         * @param version the version the node must have; -1 for any
         */
        SetData withVersion(int version);

        /** {@return this builder, compressing the data} */
        SetData compressed();

        /**
         * {@return the operation}
         *
         * @param path the node's path
         * @param data the data
         */
        BatonOp forPath(String path, byte[] data);
    }

    /** A version check within a transaction. */
    interface Check {
        /**
         * {@return this builder}
         *
         * @param version the version the node must have
         */
        Check withVersion(int version);

        /**
         * {@return the operation}
         *
         * @param path the node's path
         */
        BatonOp forPath(String path);
    }
}
