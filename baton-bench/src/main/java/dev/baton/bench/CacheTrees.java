package dev.baton.bench;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;

/**
 * What the cache scenarios share: how many nodes a cached tree has ({@value #NODES_PROPERTY}, 10,000 by default;
 * the smoke test makes it tiny), the payload of {@value #DATA_BYTES} bytes, and a quick way to create the tree
 * before a measured loop.
 */
final class CacheTrees {
    /** The system property that sets how many nodes a cached tree has. */
    static final String NODES_PROPERTY = "baton.bench.cacheNodes";
    /** Data per cached node. */
    static final int DATA_BYTES = 100;
    private static final int IN_FLIGHT = 500;

    private CacheTrees() {
    }

    /** How many nodes (below the cached root) a cached tree has. */
    static int nodes() {
        int n = Integer.getInteger(NODES_PROPERTY, 10_000);
        if (n < 1) {
            throw new IllegalArgumentException(NODES_PROPERTY + " must be >= 1: " + n);
        }
        return n;
    }

    /** The path of node {@code i} of the tree under {@code base}. */
    static String node(String base, int i) {
        return base + "/n" + i;
    }

    /**
     * Creates {@code n} children of {@code base} with {@value #DATA_BYTES} bytes each, pipelined through the
     * adapter (before the measured loop: the server's request counter is reset after set-up).
     */
    static void populate(BenchClient client, String base, int n) throws KeeperException, InterruptedException {
        byte[] data = new byte[DATA_BYTES];
        Semaphore slots = new Semaphore(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < n && failure.get() == null; i++) {
            slots.acquire();
            client.createAsync(node(base, i), data, error -> {
                if (error != null) {
                    failure.compareAndSet(null, error);
                }
                slots.release();
            });
        }
        if (!slots.tryAcquire(IN_FLIGHT, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(client.name() + ": creating the cached tree took over 60 s");
        }
        Throwable error = failure.get();
        if (error instanceof KeeperException ke) {
            throw ke;
        }
        if (error != null) {
            throw new IllegalStateException(client.name() + ": creating the cached tree failed", error);
        }
    }
}
