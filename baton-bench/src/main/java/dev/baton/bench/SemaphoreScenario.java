package dev.baton.bench;

import java.util.HashMap;
import java.util.Map;
import org.apache.zookeeper.KeeperException;

/**
 * {@code semaphore}: {@value ContendedScenario#CLIENTS} clients, each with its own session and
 * {@code InterProcessSemaphoreV2} ({@value #LEASES} leases) on one path, loop {@code acquire()} +
 * {@code returnLease()}. One op = one lease acquired and returned by any client; ops/s is the total.
 *
 * <p>Under contention an acquire's requests cannot be told apart from the others'. So the set-up (unmeasured)
 * also runs {@value #CALIBRATION} acquire + return cycles on the adapter's own session while the clients are idle,
 * and reports their requests as the phases {@value #ACQUIRE_ALONE} and {@value #RETURN_ALONE}, scaled to the
 * turn's op count, so the phase table reads requests per uncontended acquire / return.
 */
final class SemaphoreScenario extends ContendedScenario {

    static final int LEASES = 3;
    static final int CALIBRATION = 20;
    static final String ACQUIRE_ALONE = "acquire alone";
    static final String RETURN_ALONE = "return alone";

    /** The calibration's counts, kept for the tear-down. */
    private static final class Calibration {
        final Map<String, Long> acquire = new HashMap<>();
        final Map<String, Long> release = new HashMap<>();
    }

    @Override
    public String name() {
        return "semaphore";
    }

    @Override
    public String description() {
        return CLIENTS + " clients, one session and InterProcessSemaphoreV2 (" + LEASES + " leases) each, one path;"
                + " 1 op = acquire() + returnLease() by any client (ops/s = total); phases \"" + ACQUIRE_ALONE
                + "\" / \"" + RETURN_ALONE + "\" = requests of one uncontended acquire / return (set-up, 1 client)";
    }

    @Override
    Worker worker(BenchClient session, String path) {
        BenchClient.Semaphore semaphore = session.semaphore(path, LEASES);
        return index -> semaphore.acquire().close();
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        super.setUp(client, run);
        BenchClient.Semaphore semaphore = client.semaphore(lockPath(run), LEASES);
        semaphore.acquire().close();
        run.awaitQuiet();
        Calibration calibration = new Calibration();
        for (int i = 0; i < CALIBRATION; i++) {
            Map<String, Long> before = run.requestCounts();
            BenchClient.Recipe lease = semaphore.acquire();
            Map<String, Long> mid = run.requestCounts();
            lease.close();
            Map<String, Long> after = run.requestCounts();
            MutexUncontendedScenario.addDelta(calibration.acquire, before, mid);
            MutexUncontendedScenario.addDelta(calibration.release, mid, after);
        }
        run.awaitQuiet();
        run.state(Clients.class).extra = calibration;
    }

    @Override
    public void tearDown(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        super.tearDown(client, run);
        Clients clients = run.state(Clients.class);
        if (clients == null || !(clients.extra instanceof Calibration calibration)) {
            return;
        }
        int ops = run.latencies().size();
        run.addPhaseRequests(ACQUIRE_ALONE, Map.of(), scale(calibration.acquire, ops));
        run.addPhaseRequests(RETURN_ALONE, Map.of(), scale(calibration.release, ops));
    }

    /** Counts of {@value #CALIBRATION} cycles scaled to {@code ops} cycles. */
    private static Map<String, Long> scale(Map<String, Long> counts, int ops) {
        Map<String, Long> scaled = new HashMap<>();
        counts.forEach((type, n) -> scaled.put(type, Math.round((double) n * ops / CALIBRATION)));
        return scaled;
    }
}
