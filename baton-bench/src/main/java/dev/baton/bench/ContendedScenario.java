package dev.baton.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;

/**
 * The harness of the contended lock scenarios: {@link #CLIENTS} clients, each with its own session
 * ({@link BenchClient#another()}) and its own recipe object on one shared path, each on its own thread, take
 * the turn's ops from a shared counter until {@link RunContext#more} says stop. An op's latency is its whole
 * op from that thread's view (waiting included); ops/s is the total over all clients. The lock path exists
 * (created persistent in the set-up).
 */
abstract class ContendedScenario implements Scenario {

    /** Clients, each with its own session and thread. */
    static final int CLIENTS = 8;
    private static final long WAIT_SECONDS = Long.getLong("baton.bench.roundSeconds", 60);

    /** One client's op. */
    @FunctionalInterface
    interface Worker {
        /**
         * Runs op number {@code index} of the turn.
         *
         * @param index the op's number, shared over all clients
         */
        void op(int index) throws KeeperException, InterruptedException;
    }

    /** The turn's sessions, workers and threads. */
    static final class Clients {
        final List<BenchClient> sessions = new ArrayList<>();
        final List<Worker> workers = new ArrayList<>();
        final ExecutorService pool = Executors.newFixedThreadPool(CLIENTS, r -> {
            Thread t = new Thread(r, "baton-bench-lock-client");
            t.setDaemon(true);
            return t;
        });
        /** What a subclass keeps for its tear-down. */
        Object extra;
    }

    /**
     * Makes one client's worker on its own session.
     *
     * @param session the client's open session
     * @param path the shared lock path
     */
    abstract Worker worker(BenchClient session, String path);

    @Override
    public boolean supports(BenchClient client) {
        return client.hasRecipes();
    }

    static String lockPath(RunContext run) {
        return run.basePath() + "/lock";
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        run.admin().ensurePath(lockPath(run));
        Clients clients = new Clients();
        run.state(clients);
        for (int i = 0; i < CLIENTS; i++) {
            BenchClient session = client.another();
            clients.sessions.add(session);
            session.open(run.connectString(), run.clientConfig());
            Worker worker = worker(session, lockPath(run));
            clients.workers.add(worker);
            worker.op(1); // each recipe object's first use, unmeasured, one client at a time
        }
        run.awaitQuiet();
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Clients clients = run.state(Clients.class);
        AtomicInteger next = new AtomicInteger();
        List<Future<long[]>> calls = new ArrayList<>(CLIENTS);
        for (Worker worker : clients.workers) {
            Callable<long[]> loop = () -> {
                long[] mine = new long[run.ops()];
                int done = 0;
                for (int i = next.getAndIncrement(); run.more(i); i = next.getAndIncrement()) {
                    long start = System.nanoTime();
                    worker.op(i);
                    mine[done++] = System.nanoTime() - start;
                }
                return java.util.Arrays.copyOf(mine, done);
            };
            calls.add(clients.pool.submit(loop));
        }
        for (Future<long[]> call : calls) {
            for (long nanos : await(call, client.name())) {
                run.latencies().add(nanos);
            }
        }
    }

    private static long[] await(Future<long[]> call, String library) throws KeeperException, InterruptedException {
        try {
            return call.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KeeperException ke) {
                throw ke;
            }
            throw new IllegalStateException(library + ": a client failed", e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(library + ": a client is still busy after " + WAIT_SECONDS + " s");
        }
    }

    @Override
    public void tearDown(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Clients clients = run.state(Clients.class);
        if (clients == null) {
            return;
        }
        clients.pool.shutdownNow();
        clients.sessions.forEach(BenchClient::close);
    }
}
