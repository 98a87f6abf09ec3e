package dev.baton.listen;

import java.util.concurrent.Executor;

/**
 * Something listeners can be added to and removed from.
 *
 * @param <T> the listener type
 */
public interface Listenable<T> {

    /**
     * Adds a listener called on the container's default executor. Adding the same listener again replaces its
     * executor.
     *
     * @param listener the listener
     * @throws NullPointerException if {@code listener} is null
     */
    void addListener(T listener);

    /**
     * Adds a listener called on the given executor.
     *
     * @param listener the listener
     * @param executor where the listener is called
     * @throws NullPointerException if an argument is null
     */
    void addListener(T listener, Executor executor);

    /**
     * Removes a listener; does nothing if it was not added.
     *
     * @param listener the listener
     */
    void removeListener(T listener);
}
