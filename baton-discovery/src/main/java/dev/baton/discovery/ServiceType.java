package dev.baton.discovery;

/**
 * How long a registration lives, under Curator's names (they are written into the registration's JSON as is).
 */
public enum ServiceType {
    /**
     * An ephemeral node: gone when the registering process's session ends, re-created with the latest data when
     * a new session starts, deleted by {@code unregisterService} and {@code close()}. The default.
     */
    DYNAMIC,
    /** A persistent node, kept while registered, deleted by {@code unregisterService} and {@code close()}. */
    STATIC,
    /**
     * A persistent node that outlives the process: deleted only by {@code unregisterService}, never by
     * {@code close()} (Curator deletes it on close: CURATOR-94).
     */
    PERMANENT,
    /** Like {@link #DYNAMIC}, but the node's name is the id followed by a sequence number (Curator's layout). */
    DYNAMIC_SEQUENTIAL;

    /** {@return true for the ephemeral types, {@link #DYNAMIC} and {@link #DYNAMIC_SEQUENTIAL}} */
    public boolean isDynamic() {
        return this == DYNAMIC || this == DYNAMIC_SEQUENTIAL;
    }
}
