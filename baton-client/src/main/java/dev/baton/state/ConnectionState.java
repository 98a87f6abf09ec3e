package dev.baton.state;

/**
 * The state of a client's connection to ZooKeeper, as delivered to {@link ConnectionStateListener}s.
 */
public enum ConnectionState {
    /** The first successful connection of the client; delivered once. */
    CONNECTED(true),
    /** The connection was lost; the session may still live on the server. */
    SUSPENDED(false),
    /** Connected again after {@link #SUSPENDED} or {@link #LOST}, on the same session or a new one. */
    RECONNECTED(true),
    /**
     * The session is gone: the server expired it, or the client has been suspended for longer than the
     * simulated session expiration allows. Everything the session owned (ephemeral nodes, watches) is gone.
     * The client makes a new session by itself; {@link #RECONNECTED} follows once it is connected.
     */
    LOST(false),
    /** Connected to a server in read-only mode (only with {@code canBeReadOnly}). */
    READ_ONLY(true);

    private final boolean connected;

    ConnectionState(boolean connected) {
        this.connected = connected;
    }

    /** {@return true if this state means the client can talk to a server} */
    public boolean isConnected() {
        return connected;
    }
}
