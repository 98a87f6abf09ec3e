package dev.baton.bench;

import java.util.HashMap;
import java.util.Map;
import org.apache.zookeeper.KeeperException;

/**
 * {@code mutex-uncontended}: one client, one {@code InterProcessMutex} on a lock path that exists (created
 * persistent in the set-up, so the server's container clean-up never removes it mid-run). One op =
 * {@code acquire()} then {@code release()}; ops/s counts those pairs, but the p50/p99 columns time the
 * {@code acquire()} alone. The requests of each op are split into the phases {@value #ACQUIRE} and
 * {@value #RELEASE} (a snapshot of the server's counts between the calls, outside the timed acquire).
 */
final class MutexUncontendedScenario implements Scenario {

    static final String ACQUIRE = "acquire";
    static final String RELEASE = "release";

    @Override
    public String name() {
        return "mutex-uncontended";
    }

    @Override
    public String description() {
        return "1 client, InterProcessMutex on an existing path; 1 op = acquire() + release() (ops/s counts pairs);"
                + " p50/p99 = the acquire() alone; requests split into phases \"" + ACQUIRE + "\" and \""
                + RELEASE + "\"";
    }

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
        BenchClient.Lock lock = client.mutex(lockPath(run));
        lock.acquire(); // the mutex object's first use, unmeasured
        lock.release();
        run.state(lock);
        run.awaitQuiet();
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        BenchClient.Lock lock = run.state(BenchClient.Lock.class);
        Latencies latencies = run.latencies();
        Map<String, Long> acquire = new HashMap<>();
        Map<String, Long> release = new HashMap<>();
        Map<String, Long> before = run.requestCounts();
        for (int i = 0; run.more(i); i++) {
            long start = System.nanoTime();
            lock.acquire();
            long acquired = System.nanoTime();
            Map<String, Long> mid = run.requestCounts();
            lock.release();
            latencies.add(acquired - start);
            Map<String, Long> after = run.requestCounts();
            addDelta(acquire, before, mid);
            addDelta(release, mid, after);
            before = after;
        }
        run.addPhaseRequests(ACQUIRE, Map.of(), acquire);
        run.addPhaseRequests(RELEASE, Map.of(), release);
    }

    /** Adds {@code after - before} per type into {@code into}. */
    static void addDelta(Map<String, Long> into, Map<String, Long> before, Map<String, Long> after) {
        after.forEach((type, n) -> {
            long delta = n - before.getOrDefault(type, 0L);
            if (delta != 0) {
                into.merge(type, delta, Long::sum);
            }
        });
    }
}
