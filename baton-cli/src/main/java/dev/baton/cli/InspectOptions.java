package dev.baton.cli;

import java.util.OptionalInt;

/**
 * Facts about recipes that the server does not store, given on the command line, for the {@link Layout}s.
 *
 * @param maxLeases a semaphore's {@code maxLeases} ({@code --max-leases}), empty when not given
 */
record InspectOptions(OptionalInt maxLeases) {

    /** Nothing given. */
    static final InspectOptions NONE = new InspectOptions(OptionalInt.empty());

    InspectOptions {
        if (maxLeases.isPresent() && maxLeases.getAsInt() <= 0) {
            throw new IllegalArgumentException("--max-leases must be > 0, was " + maxLeases.getAsInt());
        }
    }
}
