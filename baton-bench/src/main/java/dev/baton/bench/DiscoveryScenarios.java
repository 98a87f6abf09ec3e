package dev.baton.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

/** The service discovery scenarios: Baton's {@code baton-discovery} beside Curator's {@code curator-x-discovery}. */
final class DiscoveryScenarios {
    static final String SERVICE = "svc";
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private DiscoveryScenarios() {
    }

    /** Waits (polling every millisecond) until {@code condition} holds; fails after a minute. */
    static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    static void register(BenchClient.Discovery discovery, int count) {
        for (int i = 0; i < count; i++) {
            discovery.register(SERVICE, String.format("i-%04d", i), 1000 + i);
        }
    }

    /** A turn with a writing discovery on the scenario's client and a reading one on another client. */
    private static class ReaderTurn {
        BenchClient.Discovery writer;
        BenchClient reader;
        BenchClient.Discovery readerDiscovery;
        final List<BenchClient.Provider> caches = new ArrayList<>();

        /** Registers {@code instances} instances through the writer, and opens the reader. */
        void open(BenchClient client, RunContext run, int instances) throws InterruptedException {
            writer = client.discovery(run.basePath());
            register(writer, instances);
            reader = client.another();
            reader.open(run.connectString(), run.clientConfig());
            readerDiscovery = reader.discovery(run.basePath());
        }

        void close() {
            caches.forEach(BenchClient.Provider::close);
            if (readerDiscovery != null) {
                readerDiscovery.close();
            }
            if (reader != null) {
                reader.close();
            }
            if (writer != null) {
                writer.close();
            }
        }
    }

    /**
     * {@code discovery-get-instance}: a started provider (round robin) of a service with 10 instances; 1 op = one
     * {@code getInstance()}. Both libraries answer from their cache: the server sees no request.
     */
    static final class GetInstance implements Scenario {
        static final int INSTANCES = 10;

        private record ProviderTurn(BenchClient.Discovery discovery, BenchClient.Provider provider) {
        }

        @Override
        public String name() {
            return "discovery-get-instance";
        }

        @Override
        public String description() {
            return "a started round-robin ServiceProvider of " + INSTANCES + " instances; 1 op = one getInstance()"
                    + " (no ZooKeeper request expected)";
        }

        @Override
        public boolean supports(BenchClient client) {
            return client.hasRecipes();
        }

        @Override
        public void setUp(BenchClient client, RunContext run) {
            BenchClient.Discovery discovery = client.discovery(run.basePath());
            register(discovery, INSTANCES);
            BenchClient.Provider provider = discovery.provider(SERVICE);
            awaitTrue(() -> provider.size() == INSTANCES, "the provider's initial load");
            run.state(new ProviderTurn(discovery, provider));
        }

        @Override
        public void run(BenchClient client, RunContext run) {
            BenchClient.Provider provider = run.state(ProviderTurn.class).provider();
            for (int op = 0; run.more(op); op++) {
                long start = System.nanoTime();
                String id = provider.getInstance();
                run.latencies().add(System.nanoTime() - start);
                if (id == null) {
                    throw new IllegalStateException(client.name() + ": getInstance() gave none");
                }
            }
        }

        @Override
        public void tearDown(BenchClient client, RunContext run) {
            ProviderTurn turn = run.state(ProviderTurn.class);
            if (turn != null) {
                turn.provider().close();
                turn.discovery().close();
            }
        }
    }

    /**
     * {@code discovery-convergence}: {@value #CACHES} service caches on another client follow a service of 10
     * instances; 1 op = one {@code updateService} of an instance (a new port), and its latency runs until every
     * cache holds the new port. Ops run one after the other.
     */
    static final class Convergence implements Scenario {
        static final int CACHES = 10;

        /** What a turn holds; {@code expected} and {@code pending} belong to the op in progress. */
        private static final class ConvergenceTurn extends ReaderTurn {
            volatile int expected = -1;
            final AtomicReferenceArray<CountDownLatch> pending = new AtomicReferenceArray<>(1);
            final boolean[] seen = new boolean[CACHES];
        }

        @Override
        public String name() {
            return "discovery-convergence";
        }

        @Override
        public String description() {
            return CACHES + " ServiceCaches on another client follow 10 instances; 1 op = one updateService;"
                    + " latency = from the update to the last cache holding it";
        }

        @Override
        public boolean supports(BenchClient client) {
            return client.hasRecipes();
        }

        @Override
        public void setUp(BenchClient client, RunContext run) throws InterruptedException {
            ConvergenceTurn turn = new ConvergenceTurn();
            run.state(turn);
            turn.open(client, run, 10);
            for (int c = 0; c < CACHES; c++) {
                int index = c;
                BenchClient.Provider cache = turn.readerDiscovery.cache(SERVICE, ports -> seen(turn, index, ports));
                turn.caches.add(cache);
            }
            awaitTrue(() -> turn.caches.stream().allMatch(c -> c.size() == 10), "the caches' initial load");
        }

        private static void seen(ConvergenceTurn turn, int cache, Map<String, Integer> ports) {
            Integer port = ports.get("i-0000");
            synchronized (turn) {
                CountDownLatch latch = turn.pending.get(0);
                if (latch != null && port != null && port == turn.expected && !turn.seen[cache]) {
                    turn.seen[cache] = true;
                    latch.countDown();
                }
            }
        }

        @Override
        public void run(BenchClient client, RunContext run) throws InterruptedException {
            ConvergenceTurn turn = run.state(ConvergenceTurn.class);
            for (int op = 0; run.more(op); op++) {
                CountDownLatch all = new CountDownLatch(CACHES);
                synchronized (turn) {
                    turn.expected = 20_000 + op;
                    Arrays.fill(turn.seen, false);
                    turn.pending.set(0, all);
                }
                long start = System.nanoTime();
                turn.writer.update(SERVICE, "i-0000", 20_000 + op);
                if (!all.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(client.name() + ": caches did not converge on op " + op);
                }
                run.latencies().add(System.nanoTime() - start);
            }
        }

        @Override
        public void tearDown(BenchClient client, RunContext run) {
            ConvergenceTurn turn = run.state(ConvergenceTurn.class);
            if (turn == null) {
                return;
            }
            turn.close();
        }
    }

    /**
     * {@code discovery-caches}: {@value #INSTANCES} registered instances (fewer if {@link CacheTrees#nodes()} is
     * smaller); 1 op = starting one more ServiceCache of them on another client (latency: until its initial load is
     * done), at most {@value #MAX_CACHES} caches per turn. Each cache comes from a ServiceDiscovery of its own on
     * that client, so that each op is a whole load: Baton's caches of one service made from one discovery share one
     * watch, and a second one would load nothing. The threads the library started meanwhile are printed on stderr
     * at the end of each turn.
     */
    static final class Caches implements Scenario {
        static final int INSTANCES = 1000;
        static final int MAX_CACHES = 50;

        private static final class CachesTurn extends ReaderTurn {
            Set<Thread> threadsBefore;
            /** One per cache, closed after the caches. */
            final List<BenchClient.Discovery> discoveries = new ArrayList<>();

            @Override
            void close() {
                caches.forEach(BenchClient.Provider::close);
                caches.clear();
                discoveries.forEach(BenchClient.Discovery::close);
                super.close();
            }
        }

        private static int instances() {
            return Math.min(INSTANCES, CacheTrees.nodes());
        }

        @Override
        public String name() {
            return "discovery-caches";
        }

        @Override
        public String description() {
            return INSTANCES + " registered instances; 1 op = starting one more ServiceCache of them, from a"
                    + " ServiceDiscovery of its own (up to " + MAX_CACHES + "); latency = until its initial load is"
                    + " done; threads started: on stderr";
        }

        @Override
        public boolean supports(BenchClient client) {
            return client.hasRecipes();
        }

        @Override
        public void setUp(BenchClient client, RunContext run) throws InterruptedException {
            CachesTurn turn = new CachesTurn();
            run.state(turn);
            turn.open(client, run, instances());
            turn.threadsBefore = Set.copyOf(Thread.getAllStackTraces().keySet());
        }

        @Override
        public void run(BenchClient client, RunContext run) {
            CachesTurn turn = run.state(CachesTurn.class);
            for (int op = 0; op < MAX_CACHES && run.more(op); op++) {
                BenchClient.Discovery discovery = turn.reader.discovery(run.basePath());
                turn.discoveries.add(discovery);
                long start = System.nanoTime();
                BenchClient.Provider cache = discovery.cache(SERVICE, ports -> { });
                int instances = instances();
                awaitTrue(() -> cache.size() == instances, "a cache's initial load");
                run.latencies().add(System.nanoTime() - start);
                turn.caches.add(cache);
            }
        }

        @Override
        public void tearDown(BenchClient client, RunContext run) {
            CachesTurn turn = run.state(CachesTurn.class);
            if (turn == null) {
                return;
            }
            if (turn.threadsBefore != null) {
                List<String> started = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.isAlive() && !turn.threadsBefore.contains(t)).map(Thread::getName)
                        .filter(n -> !n.startsWith("NIOWorker") && !n.startsWith("NIOServerCxnFactory")).toList();
                System.err.printf("[discovery-caches] %s: %d caches of %d instances started %d thread(s) %s%n",
                        client.name(), turn.caches.size(), instances(), started.size(), started);
            }
            turn.close();
        }
    }
}
