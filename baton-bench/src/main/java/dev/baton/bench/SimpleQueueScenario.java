package dev.baton.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;

/**
 * {@code SimpleDistributedQueue} throughput: {@value #PRODUCERS} producers calling {@code offer} and
 * {@value #CONSUMERS} consumers each calling {@code take} in a loop on a thread of its own, every one on its own
 * session, all on one queue path. One op is one item delivered to a consumer; its latency runs from just before
 * its offer to the return of the take that got it; ops/s is items delivered per second of the whole run, and
 * requests per op are ZooKeeper requests per delivered item, offers included.
 */
final class SimpleQueueScenario implements Scenario {
    static final int PRODUCERS = 2;
    static final int CONSUMERS = 2;
    private static final long WAIT_SECONDS = Long.getLong("baton.bench.roundSeconds", 60);

    /** The turn's sessions, queues and consumer threads. */
    private static final class Turn {
        final List<BenchClient> sessions = new ArrayList<>();
        final List<BenchClient.SimpleQueue> producers = new ArrayList<>();
        final ConcurrentLinkedQueue<Long> delivered = new ConcurrentLinkedQueue<>();
        final AtomicInteger count = new AtomicInteger();
        final ExecutorService producing = pool(PRODUCERS, "baton-bench-simple-queue-producer");
        final ExecutorService consuming = pool(CONSUMERS, "baton-bench-simple-queue-consumer");
    }

    private static ExecutorService pool(int threads, String name) {
        return Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String name() {
        return "simple-queue";
    }

    @Override
    public String description() {
        return PRODUCERS + " producers (offer) and " + CONSUMERS + " consumers (take in a loop), one session each, one"
                + " SimpleDistributedQueue path; 1 op = 1 item delivered (ops/s = items delivered per second;"
                + " latency = offer to take; requests/op = per delivered item)";
    }

    @Override
    public boolean supports(BenchClient client) {
        return client.hasRecipes();
    }

    private static String queuePath(RunContext run) {
        return run.basePath() + "/simple-queue";
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        run.admin().ensurePath(queuePath(run));
        Turn turn = new Turn();
        run.state(turn);
        for (int i = 0; i < CONSUMERS; i++) {
            BenchClient.SimpleQueue consumer = open(client, run, turn).simpleQueue(queuePath(run));
            turn.consuming.execute(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        byte[] item = consumer.take();
                        turn.delivered.add(System.nanoTime() - ByteBuffer.wrap(item).getLong());
                        turn.count.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // the turn is over
                } catch (KeeperException | RuntimeException e) {
                    if (!turn.consuming.isShutdown()) {
                        System.err.println(client.name() + ": a simple-queue consumer failed: " + e);
                    }
                }
            });
        }
        for (int i = 0; i < PRODUCERS; i++) {
            turn.producers.add(open(client, run, turn).simpleQueue(queuePath(run)));
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
        for (BenchClient.SimpleQueue producer : turn.producers) {
            calls.add(turn.producing.submit(() -> {
                int offered = 0;
                for (int i = next.getAndIncrement(); run.more(i); i = next.getAndIncrement()) {
                    ByteBuffer item = ByteBuffer.allocate(Long.BYTES + pad.length);
                    item.putLong(System.nanoTime()).put(pad);
                    producer.offer(item.array());
                    offered++;
                }
                return offered;
            }));
        }
        int total = 0;
        for (Future<Integer> call : calls) {
            try {
                total += call.get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
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
        // The consumers' follow-up requests (the listing and watch after the last take) belong to this turn.
        run.awaitQuiet();
    }

    @Override
    public void tearDown(BenchClient client, RunContext run) throws InterruptedException {
        Turn turn = run.state(Turn.class);
        if (turn == null) {
            return;
        }
        turn.producing.shutdownNow();
        turn.consuming.shutdownNow();
        turn.consuming.awaitTermination(10, TimeUnit.SECONDS);
        turn.producers.forEach(BenchClient.Recipe::close);
        turn.sessions.forEach(BenchClient::close);
    }
}
