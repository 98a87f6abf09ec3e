package dev.baton.retry;

import java.time.Duration;
import java.util.Optional;

/**
 * Retries up to {@code n} times, waiting the same time before each retry.
 *
 * <p>Immutable and thread-safe.
 */
public class RetryNTimes implements RetryPolicy {
    private final int n;
    private final int sleepMs;

    /**
     * Creates the policy.
     *
     * @param n how many retries at most, {@code >= 0}
     * @param sleepMsBetweenRetries the delay before each retry in milliseconds, {@code >= 0}
     * @throws IllegalArgumentException if an argument is negative
     */
    public RetryNTimes(int n, int sleepMsBetweenRetries) {
        this.n = Checks.nonNegative("n", n);
        this.sleepMs = Checks.nonNegative("sleepMsBetweenRetries", sleepMsBetweenRetries);
    }

    @Override
    public Optional<Duration> delayBeforeRetry(int retryCount, Duration elapsed) {
        return retryCount >= 0 && retryCount < n ? Optional.of(Duration.ofMillis(sleepMs)) : Optional.empty();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[n=" + n + ", sleepMs=" + sleepMs + "]";
    }
}
