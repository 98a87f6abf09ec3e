package dev.baton.retry;

import java.time.Duration;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;

/**
 * Decides whether, and after how long, a failed ZooKeeper operation is tried again.
 *
 * <p>The client consults the policy only for failures that are safe to retry: connection loss, operation
 * timeout and session-moved (see {@link #isRetryable(KeeperException.Code)}). A create that could be applied
 * twice is never retried blindly; protected creates find their node instead of creating it again.
 *
 * <p>Implementations must be thread-safe and should be immutable: one policy instance serves every operation
 * of a client concurrently.
 */
public interface RetryPolicy {

    /**
     * Returns the delay before retry number {@code retryCount}, or empty when no more retries are allowed.
     *
     * @param retryCount how many retries have already been made for this operation (0 before the first retry)
     * @param elapsed time since the operation was first attempted
     * @return the time to wait before the next attempt, or empty to give up
     */
    Optional<Duration> delayBeforeRetry(int retryCount, Duration elapsed);

    /**
     * Tells whether a failure with the given code may be retried at all. The default accepts exactly
     * connection loss, operation timeout and session moved.
     *
     * @param code the failure's code
     * @return true if the operation may be attempted again
     */
    default boolean isRetryable(KeeperException.Code code) {
        return isRetryableCode(code);
    }

    /**
     * The default retryable codes: {@code CONNECTIONLOSS}, {@code OPERATIONTIMEOUT}, {@code SESSIONMOVED}.
     *
     * @param code a failure code
     * @return true for the three codes above
     */
    static boolean isRetryableCode(KeeperException.Code code) {
        return code == KeeperException.Code.CONNECTIONLOSS
                || code == KeeperException.Code.OPERATIONTIMEOUT
                || code == KeeperException.Code.SESSIONMOVED;
    }
}
