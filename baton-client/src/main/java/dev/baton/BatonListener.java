package dev.baton;

/**
 * Receives results of operations run with a bare {@code inBackground()} and events of watches set with
 * {@code watched()}, through {@link BatonClient#getEventListenable()}.
 */
@FunctionalInterface
public interface BatonListener {

    /**
     * Receives one background result or watched event.
     *
     * @param client the client
     * @param event the result or watched event
     * @throws Exception anything; reported as an unhandled error
     */
    void eventReceived(BatonClient client, BatonEvent event) throws Exception;
}
