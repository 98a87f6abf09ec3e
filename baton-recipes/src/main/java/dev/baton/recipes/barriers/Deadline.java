package dev.baton.recipes.barriers;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/** When a blocking call gives up, on the monotonic clock; {@link #NONE} never does. Immutable. */
final class Deadline {
    static final Deadline NONE = new Deadline(false, 0);

    private final boolean timed;
    private final long deadlineNanos;

    private Deadline(boolean timed, long deadlineNanos) {
        this.timed = timed;
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     */
    static Deadline after(long maxWait, TimeUnit unit, String argName) {
        Objects.requireNonNull(unit, "unit");
        if (maxWait < 0) {
            throw new IllegalArgumentException(argName + " must be >= 0, was " + maxWait);
        }
        long nanos = unit.toNanos(maxWait);
        return new Deadline(true, System.nanoTime() + Math.min(nanos, Long.MAX_VALUE / 4));
    }

    boolean isTimed() {
        return timed;
    }

    /** {@return nanoseconds left, at most 0 once passed; {@link Long#MAX_VALUE} when untimed} */
    long remainingNanos() {
        return timed ? deadlineNanos - System.nanoTime() : Long.MAX_VALUE;
    }
}
