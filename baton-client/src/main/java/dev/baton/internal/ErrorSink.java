package dev.baton.internal;

import dev.baton.BatonClient;

/**
 * Where a recipe's background work reports a failure no caller is waiting for (a latch's node that could not be
 * created, a cache that may not read its path): the client's unhandled-error listeners
 * ({@link BatonClient#getUnhandledErrorListenable()}), so a {@code NoAuthException} reaches the user instead of
 * only a log line. Implemented by Baton's own client.
 */
public interface ErrorSink {

    /**
     * Passes {@code error} to the unhandled-error listeners of {@code client}, if it is Baton's own client.
     *
     * @param client the client the recipe works with
     * @param message what failed
     * @param error the failure
     */
    static void report(BatonClient client, String message, Throwable error) {
        if (client instanceof ErrorSink sink) {
            sink.reportError(message, error);
        }
    }

    /**
     * Passes {@code error} to the unhandled-error listeners.
     *
     * @param message what failed
     * @param error the failure
     */
    void reportError(String message, Throwable error);
}
