package dev.baton.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * {@code cache-initial-load}: a tree of {@link CacheTrees#nodes()} nodes of {@value CacheTrees#DATA_BYTES} bytes
 * under one parent (10,000 by default); one op builds and starts a subtree cache of the parent (Baton's
 * {@code BatonCache}, Curator's {@code CuratorCache}), waits for its "initialized" callback and closes it. The
 * op's latency is from just before the build to the callback; the close (and the watch removal it sends) is part
 * of the measured loop but not of the latency.
 *
 * <p>Retained heap: after each turn, unmeasured, one more cache is loaded and the heap in use after a full GC
 * ({@link MemoryMXBean}) is compared with the heap in use before it was built; the median over the turns, in
 * bytes per cached node, appears in the report's description line (and on stderr as each turn measures it).
 */
final class CacheInitialLoadScenario implements Scenario {
    private static final long LOAD_TIMEOUT_SECONDS = 60;

    /** Retained bytes per cached node, per library, one entry per measured turn. */
    private final Map<String, List<Double>> heapPerNode = new TreeMap<>();

    @Override
    public String name() {
        return "cache-initial-load";
    }

    @Override
    public synchronized String description() {
        StringBuilder heap = new StringBuilder();
        heapPerNode.forEach((library, values) -> {
            List<Double> sorted = values.stream().sorted().toList();
            heap.append(String.format(Locale.ROOT, "%s %,.0f B/node, ", library, sorted.get(sorted.size() / 2)));
        });
        return "a tree of " + String.format(Locale.ROOT, "%,d", CacheTrees.nodes()) + " nodes of "
                + CacheTrees.DATA_BYTES + " B under one parent; 1 op = build and start a subtree cache of it, wait"
                + " for initialized (latency ends here), close it; µs columns = time per load"
                + (heap.length() == 0 ? "" : "; retained heap after full GC (median over turns): "
                        + heap.substring(0, heap.length() - 2));
    }

    @Override
    public boolean supports(BenchClient client) {
        return client.hasRecipes();
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        CacheTrees.populate(client, run.basePath(), CacheTrees.nodes());
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        int expected = CacheTrees.nodes() + 1;
        for (int i = 0; run.more(i); i++) {
            long start = System.nanoTime();
            try (BenchClient.Cache cache = client.startCache(run.basePath(), (path, data) -> { })) {
                await(client, cache, expected);
                run.latencies().add(System.nanoTime() - start);
            }
        }
    }

    @Override
    public void tearDown(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long before = usedAfterGc(memory);
        BenchClient.Cache cache = client.startCache(run.basePath(), (path, data) -> { });
        try {
            await(client, cache, CacheTrees.nodes() + 1);
            long after = usedAfterGc(memory);
            double perNode = (double) (after - before) / cache.size();
            synchronized (this) {
                heapPerNode.computeIfAbsent(client.name(), k -> new ArrayList<>()).add(perNode);
            }
            System.err.printf(Locale.ROOT, "%-20s heap      %-9s %,d nodes retain %,d B: %,.0f B/node%n", name(),
                    client.name(), cache.size(), after - before, perNode);
        } finally {
            cache.close();
        }
    }

    private static void await(BenchClient client, BenchClient.Cache cache, int expected)
            throws InterruptedException {
        if (!cache.awaitInitialized(LOAD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException(client.name() + ": cache not initialized after "
                    + LOAD_TIMEOUT_SECONDS + " s");
        }
        if (cache.size() != expected) {
            throw new IllegalStateException(client.name() + ": cache initialized with " + cache.size()
                    + " nodes, expected " + expected);
        }
    }

    private static long usedAfterGc(MemoryMXBean memory) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(20);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
