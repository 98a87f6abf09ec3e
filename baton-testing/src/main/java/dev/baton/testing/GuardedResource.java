package dev.baton.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Objects;

/**
 * An in-memory resource guarded by fencing tokens, the storage side of the fencing recipe: it accepts an
 * operation only with a token at least as high as the highest token it has seen, so a lock holder that lost its
 * lock without knowing (paused, partitioned) cannot overwrite the work of a later holder. Each attempt is
 * recorded in a {@link History} as {@link History.Kind#TOKEN_USED} (accepted) or {@link
 * History.Kind#TOKEN_REJECTED}, under the resource's lock, so the history's order of acceptances is the
 * resource's own order and {@link Checkers#noStaleTokenAccepted()} can check it.
 *
 * <p>Thread-safety: all methods may be called from any thread; attempts are serialized.
 */
public final class GuardedResource {

    private final String name;
    private final History history;
    // A private lock, not the resource itself, so a caller synchronizing on the resource cannot stall it.
    private final Object lock = new Object();
    @GuardedBy("lock")
    private long highest = Long.MIN_VALUE;
    @GuardedBy("lock")
    private long accepted;
    @GuardedBy("lock")
    private long rejected;

    /**
     * Creates a resource that has seen no token yet.
     *
     * @param name the resource name recorded in the history's events
     * @param history where attempts are recorded
     */
    public GuardedResource(String name, History history) {
        this.name = Objects.requireNonNull(name, "name");
        this.history = Objects.requireNonNull(history, "history");
    }

    /**
     * Returns the resource name.
     *
     * @return the name this resource records its attempts under
     */
    public String name() {
        return name;
    }

    /**
     * Attempts an operation by {@code client} with fencing token {@code token}: accepted if {@code token} is at
     * least the highest token seen, which it then becomes.
     *
     * @param client who makes the attempt, as recorded in the history
     * @param token the fencing token the client holds
     * @return true if accepted (recorded as {@code TOKEN_USED}), false if rejected ({@code TOKEN_REJECTED})
     * @throws IllegalArgumentException if {@code token} is {@link History#NO_TOKEN}
     */
    public boolean use(String client, long token) {
        return use(client, token, () -> { });
    }

    /**
     * Attempts {@code operation} by {@code client} with fencing token {@code token}; runs it, under the
     * resource's lock, only if accepted.
     *
     * @param client who makes the attempt, as recorded in the history
     * @param token the fencing token the client holds
     * @param operation the work to do on the resource if the token is accepted
     * @return true if accepted and run, false if rejected
     * @throws IllegalArgumentException if {@code token} is {@link History#NO_TOKEN}
     * @throws RuntimeException whatever {@code operation} throws (the token still counts as seen)
     */
    public boolean use(String client, long token, Runnable operation) {
        Objects.requireNonNull(operation, "operation");
        if (token == History.NO_TOKEN) {
            throw new IllegalArgumentException("token " + token + " is reserved for 'no token'");
        }
        synchronized (lock) {
            if (token < highest) {
                rejected++;
                history.record(client, History.Kind.TOKEN_REJECTED, name, token, "highest seen " + highest);
                return false;
            }
            highest = token;
            accepted++;
            history.record(client, History.Kind.TOKEN_USED, name, token, "");
            operation.run();
            return true;
        }
    }

    /**
     * Returns the highest token accepted so far, or {@link Long#MIN_VALUE} if none.
     *
     * @return the token an attempt must at least carry to be accepted now
     */
    public long highestToken() {
        synchronized (lock) {
            return highest;
        }
    }

    /**
     * Returns how many operations were accepted.
     *
     * @return the number of {@code TOKEN_USED} attempts so far
     */
    public long acceptedCount() {
        synchronized (lock) {
            return accepted;
        }
    }

    /**
     * Returns how many operations were rejected.
     *
     * @return the number of {@code TOKEN_REJECTED} attempts so far
     */
    public long rejectedCount() {
        synchronized (lock) {
            return rejected;
        }
    }
}
