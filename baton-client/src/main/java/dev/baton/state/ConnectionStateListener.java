package dev.baton.state;

import dev.baton.BatonClient;

/**
 * Told about every change of a client's {@link ConnectionState}, in the order the changes happened.
 * A listener added later sees only later changes.
 */
@FunctionalInterface
public interface ConnectionStateListener {

    /**
     * Called when the connection state changes. An exception thrown here is reported to the client's
     * unhandled-error listeners and does not stop other listeners.
     *
     * @param client the client whose state changed
     * @param newState the new state
     */
    void stateChanged(BatonClient client, ConnectionState newState);
}
