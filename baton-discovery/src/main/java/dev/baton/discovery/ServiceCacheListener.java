package dev.baton.discovery;

import dev.baton.BatonClient;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;

/**
 * Told when a {@link ServiceCache}'s instances change, and (as a {@link ConnectionStateListener}) of the client's
 * connection states. Only {@link #cacheChanged()} must be written, so a lambda will do.
 */
@FunctionalInterface
public interface ServiceCacheListener extends ConnectionStateListener {

    /**
     * The cached instances changed (an instance registered, updated or unregistered), after the initial load. Read
     * {@link ServiceCache#getInstances()} for the new list. Called on ZooKeeper's event thread unless the listener
     * was added with an executor: return quickly.
     */
    void cacheChanged();

    /** Does nothing by default. {@inheritDoc} */
    // As Curator's: a cache listener is a connection-state listener too, and a lambda is its cacheChanged() alone.
    @SuppressWarnings("FunctionalInterfaceMethodChanged")
    @Override
    default void stateChanged(BatonClient client, ConnectionState newState) {
    }
}
