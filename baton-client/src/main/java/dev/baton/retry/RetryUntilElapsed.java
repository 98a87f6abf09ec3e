package dev.baton.retry;

import java.time.Duration;
import java.util.Optional;

/**
 * Retries with a fixed delay until a total time has elapsed since the first attempt. A retry whose delay would
 * end past the deadline is still made, at the deadline.
 *
 * <p>Immutable and thread-safe.
 */
public class RetryUntilElapsed implements RetryPolicy {
    private final int maxElapsedMs;
    private final int sleepMs;

    /**
     * Creates the policy.
     *
     * @param maxElapsedTimeMs the total time in milliseconds after which no retry is made, {@code >= 0}
     * @param sleepMsBetweenRetries the delay before each retry in milliseconds, {@code >= 0}
     * @throws IllegalArgumentException if an argument is negative
     */
    public RetryUntilElapsed(int maxElapsedTimeMs, int sleepMsBetweenRetries) {
        this.maxElapsedMs = Checks.nonNegative("maxElapsedTimeMs", maxElapsedTimeMs);
        this.sleepMs = Checks.nonNegative("sleepMsBetweenRetries", sleepMsBetweenRetries);
    }

    @Override
    public Optional<Duration> delayBeforeRetry(int retryCount, Duration elapsed) {
        long left = maxElapsedMs - elapsed.toMillis();
        if (retryCount < 0 || left <= 0) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofMillis(Math.min(sleepMs, left)));
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[maxElapsedMs=" + maxElapsedMs + ", sleepMs=" + sleepMs + "]";
    }
}
