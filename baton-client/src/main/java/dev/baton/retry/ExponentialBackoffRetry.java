package dev.baton.retry;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Retries a set number of times with a randomized, exponentially growing delay.
 *
 * <p>Before retry {@code n} (counting from 0) the delay is {@code baseSleepMs * k} for a random
 * {@code k} in {@code [1, 2^(n+1))}, capped at {@code maxSleepMs}. The exponent stops growing at 29 retries so
 * the multiplier never overflows; {@code maxRetries} is capped at 29 for the same reason.
 *
 * <p>Immutable and thread-safe.
 */
public class ExponentialBackoffRetry implements RetryPolicy {
    /** The largest number of retries this policy allows, whatever the constructor was given. */
    public static final int MAX_RETRIES_LIMIT = 29;

    private final int baseSleepMs;
    private final int maxRetries;
    private final int maxSleepMs;

    /**
     * Creates a policy with no upper bound on a single delay.
     *
     * @param baseSleepMs the initial delay in milliseconds, {@code >= 0}
     * @param maxRetries how many retries at most, {@code >= 0} (capped at {@value #MAX_RETRIES_LIMIT})
     * @throws IllegalArgumentException if an argument is negative
     */
    public ExponentialBackoffRetry(int baseSleepMs, int maxRetries) {
        this(baseSleepMs, maxRetries, Integer.MAX_VALUE);
    }

    /**
     * Creates a policy whose single delay never exceeds {@code maxSleepMs}.
     *
     * @param baseSleepMs the initial delay in milliseconds, {@code >= 0}
     * @param maxRetries how many retries at most, {@code >= 0} (capped at {@value #MAX_RETRIES_LIMIT})
     * @param maxSleepMs the longest single delay in milliseconds, {@code >= 0}
     * @throws IllegalArgumentException if an argument is negative
     */
    public ExponentialBackoffRetry(int baseSleepMs, int maxRetries, int maxSleepMs) {
        this.baseSleepMs = Checks.nonNegative("baseSleepMs", baseSleepMs);
        this.maxRetries = Math.min(Checks.nonNegative("maxRetries", maxRetries), MAX_RETRIES_LIMIT);
        this.maxSleepMs = Checks.nonNegative("maxSleepMs", maxSleepMs);
    }

    /** {@return the initial delay in milliseconds} */
    public int getBaseSleepTimeMs() {
        return baseSleepMs;
    }

    /** {@return the number of retries this policy allows} */
    public int getMaxRetries() {
        return maxRetries;
    }

    /** {@return the longest single delay in milliseconds} */
    public int getMaxSleepMs() {
        return maxSleepMs;
    }

    @Override
    public Optional<Duration> delayBeforeRetry(int retryCount, Duration elapsed) {
        if (retryCount < 0 || retryCount >= maxRetries) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofMillis(sleepMs(retryCount)));
    }

    /**
     * The delay in milliseconds before retry {@code retryCount}; a subclass may bound it further.
     *
     * @param retryCount the retry number, from 0
     * @return the delay in milliseconds
     */
    protected long sleepMs(int retryCount) {
        int exponent = Math.min(retryCount + 1, MAX_RETRIES_LIMIT + 1);
        long multiplier = Math.max(1, ThreadLocalRandom.current().nextLong(1L << exponent));
        return Math.min((long) baseSleepMs * multiplier, maxSleepMs);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[baseSleepMs=" + baseSleepMs + ", maxRetries=" + maxRetries
                + ", maxSleepMs=" + maxSleepMs + "]";
    }
}
