package dev.baton.recipes.queue;

/**
 * What a queue with a lock path does with an item whose {@link QueueConsumer#consumeMessage} throws.
 */
public enum ErrorMode {
    /** Put the item back at the end of the queue (the default), so it is delivered again. */
    REQUEUE,
    /** Remove the item as if it had been consumed. */
    DELETE
}
