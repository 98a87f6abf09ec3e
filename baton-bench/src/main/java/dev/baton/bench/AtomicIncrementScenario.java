package dev.baton.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;

/**
 * {@code atomic-increment}: {@link #CLIENTS} clients, each on its own session, increment one distributed atomic
 * long (optimistic: read, then a conditional {@code setData}; a lost race is retried under a retry policy that
 * sets no pause, up to {@link #RETRIES} times: Curator retries at once, Baton backs off a little). One op = one successful increment; an {@code increment()} that runs out of retries is
 * called again and its requests count for the op. The total is checked against the ops after each turn.
 *
 * <p>Like {@link DoubleBarrierScenario}, the clients talk through a {@link FailedWriteCounter}: the lost races
 * ({@code setData ... BADVERSION}) are the phase {@value DoubleBarrierScenario#FAILED_WRITES}.
 */
final class AtomicIncrementScenario implements Scenario {

    /** Clients incrementing the counter. */
    static final int CLIENTS = 8;
    /** Retries per {@code increment()}. */
    static final int RETRIES = 100;

    /** The turn's clients and their threads. */
    private static final class Clients {
        final FailedWriteCounter wire;
        final List<BenchClient> sessions = new ArrayList<>();
        final List<BenchClient.AtomicCounter> counters = new ArrayList<>();
        final ExecutorService pool = Executors.newFixedThreadPool(CLIENTS, r -> {
            Thread t = new Thread(r, "baton-bench-atomic-client");
            t.setDaemon(true);
            return t;
        });
        int done;

        Clients(FailedWriteCounter wire) {
            this.wire = wire;
        }
    }

    @Override
    public String name() {
        return "atomic-increment";
    }

    @Override
    public String description() {
        return CLIENTS + " clients, one session each, increment one DistributedAtomicLong (optimistic, up to "
                + RETRIES + " retries, the policy sets no pause); 1 op = 1 successful increment (lost races: phase \""
                + DoubleBarrierScenario.FAILED_WRITES + "\")";
    }

    @Override
    public boolean supports(BenchClient client) {
        return client.hasRecipes();
    }

    /** No: its sessions go through the {@link FailedWriteCounter}, which reads plaintext. */
    @Override
    public boolean runsOverTls() {
        return false;
    }

    private static String counterPath(RunContext run) {
        return run.basePath() + "/counter";
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        FailedWriteCounter wire;
        try {
            wire = new FailedWriteCounter(DoubleBarrierScenario.port(run.connectString()),
                    p -> p.equals(counterPath(run)) ? "counter" : "other");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Clients clients = new Clients(wire);
        run.state(clients);
        run.admin().create(counterPath(run), new byte[Long.BYTES]);
        for (int i = 0; i < CLIENTS; i++) {
            BenchClient session = client.another();
            clients.sessions.add(session);
            session.open(wire.connectString(), null); // plaintext only: the wire counter reads the protocol
            clients.counters.add(session.atomicLong(counterPath(run), RETRIES));
        }
        run.awaitQuiet();
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Clients clients = run.state(Clients.class);
        Latencies latencies = run.latencies();
        AtomicInteger started = new AtomicInteger();
        Queue<Long> times = new ConcurrentLinkedQueue<>();
        List<Future<Void>> loops = new ArrayList<>(CLIENTS);
        for (BenchClient.AtomicCounter counter : clients.counters) {
            loops.add(clients.pool.submit(() -> {
                for (int i = started.getAndIncrement(); run.more(i); i = started.getAndIncrement()) {
                    long start = System.nanoTime();
                    while (!counter.increment()) {
                        // retries ran out: try again, this op is not done
                    }
                    times.add(System.nanoTime() - start);
                }
                return null;
            }));
        }
        for (Future<Void> loop : loops) {
            DoubleBarrierScenario.await(loop, client.name());
        }
        times.forEach(latencies::add);
        clients.done = latencies.size();
    }

    @Override
    public void tearDown(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Clients clients = run.state(Clients.class);
        if (clients == null) {
            return;
        }
        try {
            if (!clients.sessions.isEmpty()) {
                long total = ByteBuffer.wrap(clients.sessions.get(0).getData(counterPath(run))).getLong();
                if (total != clients.done) {
                    throw new IllegalStateException(client.name() + ": counter is " + total + " after "
                            + clients.done + " increments");
                }
            }
        } finally {
            clients.pool.shutdownNow();
            clients.sessions.forEach(BenchClient::close);
            clients.wire.close();
            run.addPhaseRequests(DoubleBarrierScenario.FAILED_WRITES, Map.of(), clients.wire.failures());
        }
    }
}
