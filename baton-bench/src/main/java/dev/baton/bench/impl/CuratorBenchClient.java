package dev.baton.bench.impl;

import dev.baton.bench.BenchClient;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

/**
 * Apache Curator with default settings: blocking {@code forPath} for the blocking hooks, and
 * {@code inBackground(callback)} for the asynchronous one (its {@code AsyncCuratorFramework} is in a separate
 * artifact). Curator's methods declare {@code throws Exception}; what is not a {@link KeeperException} or an
 * {@link InterruptedException} is rethrown unchecked, which costs nothing on the success path.
 */
public final class CuratorBenchClient implements BenchClient {
    private CuratorFramework client;

    /** Creates an unopened adapter. */
    public CuratorBenchClient() {
    }

    @Override
    public String name() {
        return "Curator";
    }

    @Override
    public void open(String connectString) throws InterruptedException {
        client = CuratorFrameworkFactory.newClient(connectString, new ExponentialBackoffRetry(1000, 3));
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            close();
            throw new IllegalStateException("Curator: no session with " + connectString + " after 30 s");
        }
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
            client = null;
        }
    }

    @Override
    public void create(String path, byte[] data) throws KeeperException, InterruptedException {
        try {
            client.create().forPath(path, data);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Curator create " + path, e);
        }
    }

    @Override
    public void createAsync(String path, byte[] data, Completion done) {
        try {
            client.create().inBackground((c, event) -> {
                int rc = event.getResultCode();
                done.complete(rc == KeeperException.Code.OK.intValue() ? null
                        : KeeperException.create(KeeperException.Code.get(rc), event.getPath()));
            }).forPath(path, data);
        } catch (Exception e) {
            done.complete(e);
        }
    }

    @Override
    public void delete(String path) throws KeeperException, InterruptedException {
        try {
            client.delete().forPath(path);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Curator delete " + path, e);
        }
    }

    @Override
    public byte[] getData(String path) throws KeeperException, InterruptedException {
        try {
            return client.getData().forPath(path);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Curator getData " + path, e);
        }
    }
}
