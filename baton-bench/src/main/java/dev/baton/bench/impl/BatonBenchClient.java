package dev.baton.bench.impl;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.bench.BenchClient;
import dev.baton.retry.ExponentialBackoffRetry;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * Baton with default settings: blocking {@code forPath} for the blocking hooks, {@code forPathAsync} (a
 * {@link java.util.concurrent.CompletableFuture}) for the asynchronous one.
 */
public final class BatonBenchClient implements BenchClient {
    private BatonClient client;

    /** Creates an unopened adapter. */
    public BatonBenchClient() {
    }

    @Override
    public String name() {
        return "Baton";
    }

    @Override
    public void open(String connectString) throws InterruptedException {
        client = Baton.newClient(connectString, new ExponentialBackoffRetry(1000, 3));
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            close();
            throw new IllegalStateException("Baton: no session with " + connectString + " after 30 s");
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
        client.create().forPath(path, data);
    }

    @Override
    public void createAsync(String path, byte[] data, Completion done) {
        try {
            client.create().forPathAsync(path, data).whenComplete((created, error) ->
                    done.complete(error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error));
        } catch (RuntimeException e) {
            done.complete(e);
        }
    }

    @Override
    public void delete(String path) throws KeeperException, InterruptedException {
        client.delete().forPath(path);
    }

    @Override
    public byte[] getData(String path) throws KeeperException, InterruptedException {
        return client.getData().forPath(path);
    }
}
