package dev.baton.recipes.atomic;

import dev.baton.internal.BatonPaths;
import dev.baton.retry.RetryNTimes;
import dev.baton.retry.RetryPolicy;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Tells a distributed atomic counter to fall back to a lock when its optimistic attempts run out: it then takes
 * an {@link dev.baton.recipes.locks.InterProcessMutex} on {@link #lockPath()} and tries again under it, with its
 * own retry policy. Compatible with Curator's {@code PromotedToLock} (the same mutex layout at the lock path).
 *
 * <pre>{@code
 * PromotedToLock promoted = PromotedToLock.builder()
 *         .lockPath("/counters/hits-lock")
 *         .timeout(2, TimeUnit.SECONDS)
 *         .retryPolicy(new RetryNTimes(3, 10))
 *         .build();
 * DistributedAtomicLong hits = new DistributedAtomicLong(client, "/counters/hits",
 *         new ExponentialBackoffRetry(10, 3), promoted);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class PromotedToLock {
    private final String lockPath;
    /** Null to wait as long as it takes. */
    private final @Nullable Duration timeout;
    private final RetryPolicy retryPolicy;

    private PromotedToLock(String lockPath, @Nullable Duration timeout, @Nullable RetryPolicy retryPolicy) {
        this.lockPath = lockPath;
        this.timeout = timeout;
        this.retryPolicy = retryPolicy != null ? retryPolicy : new RetryNTimes(0, 0);
    }

    /** {@return a new builder} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the path of the mutex} */
    public String lockPath() {
        return lockPath;
    }

    /** {@return how long to wait for the mutex; empty to wait as long as it takes} */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    /** {@return the retry policy for attempts made while holding the mutex (default: no retries)} */
    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    @Override
    public String toString() {
        return "PromotedToLock[lockPath=" + lockPath + ", timeout=" + timeout + ", retryPolicy=" + retryPolicy + "]";
    }

    /**
     * Builds a {@link PromotedToLock}. Each option may be set once; {@link #build()} copies them, so the builder
     * can be reused. Not thread-safe.
     */
    public static final class Builder {
        // Each null until set.
        private @Nullable String lockPath;
        private @Nullable Duration timeout;
        private @Nullable RetryPolicy retryPolicy;

        private Builder() {
        }

        /**
         * {@return this builder}
         *
         * @param lockPath the path of the mutex (required)
         * @throws NullPointerException if {@code lockPath} is null
         * @throws IllegalArgumentException if the path is invalid
         * @throws IllegalStateException if already set
         */
        public Builder lockPath(String lockPath) {
            requireUnset(this.lockPath, "lockPath");
            this.lockPath = BatonPaths.validate(Objects.requireNonNull(lockPath, "lockPath"));
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param time how long to wait for the mutex, {@code >= 0}
         * @param unit the unit of {@code time}
         * @throws NullPointerException if {@code unit} is null
         * @throws IllegalArgumentException if {@code time} is negative
         * @throws IllegalStateException if already set
         */
        public Builder timeout(long time, TimeUnit unit) {
            Objects.requireNonNull(unit, "unit");
            if (time < 0) {
                throw new IllegalArgumentException("timeout must be >= 0, was " + time);
            }
            requireUnset(this.timeout, "timeout");
            this.timeout = Duration.ofNanos(unit.toNanos(time));
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param retryPolicy the policy for attempts made while holding the mutex
         * @throws NullPointerException if {@code retryPolicy} is null
         * @throws IllegalStateException if already set
         */
        public Builder retryPolicy(RetryPolicy retryPolicy) {
            requireUnset(this.retryPolicy, "retryPolicy");
            this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
            return this;
        }

        /**
         * {@return the configuration}
         *
         * @throws IllegalStateException if no lock path was set
         */
        public PromotedToLock build() {
            String path = lockPath;
            if (path == null) {
                throw new IllegalStateException("PromotedToLock needs a lockPath");
            }
            return new PromotedToLock(path, timeout, retryPolicy);
        }

        private static void requireUnset(@Nullable Object value, String option) {
            if (value != null) {
                throw new IllegalStateException(option + " is already set");
            }
        }
    }
}
