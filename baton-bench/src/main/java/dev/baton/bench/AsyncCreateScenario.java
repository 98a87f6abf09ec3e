package dev.baton.bench;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;

/**
 * {@code async-create}: pipelined asynchronous creates of distinct nodes, with at most
 * {@link RunContext#inFlight()} outstanding (a semaphore bounds the window). An op's latency runs from just
 * before the call that issues it to its completion callback. The nodes are deleted after the run, unmeasured.
 */
final class AsyncCreateScenario implements Scenario {

    /** How long the loop waits for the last outstanding operations before it gives up. */
    private static final long DRAIN_TIMEOUT_SECONDS = 60;

    @Override
    public String name() {
        return "async-create";
    }

    @Override
    public String description() {
        return "pipelined async creates of distinct nodes, a bounded window in flight; 1 op = one create";
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        String prefix = run.basePath() + "/n-";
        byte[] data = run.data();
        Latencies latencies = run.latencies();
        int window = run.inFlight();
        Semaphore slots = new Semaphore(window);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        int started = 0;
        while (run.more(started) && failure.get() == null) {
            slots.acquire();
            int index = started++;
            long start = System.nanoTime();
            client.createAsync(prefix + index, data, error -> {
                long end = System.nanoTime();
                if (error == null) {
                    latencies.set(index, end - start);
                } else {
                    failure.compareAndSet(null, error);
                }
                slots.release(); // publishes the latency to the thread that drains the window
            });
        }
        if (!slots.tryAcquire(window, DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException(client.name() + ": " + (window - slots.availablePermits())
                    + " async creates still outstanding after " + DRAIN_TIMEOUT_SECONDS + " s");
        }
        latencies.size(started);
        Throwable error = failure.get();
        if (error instanceof KeeperException ke) {
            throw ke;
        }
        if (error != null) {
            throw new IllegalStateException(client.name() + ": async create failed", error);
        }
    }
}
