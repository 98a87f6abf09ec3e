package dev.baton.discovery;

import java.time.Duration;
import java.util.Objects;

/**
 * When a {@link ServiceProvider} stops handing out an instance its callers reported errors for
 * ({@code noteError}): from the {@code errorThreshold}-th error on, until {@code timeout} after the first of them.
 * Curator's rule, with Curator's defaults (30 seconds, 2 errors).
 *
 * @param timeout how long after an instance's first noted error its errors are forgotten
 * @param errorThreshold how many noted errors make an instance down
 */
public record DownInstancePolicy(Duration timeout, int errorThreshold) {
    /** Curator's default timeout: 30 seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    /** Curator's default threshold: 2 errors. */
    public static final int DEFAULT_ERROR_THRESHOLD = 2;

    /**
     * @param timeout how long after an instance's first noted error its errors are forgotten
     * @param errorThreshold how many noted errors make an instance down
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if {@code timeout} is negative or {@code errorThreshold < 1}
     */
    public DownInstancePolicy {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be >= 0, was " + timeout);
        }
        if (errorThreshold < 1) {
            throw new IllegalArgumentException("errorThreshold must be >= 1, was " + errorThreshold);
        }
    }

    /** The default policy: 30 seconds, 2 errors. */
    public DownInstancePolicy() {
        this(DEFAULT_TIMEOUT, DEFAULT_ERROR_THRESHOLD);
    }
}
