package dev.baton.recipes.queue;

import dev.baton.state.ConnectionStateListener;

/**
 * Receives a queue's items. The queue also registers the consumer as a connection-state listener of its client
 * while the queue is started: with a lock path, {@code SUSPENDED} means the item being consumed may be taken over
 * by another consumer if the session ends, and {@code LOST} means it may be (its lock node is gone); a consumer
 * that must never work on an item at the same time as another stops on {@code LOST}, as a lock holder does.
 *
 * <p>Thread-safety: {@link #consumeMessage} is called for one item at a time per queue, on the queue's executor.
 *
 * @param <T> the item type
 */
public interface QueueConsumer<T> extends ConnectionStateListener {

    /**
     * Consumes one item. Without a lock path the item is already removed from the queue; with one, it is removed
     * only after this method returns, and if it throws, the queue's {@link ErrorMode} decides.
     *
     * @param message the item
     * @throws Exception anything; logged, and with a lock path handled per {@link ErrorMode}
     */
    void consumeMessage(T message) throws Exception;
}
