package dev.baton.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZKUtil;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * A bare ZooKeeper handle the runner and the scenarios use for set-up and clean-up, never inside a measured loop,
 * so its requests never reach a run's request count.
 */
final class Admin implements AutoCloseable {
    private final ZooKeeper zk;

    private Admin(ZooKeeper zk) {
        this.zk = zk;
    }

    /**
     * Connects and waits for the session.
     *
     * @param clientConfig the client settings (TLS), or null for the defaults
     */
    static Admin connect(String connectString, ZKClientConfig clientConfig) throws InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        Watcher watcher = event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        };
        ZooKeeper zk;
        try {
            zk = clientConfig == null ? new ZooKeeper(connectString, 30_000, watcher)
                    : new ZooKeeper(connectString, 30_000, watcher, clientConfig);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to " + connectString, e);
        }
        if (!connected.await(30, TimeUnit.SECONDS)) {
            zk.close();
            throw new IllegalStateException("no ZooKeeper session with " + connectString + " after 30 s");
        }
        return new Admin(zk);
    }

    /** Creates {@code path} and its missing ancestors as persistent nodes. */
    void ensurePath(String path) throws KeeperException, InterruptedException {
        int from = 1;
        while (from > 0) {
            int slash = path.indexOf('/', from);
            String prefix = slash < 0 ? path : path.substring(0, slash);
            try {
                zk.create(prefix, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException e) {
                // already there
            }
            from = slash < 0 ? -1 : slash + 1;
        }
    }

    /** Creates one persistent node with data. */
    void create(String path, byte[] data) throws KeeperException, InterruptedException {
        zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    /** The children of {@code path}; empty if it does not exist. */
    List<String> children(String path) throws KeeperException, InterruptedException {
        try {
            return zk.getChildren(path, false);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** Deletes {@code path} and everything below it; nothing if it does not exist. */
    void deleteTree(String path) throws KeeperException, InterruptedException {
        try {
            ZKUtil.deleteRecursive(zk, path, 1000);
        } catch (KeeperException.NoNodeException e) {
            // nothing to delete
        }
    }

    @Override
    public void close() {
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
