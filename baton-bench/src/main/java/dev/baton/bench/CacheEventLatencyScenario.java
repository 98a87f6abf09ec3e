package dev.baton.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.apache.zookeeper.KeeperException;

/**
 * {@code cache-event-latency}: a subtree cache (Baton's {@code BatonCache}, Curator's {@code CuratorCache}) of
 * {@value #NODES} nodes (fewer if {@link CacheTrees#nodes()} is smaller) of {@value CacheTrees#DATA_BYTES} bytes,
 * built and initialized before the loop; the loop is a writer on the same client doing blocking {@code setData}
 * on the nodes in turn, paced at {@value #RATE_PER_SECOND} writes/s. One op = one write; its latency runs from
 * just before the write is issued to the cache's listener seeing the new data (the data carries the op's number).
 * The loop ends when the cache has reported every write.
 */
final class CacheEventLatencyScenario implements Scenario {
    static final int NODES = 100;
    static final int RATE_PER_SECOND = 200;
    private static final long INTERVAL_NANOS = 1_000_000_000L / RATE_PER_SECOND;
    private static final long TIMEOUT_SECONDS = 30;

    @Override
    public String name() {
        return "cache-event-latency";
    }

    @Override
    public String description() {
        return "a writer doing " + RATE_PER_SECOND + " setData/s on " + NODES + " cached nodes of "
                + CacheTrees.DATA_BYTES + " B; 1 op = one write; latency = from issuing the write to the cache"
                + " listener seeing its data (ops/s is the paced write rate)";
    }

    @Override
    public boolean supports(BenchClient client) {
        return client.hasRecipes();
    }

    /** A turn's cache and what its listener records. */
    private static final class Turn {
        final AtomicLongArray issued;
        final AtomicLongArray seen;
        final AtomicIntegerArray reported;
        final CountDownLatch all;
        BenchClient.Cache cache;

        Turn(int ops) {
            issued = new AtomicLongArray(ops);
            seen = new AtomicLongArray(ops);
            reported = new AtomicIntegerArray(ops);
            all = new CountDownLatch(ops);
        }

        void changed(byte[] data) {
            long now = System.nanoTime();
            if (data == null || data.length < Integer.BYTES) {
                return;
            }
            int op = ByteBuffer.wrap(data).getInt() - 1; // 0 in the initial data: not a write of the loop
            if (op >= 0 && op < reported.length() && reported.compareAndSet(op, 0, 1)) {
                seen.set(op, now);
                all.countDown();
            }
        }
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        CacheTrees.populate(client, run.basePath(), nodes());
        Turn turn = new Turn(run.ops());
        turn.cache = client.startCache(run.basePath(), (path, data) -> turn.changed(data));
        if (!turn.cache.awaitInitialized(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            turn.cache.close();
            throw new IllegalStateException(client.name() + ": cache not initialized after " + TIMEOUT_SECONDS
                    + " s");
        }
        run.state(turn);
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Turn turn = run.state(Turn.class);
        int nodes = nodes();
        long next = System.nanoTime();
        int started = 0;
        while (run.more(started)) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            int op = started++;
            byte[] data = new byte[CacheTrees.DATA_BYTES];
            ByteBuffer.wrap(data).putInt(op + 1);
            turn.issued.set(op, System.nanoTime());
            client.setData(CacheTrees.node(run.basePath(), op % nodes), data);
            next += INTERVAL_NANOS;
        }
        for (int op = started; op < run.ops(); op++) {
            turn.all.countDown(); // ops never started (time limit): nothing to wait for
        }
        if (!turn.all.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException(client.name() + ": the cache reported "
                    + (run.ops() - turn.all.getCount()) + " of " + run.ops() + " writes after " + TIMEOUT_SECONDS
                    + " s");
        }
        for (int op = 0; op < started; op++) {
            run.latencies().add(turn.seen.get(op) - turn.issued.get(op));
        }
    }

    @Override
    public void tearDown(BenchClient client, RunContext run) {
        Turn turn = run.state(Turn.class);
        if (turn != null && turn.cache != null) {
            turn.cache.close();
        }
    }

    private static int nodes() {
        return Math.min(NODES, CacheTrees.nodes());
    }
}
