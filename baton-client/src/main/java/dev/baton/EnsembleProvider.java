package dev.baton;

/**
 * Tells the client which ZooKeeper servers to connect to. The client asks for the connect string each time it
 * opens a session; with ensemble tracking on, it also reports a reconfigured ensemble back through
 * {@link #setConnectionString(String)}.
 *
 * <p>Implementations must be thread-safe.
 */
public interface EnsembleProvider {

    /** {@return the current connect string, such as {@code "host1:2181,host2:2181"}} */
    String getConnectionString();

    /**
     * Told the ensemble's new connect string after a reconfiguration. The client then moves its session to what
     * {@link #getConnectionString()} answers, so a provider that reaches the servers through other addresses (a
     * NAT, proxies) maps the new string to its own here. The default ignores it.
     *
     * @param connectionString the new connect string
     */
    default void setConnectionString(String connectionString) {
    }

    /**
     * {@return true if the client may move a live session to a reconfigured server list
     *         ({@code ZooKeeper.updateServerList}); the default is true}
     */
    default boolean updateServerListEnabled() {
        return true;
    }
}
