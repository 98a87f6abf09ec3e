package dev.baton.retry;

/**
 * Retries once, after the given delay.
 *
 * <p>Immutable and thread-safe.
 */
public class RetryOneTime extends RetryNTimes {

    /**
     * Creates the policy.
     *
     * @param sleepMsBetweenRetry the delay before the single retry in milliseconds, {@code >= 0}
     * @throws IllegalArgumentException if the delay is negative
     */
    public RetryOneTime(int sleepMsBetweenRetry) {
        super(1, sleepMsBetweenRetry);
    }
}
