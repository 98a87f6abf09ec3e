package dev.baton.recipes.queue;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * A queue delivered in priority order: lower priority values first, FIFO among equal ones. Curator's layout:
 * item nodes {@code queue-<p><seq>}, where {@code <p>} encodes the priority so that names sort in priority order.
 * A consumer takes the items of one listing in order; after {@code minItemsBeforeRefresh} of them it lists again
 * if the queue changed, so a more urgent item put meanwhile overtakes the rest of that listing. Built by
 * {@link QueueBuilder#buildPriorityQueue(int)}.
 *
 * <pre>{@code
 * queue.put(alert, 0);     // before
 * queue.put(report, 10);   // after
 * }</pre>
 *
 * <p>Thread-safety: thread-safe.
 *
 * @param <T> the item type
 */
public final class DistributedPriorityQueue<T> extends QueueFacade<T> {

    DistributedPriorityQueue(DistributedQueue<T> queue) {
        super(queue);
    }

    /**
     * Puts an item with a priority.
     *
     * @param item the item
     * @param priority its priority; lower first
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code item} is null
     * @throws IllegalStateException if the queue is not started or is closed
     */
    public void put(T item, int priority) throws KeeperException, InterruptedException {
        Objects.requireNonNull(item, "item");
        queue.internalPut(Layout.priorityPrefix(priority), item, -1);
    }

    /**
     * As {@link #put(Object, int)}, waiting at most the given time for room in a bounded queue.
     *
     * @param item the item
     * @param priority its priority; lower first
     * @param maxWait how long to wait for room, {@code >= 0}
     * @param unit its unit
     * @return true if put, false if the queue stayed full for the whole time
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     */
    public boolean put(T item, int priority, long maxWait, TimeUnit unit)
            throws KeeperException, InterruptedException {
        Objects.requireNonNull(item, "item");
        return queue.internalPut(Layout.priorityPrefix(priority), item, DistributedQueue.nanos(maxWait, unit));
    }

    /**
     * Puts several items with one priority in one node.
     *
     * @param items the items
     * @param priority their priority
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code items} is null
     */
    public void putMulti(MultiItem<T> items, int priority) throws KeeperException, InterruptedException {
        Objects.requireNonNull(items, "items");
        queue.internalPutMulti(Layout.priorityPrefix(priority), items, -1);
    }
}
