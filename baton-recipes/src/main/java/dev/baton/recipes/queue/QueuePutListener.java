package dev.baton.recipes.queue;

/**
 * Told when a put has reached ZooKeeper, for puts in the background ({@link QueueBuilder#putInBackground}) as
 * well as in the foreground.
 *
 * <p>Thread-safety: called on the executor the listener was added with (by default ZooKeeper's event thread or
 * the putting thread): return quickly.
 *
 * @param <T> the item type
 */
public interface QueuePutListener<T> {

    /**
     * Called once a put of one item has reached ZooKeeper.
     *
     * @param item the item that is now in the queue
     */
    void putCompleted(T item);

    /**
     * Called once a put of several items in one node ({@code putMulti}) has reached ZooKeeper.
     *
     * @param items the multi-item (already read) that is now in the queue
     */
    void putMultiCompleted(MultiItem<T> items);
}
