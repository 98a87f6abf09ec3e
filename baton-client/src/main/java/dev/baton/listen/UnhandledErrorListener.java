package dev.baton.listen;

/**
 * Told about errors that have no caller to go to: failures of background work (a guaranteed delete that keeps
 * failing, an orphan cleanup) and exceptions thrown by listeners and callbacks.
 */
@FunctionalInterface
public interface UnhandledErrorListener {

    /**
     * Called with the error.
     *
     * @param message what was being done
     * @param e the error
     */
    void unhandledError(String message, Throwable e);
}
