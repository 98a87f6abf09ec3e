package dev.baton.bench;

import java.util.List;

/**
 * One library's share of one round of a scenario: its turns added up.
 *
 * @param library the library's display name
 * @param ops operations completed
 * @param elapsedNanos wall time of its measured loops
 * @param p50Nanos median operation latency
 * @param p99Nanos 99th-percentile operation latency
 * @param requests client requests the server counted during its loops, or -1 when unknown (external server)
 * @param turnNanosPerOp the mean wall time per op of each of its turns, in turn order; the ratio columns pair
 *     these with the other libraries' turns of the same round
 */
record RunResult(String library, int ops, long elapsedNanos, long p50Nanos, long p99Nanos, long requests,
        List<Double> turnNanosPerOp) {

    RunResult {
        turnNanosPerOp = List.copyOf(turnNanosPerOp);
        if (ops <= 0) {
            throw new IllegalArgumentException("a run must complete at least one op, " + library + " did " + ops);
        }
        if (elapsedNanos <= 0) {
            throw new IllegalArgumentException("elapsedNanos must be > 0: " + elapsedNanos);
        }
    }

    /** Throughput. */
    double opsPerSecond() {
        return ops * 1e9 / elapsedNanos;
    }

    /** Mean wall time per operation (the inverse of throughput), in nanoseconds. */
    double meanNanos() {
        return (double) elapsedNanos / ops;
    }

    /** Server requests per operation, or NaN when unknown. */
    double requestsPerOp() {
        return requests < 0 ? Double.NaN : (double) requests / ops;
    }
}
