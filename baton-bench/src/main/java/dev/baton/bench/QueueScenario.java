package dev.baton.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;

/**
 * Queue throughput: {@value #PRODUCERS} producers and {@value #CONSUMERS} consumers, each on its own session, on
 * one {@code DistributedQueue} path (Curator's layout), with or without a lock path. One op is one item delivered
 * to a consumer; its latency runs from just before its put to its delivery, and ops/s is items delivered per
 * second of the whole run. Requests per op are thus ZooKeeper requests per delivered item, puts included.
 */
final class QueueScenario implements Scenario {
    static final int PRODUCERS = 4;
    static final int CONSUMERS = 4;
    private static final long WAIT_SECONDS = Long.getLong("baton.bench.roundSeconds", 60);

    private final boolean locked;

    QueueScenario(boolean locked) {
        this.locked = locked;
    }

    /** The turn's sessions and queues. */
    private static final class Turn {
        final List<BenchClient> sessions = new ArrayList<>();
        final List<BenchClient.Queue> producers = new ArrayList<>();
        final List<BenchClient.Queue> consumers = new ArrayList<>();
        final ConcurrentLinkedQueue<Long> delivered = new ConcurrentLinkedQueue<>();
        final AtomicInteger count = new AtomicInteger();
        final ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS, r -> {
            Thread t = new Thread(r, "baton-bench-queue-producer");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String name() {
        return locked ? "queue-locked" : "queue";
    }

    @Override
    public String description() {
        return PRODUCERS + " producers and " + CONSUMERS + " consumers, one session each, one DistributedQueue"
                + (locked ? " with a lock path" : " without a lock path") + "; 1 op = 1 item delivered (ops/s ="
                + " items delivered per second; latency = put to delivery; requests/op = per delivered item)";
    }

    @Override
    public boolean supports(BenchClient client) {
        return client.hasRecipes();
    }

    private static String queuePath(RunContext run) {
        return run.basePath() + "/queue";
    }

    private String lockPath(RunContext run) {
        return locked ? run.basePath() + "/queue-locks" : null;
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        run.admin().ensurePath(queuePath(run));
        if (locked) {
            run.admin().ensurePath(lockPath(run));
        }
        Turn turn = new Turn();
        run.state(turn);
        for (int i = 0; i < CONSUMERS; i++) {
            BenchClient session = open(client, run, turn);
            turn.consumers.add(session.queue(queuePath(run), lockPath(run), item -> {
                turn.delivered.add(System.nanoTime() - ByteBuffer.wrap(item).getLong());
                turn.count.incrementAndGet();
            }));
        }
        for (int i = 0; i < PRODUCERS; i++) {
            turn.producers.add(open(client, run, turn).queue(queuePath(run), lockPath(run), null));
        }
        run.awaitQuiet();
    }

    private static BenchClient open(BenchClient client, RunContext run, Turn turn) throws InterruptedException {
        BenchClient session = client.another();
        turn.sessions.add(session);
        session.open(run.connectString(), run.clientConfig());
        return session;
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Turn turn = run.state(Turn.class);
        AtomicInteger next = new AtomicInteger();
        byte[] pad = run.data();
        List<Future<Integer>> calls = new ArrayList<>();
        for (BenchClient.Queue producer : turn.producers) {
            calls.add(turn.pool.submit(() -> {
                int put = 0;
                for (int i = next.getAndIncrement(); run.more(i); i = next.getAndIncrement()) {
                    ByteBuffer item = ByteBuffer.allocate(Long.BYTES + pad.length);
                    item.putLong(System.nanoTime()).put(pad);
                    producer.put(item.array());
                    put++;
                }
                return put;
            }));
        }
        int total = 0;
        for (Future<Integer> call : calls) {
            try {
                total += call.get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException(client.name() + ": a producer failed", e);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (turn.count.get() < total) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(client.name() + ": " + turn.count.get() + " of " + total
                        + " items delivered after " + WAIT_SECONDS + " s");
            }
            TimeUnit.MICROSECONDS.sleep(200);
        }
        for (Long nanos = turn.delivered.poll(); nanos != null; nanos = turn.delivered.poll()) {
            run.latencies().add(nanos);
        }
        // The consumers' follow-up requests (a listing after the last delete) belong to this turn.
        run.awaitQuiet();
    }

    @Override
    public void tearDown(BenchClient client, RunContext run) {
        Turn turn = run.state(Turn.class);
        if (turn == null) {
            return;
        }
        turn.pool.shutdownNow();
        turn.producers.forEach(BenchClient.Recipe::close);
        turn.consumers.forEach(BenchClient.Recipe::close);
        turn.sessions.forEach(BenchClient::close);
    }
}
