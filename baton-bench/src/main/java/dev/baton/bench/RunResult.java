package dev.baton.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
 * @param requestsByPhase requests the server counted during its loops by phase and operation type: the phase
 *     {@link #WHOLE_OP} holds every request, the others what the scenario attributed to its phases
 *     ({@link RunContext#addPhaseRequests}); empty when unknown (external server)
 */
record RunResult(String library, int ops, long elapsedNanos, long p50Nanos, long p99Nanos, long requests,
        List<Double> turnNanosPerOp, Map<String, Map<String, Long>> requestsByPhase) {

    /** The phase that holds all of an op's requests. */
    static final String WHOLE_OP = "whole op";

    /** A result without a split of the requests by phase and type. */
    RunResult(String library, int ops, long elapsedNanos, long p50Nanos, long p99Nanos, long requests,
            List<Double> turnNanosPerOp) {
        this(library, ops, elapsedNanos, p50Nanos, p99Nanos, requests, turnNanosPerOp, Map.of());
    }

    RunResult {
        turnNanosPerOp = List.copyOf(turnNanosPerOp);
        Map<String, Map<String, Long>> phases = new LinkedHashMap<>();
        requestsByPhase.forEach((phase, counts) -> phases.put(phase, Collections.unmodifiableMap(
                new TreeMap<>(counts))));
        requestsByPhase = Collections.unmodifiableMap(phases);
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
