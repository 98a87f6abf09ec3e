package dev.baton.retry;

/**
 * An {@link ExponentialBackoffRetry} whose single delay never exceeds a bound; the constructor takes the bound
 * before the retry count, as Curator's does.
 *
 * <p>Immutable and thread-safe.
 */
public class BoundedExponentialBackoffRetry extends ExponentialBackoffRetry {

    /**
     * Creates the policy.
     *
     * @param baseSleepMs the initial delay in milliseconds, {@code >= 0}
     * @param maxSleepMs the longest single delay in milliseconds, {@code >= baseSleepMs}
     * @param maxRetries how many retries at most, {@code >= 0}
     * @throws IllegalArgumentException if an argument is negative or {@code maxSleepMs < baseSleepMs}
     */
    public BoundedExponentialBackoffRetry(int baseSleepMs, int maxSleepMs, int maxRetries) {
        super(baseSleepMs, maxRetries, maxSleepMs);
        if (maxSleepMs < baseSleepMs) {
            throw new IllegalArgumentException(
                    "maxSleepMs must be >= baseSleepMs (" + baseSleepMs + "), was " + maxSleepMs);
        }
    }
}
