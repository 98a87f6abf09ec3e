package dev.baton.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * What one turn of a scenario by one adapter gets: its own empty base path, the limits, the payload, and where
 * latencies go. The loop stops after {@link #ops()} operations or when its time limit has passed, whichever comes
 * first. Used by one thread, except {@link Latencies#set} from completion callbacks.
 */
final class RunContext {
    /** How long the server must see no request before {@link #awaitQuiet()} returns. */
    private static final long QUIET_NANOS = 5_000_000;
    /** How long {@link #awaitQuiet()} waits at most. */
    private static final long QUIET_TIMEOUT_NANOS = 10_000_000_000L;

    private final BenchServer server;
    private final Map<String, Map<String, Long>> phaseRequests = new LinkedHashMap<>();
    private final Admin admin;
    private final String basePath;
    private final int ops;
    private final long maxNanos;
    private final byte[] data;
    private final int inFlight;
    private final Latencies latencies;
    private long deadlineNanos;
    private Object state;

    /**
     * @param maxNanos the longest the measured loop may keep starting operations, {@code <= 0} for no limit;
     *     counted from {@link #startClock()}
     */
    RunContext(BenchServer server, Admin admin, String basePath, int ops, long maxNanos, byte[] data,
            int inFlight) {
        this.server = server;
        this.admin = admin;
        this.basePath = basePath;
        this.ops = ops;
        this.maxNanos = maxNanos;
        this.data = data;
        this.inFlight = inFlight;
        this.latencies = new Latencies(ops);
    }

    /** Starts the time limit; the runner calls it just before {@link Scenario#run}. */
    void startClock() {
        deadlineNanos = System.nanoTime() + maxNanos;
    }

    /**
     * Tells the loop whether to start another operation.
     *
     * @param started how many operations the loop has started so far
     * @return true while under the op count and the time limit
     */
    boolean more(int started) {
        return started < ops && (maxNanos <= 0 || System.nanoTime() - deadlineNanos < 0);
    }

    /** The server's address, for scenarios that open more sessions ({@link BenchClient#another()}). */
    String connectString() {
        return server.connectString();
    }

    /**
     * The client settings the sessions a scenario opens connect with, beside {@link #connectString()}: a new TLS
     * configuration each call with {@code --tls}, otherwise null (the library's defaults).
     */
    ZKClientConfig clientConfig() {
        return server.clientConfig();
    }

    /**
     * The server's request counts by operation type since the counter was last reset (just before
     * {@link Scenario#run}; during {@link Scenario#setUp} the counts of the previous turn or the last reset).
     *
     * @return a snapshot; empty for an external server, which does not count
     */
    Map<String, Long> requestCounts() {
        return server.requestCounts();
    }

    /**
     * Adds the requests between two {@link #requestCounts()} snapshots to a named phase of the op (such as
     * "failover" and "rejoin"); the report shows each phase's requests per op by type. Does nothing for an
     * external server.
     *
     * @param phase the phase's name, shown in the report
     * @param before the snapshot at the phase's start
     * @param after the snapshot at its end
     */
    void addPhaseRequests(String phase, Map<String, Long> before, Map<String, Long> after) {
        if (!server.countsRequests()) {
            return;
        }
        Map<String, Long> counts = phaseRequests.computeIfAbsent(phase, p -> new TreeMap<>());
        after.forEach((type, n) -> {
            long delta = n - before.getOrDefault(type, 0L);
            if (delta != 0) {
                counts.merge(type, delta, Long::sum);
            }
        });
    }

    /** The requests {@link #addPhaseRequests} collected: phase to operation type to count, phases in order. */
    Map<String, Map<String, Long>> phaseRequests() {
        return phaseRequests;
    }

    /**
     * Waits until the server has received no request for a few milliseconds, so that a library's asynchronous
     * follow-up requests (a watch set after a create, a background delete) are counted in the phase that caused
     * them. On an external server, which does not count, it waits a fixed few milliseconds.
     *
     * @throws InterruptedException if interrupted
     * @throws IllegalStateException if requests keep coming for 10 s
     */
    void awaitQuiet() throws InterruptedException {
        if (!server.countsRequests()) {
            TimeUnit.NANOSECONDS.sleep(QUIET_NANOS * 4);
            return;
        }
        long deadline = System.nanoTime() + QUIET_TIMEOUT_NANOS;
        long count = server.requestCount();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < QUIET_NANOS) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the server kept receiving requests for 10 s");
            }
            TimeUnit.MICROSECONDS.sleep(200);
            long now = server.requestCount();
            if (now != count) {
                count = now;
                quietSince = System.nanoTime();
            }
        }
    }

    /**
     * Keeps what a scenario's {@link Scenario#setUp} prepared (open sessions, started recipes) for its
     * {@link Scenario#run} and {@link Scenario#tearDown}: the scenario object itself is stateless.
     *
     * @param state the turn's state
     */
    void state(Object state) {
        this.state = state;
    }

    /**
     * {@return what {@link #state(Object)} kept, or null}
     *
     * @param type the state's class
     * @param <T> its type
     */
    <T> T state(Class<T> type) {
        return type.cast(state);
    }

    /** A bare ZooKeeper handle for set-up and clean-up outside the measured loop. */
    Admin admin() {
        return admin;
    }

    /** This run's own directory; it exists and is empty when the run starts. */
    String basePath() {
        return basePath;
    }

    /** The most operations the measured loop may run. */
    int ops() {
        return ops;
    }

    /** The data written by creates. */
    byte[] data() {
        return data;
    }

    /** How many asynchronous operations a pipelined scenario keeps outstanding. */
    int inFlight() {
        return inFlight;
    }

    /** Where the loop records each operation's latency; its size is the number of operations done. */
    Latencies latencies() {
        return latencies;
    }
}
