package dev.baton;

import dev.baton.state.ConnectionState;

/**
 * Sees every operation a client runs and every change of its connection state: the hook that metrics and
 * tracing systems plug into ({@code baton-micrometer} records through it). Register one with
 * {@link BatonClient#getOperationListenable()}; a client with none registered pays nothing for the hook beyond
 * one check per operation.
 *
 * <pre>{@code
 * client.getOperationListenable().addListener(event -> {
 *     if (!event.isOk()) {
 *         log.warn("{} {} failed with {} after {} retries", event.type(), event.path(), event.resultCode(),
 *                 event.retries());
 *     }
 * });
 * }</pre>
 *
 * <p>Unless the listener was added with an executor, both methods are called on the thread that saw the
 * outcome (the caller's thread for a blocking operation, ZooKeeper's event thread or the client's scheduler for
 * an asynchronous one, the thread that noticed a connection change), so they must be quick and must not block
 * or call the client. An exception thrown here is reported to the client's unhandled-error listeners and does
 * not reach the operation.
 */
@FunctionalInterface
public interface OperationListener {

    /**
     * Called once per operation, after its last attempt: with its result, or with its failure once the retry
     * policy gave up. An operation that was refused before any request (a bad path, a closed client) is not
     * reported.
     *
     * @param event what ran and how it ended
     */
    void operationCompleted(OperationEvent event);

    /**
     * Called for every connection state the client posts, in the order they happened, before the client's
     * {@link dev.baton.state.ConnectionStateListener}s hear of it. Does nothing unless overridden.
     *
     * @param newState the new state
     */
    default void connectionStateChanged(ConnectionState newState) {
    }
}
