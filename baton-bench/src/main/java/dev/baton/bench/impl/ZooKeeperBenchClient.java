package dev.baton.bench.impl;

import dev.baton.bench.BenchClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * The bare ZooKeeper client, the floor every library is measured against: its blocking API for the blocking
 * hooks and its callback API for the asynchronous one. No retries, no connection-state handling.
 */
public final class ZooKeeperBenchClient implements BenchClient {
    /** The same session timeout Baton and Curator ask for by default. */
    private static final int SESSION_TIMEOUT_MS = 60_000;

    private ZooKeeper zk;

    /** Creates an unopened adapter. */
    public ZooKeeperBenchClient() {
    }

    @Override
    public String name() {
        return "ZooKeeper";
    }

    @Override
    public BenchClient another() {
        return new ZooKeeperBenchClient();
    }

    @Override
    public void open(String connectString, ZKClientConfig clientConfig) throws InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        Watcher watcher = event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        };
        try {
            zk = clientConfig == null ? new ZooKeeper(connectString, SESSION_TIMEOUT_MS, watcher)
                    : new ZooKeeper(connectString, SESSION_TIMEOUT_MS, watcher, clientConfig);
        } catch (IOException e) {
            throw new UncheckedIOException("ZooKeeper: cannot connect to " + connectString, e);
        }
        if (!connected.await(30, TimeUnit.SECONDS)) {
            close();
            throw new IllegalStateException("ZooKeeper: no session with " + connectString + " after 30 s");
        }
    }

    @Override
    public void close() {
        if (zk != null) {
            try {
                zk.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            zk = null;
        }
    }

    @Override
    public void create(String path, byte[] data) throws KeeperException, InterruptedException {
        zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    @Override
    public void createAsync(String path, byte[] data, Completion done) {
        try {
            zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, (rc, p, ctx, name) ->
                    done.complete(rc == KeeperException.Code.OK.intValue() ? null
                            : KeeperException.create(KeeperException.Code.get(rc), p)), null);
        } catch (RuntimeException e) {
            done.complete(e);
        }
    }

    @Override
    public void delete(String path) throws KeeperException, InterruptedException {
        zk.delete(path, -1);
    }

    @Override
    public byte[] getData(String path) throws KeeperException, InterruptedException {
        return zk.getData(path, false, null);
    }
}
