package dev.baton;

import java.util.concurrent.Executor;

/**
 * Runs an operation in the background, Curator style: {@code inBackground(callback)} goes just before
 * {@code forPath}, and the result arrives as a {@link BatonEvent}.
 *
 * @param <B> the last step, whose {@code forPath} returns at once
 */
public interface Backgroundable<B> {

    /** {@return the last step; the result goes to the client's {@link BatonClient#getEventListenable()}} */
    B inBackground();

    /**
     * {@return the last step}
     *
     * @param callback receives the result, on ZooKeeper's event thread
     * @throws NullPointerException if {@code callback} is null
     */
    B inBackground(BackgroundCallback callback);

    /**
     * {@return the last step}
     *
     * @param callback receives the result
     * @param executor where the callback runs
     * @throws NullPointerException if an argument is null
     */
    B inBackground(BackgroundCallback callback, Executor executor);
}
