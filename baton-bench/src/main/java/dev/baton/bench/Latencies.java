package dev.baton.bench;

import java.util.Arrays;

/**
 * Per-operation latencies of one run, in nanoseconds, in a preallocated array (no allocation while measuring).
 * Sequential loops {@link #add}; pipelined loops {@link #set} one slot per operation from completion threads and
 * then {@link #size} once every operation has completed (the caller provides the happens-before edge, e.g. a
 * semaphore).
 */
final class Latencies {
    private final long[] nanos;
    private int size;

    Latencies(int capacity) {
        this.nanos = new long[capacity];
    }

    /** Appends one latency. Single-threaded. */
    void add(long latencyNanos) {
        nanos[size++] = latencyNanos;
    }

    /** Stores the latency of operation {@code index}. Each slot is written by one thread only. */
    void set(int index, long latencyNanos) {
        nanos[index] = latencyNanos;
    }

    /** Declares that slots {@code 0..count-1} hold the run's latencies. */
    void size(int count) {
        size = count;
    }

    int size() {
        return size;
    }

    /**
     * The latency below or at which {@code percent} of the operations completed (nearest rank).
     *
     * @param sorted the latencies, sorted, from {@link #sorted()}
     * @param percent from 0 (exclusive) to 100
     * @return the latency in nanoseconds, or 0 when there are none
     */
    static long percentile(long[] sorted, double percent) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
    }

    /** A sorted copy of the recorded latencies. */
    long[] sorted() {
        long[] copy = Arrays.copyOf(nanos, size);
        Arrays.sort(copy);
        return copy;
    }
}
