package dev.baton;

import java.time.Duration;
import java.util.Objects;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * One completed operation, as an {@link OperationListener} sees it.
 *
 * @param type the operation: {@code CREATE}, {@code DELETE}, {@code EXISTS}, {@code GET_DATA}, {@code SET_DATA},
 *     {@code CHILDREN}, {@code SYNC}, {@code GET_ACL}, {@code SET_ACL}, {@code TRANSACTION}, {@code ADD_WATCH} or
 *     {@code REMOVE_WATCHES} (never {@code WATCHED} or {@code CLOSING})
 * @param path the path as the user gave it (without the namespace); null for a transaction
 * @param duration from the call to the outcome, connection waits, retries and their pauses included
 * @param resultCode {@code OK}; the ZooKeeper code of the failure ({@code NONODE} for an {@code EXISTS} that
 *     found no node, as its background event reports); {@code SYSTEMERROR} for a failure that was no
 *     {@link KeeperException} (an interrupt, the client closing)
 * @param retries how many times the retry policy tried again before this outcome
 */
public record OperationEvent(BatonEventType type, @Nullable String path, Duration duration,
        KeeperException.Code resultCode, int retries) {

    /**
     * @param type the operation
     * @param path the path as the user gave it; null for a transaction
     * @param duration from the call to the outcome
     * @param resultCode {@code OK} or the code of the failure
     * @param retries how many times the retry policy tried again
     * @throws NullPointerException if {@code type}, {@code duration} or {@code resultCode} is null
     * @throws IllegalArgumentException if {@code retries} or {@code duration} is negative
     */
    public OperationEvent {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(resultCode, "resultCode");
        if (retries < 0) {
            throw new IllegalArgumentException("retries must be >= 0, was " + retries);
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must be >= 0, was " + duration);
        }
    }

    /** {@return true if the operation succeeded ({@code OK}, or an {@code EXISTS} that found no node)} */
    public boolean isOk() {
        return resultCode == KeeperException.Code.OK
                || (type == BatonEventType.EXISTS && resultCode == KeeperException.Code.NONODE);
    }
}
