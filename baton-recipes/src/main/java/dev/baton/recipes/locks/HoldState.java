package dev.baton.recipes.locks;

/** What a lock holder may still assume about its hold. */
public enum HoldState {
    /** Held: the holder's node is in place on the holder's current session. */
    HELD,
    /**
     * The connection is lost and the session may or may not live: the hold may be lost. Under the standard
     * connection-state error policy, stop acting on the protected resource until {@link #HELD} again.
     */
    SUSPENDED,
    /** The session ended (or the node is gone): another process may hold the lock now. Release it. */
    LOST
}
