package dev.baton.retry;

import java.time.Duration;
import java.util.Optional;

/**
 * Retries without end, waiting the same time before each retry. Operations under this policy end only when
 * they succeed, fail for a non-retryable reason, or the client is closed.
 *
 * <p>Immutable and thread-safe.
 */
public class RetryForever implements RetryPolicy {
    private final Duration interval;

    /**
     * Creates the policy.
     *
     * @param retryIntervalMs the delay before each retry in milliseconds, {@code >= 0}
     * @throws IllegalArgumentException if the interval is negative
     */
    public RetryForever(int retryIntervalMs) {
        this.interval = Duration.ofMillis(Checks.nonNegative("retryIntervalMs", retryIntervalMs));
    }

    @Override
    public Optional<Duration> delayBeforeRetry(int retryCount, Duration elapsed) {
        return Optional.of(interval);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[intervalMs=" + interval.toMillis() + "]";
    }
}
