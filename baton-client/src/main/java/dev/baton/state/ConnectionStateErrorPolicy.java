package dev.baton.state;

/**
 * Decides which connection states recipes treat as errors (for example: a leader gives up leadership, a lock
 * holder is told its hold may be lost).
 *
 * <p>{@link #STANDARD} (the default) treats {@link ConnectionState#SUSPENDED} and {@link ConnectionState#LOST}
 * as errors; {@link #SESSION} treats only {@link ConnectionState#LOST} as an error, trading safety during a
 * disconnection for fewer leadership changes.
 */
public interface ConnectionStateErrorPolicy {

    /** SUSPENDED and LOST are errors. */
    ConnectionStateErrorPolicy STANDARD = new StandardConnectionStateErrorPolicy();

    /** Only LOST is an error. */
    ConnectionStateErrorPolicy SESSION = new SessionConnectionStateErrorPolicy();

    /**
     * {@return true if recipes must treat the state as an error}
     *
     * @param state a connection state
     */
    boolean isErrorState(ConnectionState state);
}
