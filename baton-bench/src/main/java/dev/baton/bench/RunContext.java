package dev.baton.bench;

/**
 * What one turn of a scenario by one adapter gets: its own empty base path, the limits, the payload, and where
 * latencies go. The loop stops after {@link #ops()} operations or when its time limit has passed, whichever comes
 * first. Used by one thread, except {@link Latencies#set} from completion callbacks.
 */
final class RunContext {
    private final Admin admin;
    private final String basePath;
    private final int ops;
    private final long maxNanos;
    private final byte[] data;
    private final int inFlight;
    private final Latencies latencies;
    private long deadlineNanos;

    /**
     * @param maxNanos the longest the measured loop may keep starting operations, {@code <= 0} for no limit;
     *     counted from {@link #startClock()}
     */
    RunContext(Admin admin, String basePath, int ops, long maxNanos, byte[] data, int inFlight) {
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
