package dev.baton;

/**
 * Receives the result of an operation run {@code inBackground(callback)}. Called on ZooKeeper's event thread
 * unless an executor was given (after a retry under the retry policy, possibly on the client's scheduler thread);
 * it should not block for long there. Anything it throws is reported to the client's unhandled-error listeners.
 */
@FunctionalInterface
public interface BackgroundCallback {

    /**
     * Receives the outcome of one background operation.
     *
     * @param client the client that ran the operation
     * @param event the outcome
     * @throws Exception anything; reported as an unhandled error
     */
    void processResult(BatonClient client, BatonEvent event) throws Exception;
}
