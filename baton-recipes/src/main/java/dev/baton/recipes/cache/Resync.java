package dev.baton.recipes.cache;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;

/**
 * A {@link BatonCache}'s initial load or a resync after reconnecting: every node is read once, a bounded number at
 * a time. Its mutable state is read and written only with the cache's lock held (the lock is the cache's, so
 * {@code @GuardedBy} cannot name it here).
 */
final class Resync {
    final long generation;
    final ArrayDeque<String> queue = new ArrayDeque<>();
    /** Paths found present by reads of this generation. */
    final Set<String> seen = new HashSet<>();
    int inFlight;
    /** Reads applied since the last delivery of listener calls. */
    int undelivered;
    boolean failed;

    Resync(long generation) {
        this.generation = generation;
    }
}
