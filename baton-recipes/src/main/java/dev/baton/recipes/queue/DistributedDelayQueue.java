package dev.baton.recipes.queue;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * A queue whose items are each delivered no earlier than a given time, in order of that time. Curator's layout:
 * item nodes {@code queue-|<epoch ms in hex>|<seq>}. The consumer waits for the earliest item's time on the
 * client's scheduler (no thread of its own), and looks again at once when an item is put meanwhile. Times are
 * compared with this JVM's clock. Built by {@link QueueBuilder#buildDelayQueue()}.
 *
 * <pre>{@code
 * queue.put(reminder, System.currentTimeMillis() + TimeUnit.MINUTES.toMillis(15));
 * }</pre>
 *
 * <p>Thread-safety: thread-safe.
 *
 * @param <T> the item type
 */
public final class DistributedDelayQueue<T> extends QueueFacade<T> {

    DistributedDelayQueue(DistributedQueue<T> queue) {
        super(queue);
    }

    /**
     * Puts an item to be delivered no earlier than {@code delayUntilEpochMillis}.
     *
     * @param item the item
     * @param delayUntilEpochMillis the earliest delivery time, in milliseconds since the epoch, {@code > 0}
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code item} is null
     * @throws IllegalArgumentException if {@code delayUntilEpochMillis <= 0}
     * @throws IllegalStateException if the queue is not started or is closed
     */
    public void put(T item, long delayUntilEpochMillis) throws KeeperException, InterruptedException {
        Objects.requireNonNull(item, "item");
        queue.internalPut(Layout.delayPrefix(checkEpoch(delayUntilEpochMillis)), item, -1);
    }

    /**
     * As {@link #put(Object, long)}, waiting at most the given time for room in a bounded queue.
     *
     * @param item the item
     * @param delayUntilEpochMillis the earliest delivery time, {@code > 0}
     * @param maxWait how long to wait for room, {@code >= 0}
     * @param unit its unit
     * @return true if put, false if the queue stayed full for the whole time
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code delayUntilEpochMillis <= 0} or {@code maxWait} is negative
     */
    public boolean put(T item, long delayUntilEpochMillis, long maxWait, TimeUnit unit)
            throws KeeperException, InterruptedException {
        Objects.requireNonNull(item, "item");
        return queue.internalPut(Layout.delayPrefix(checkEpoch(delayUntilEpochMillis)), item,
                DistributedQueue.nanos(maxWait, unit));
    }

    /**
     * Puts several items with one delivery time in one node.
     *
     * @param items the items
     * @param delayUntilEpochMillis the earliest delivery time, {@code > 0}
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code items} is null
     * @throws IllegalArgumentException if {@code delayUntilEpochMillis <= 0}
     */
    public void putMulti(MultiItem<T> items, long delayUntilEpochMillis) throws KeeperException, InterruptedException {
        Objects.requireNonNull(items, "items");
        queue.internalPutMulti(Layout.delayPrefix(checkEpoch(delayUntilEpochMillis)), items, -1);
    }

    private static long checkEpoch(long epoch) {
        if (epoch <= 0) {
            throw new IllegalArgumentException("delayUntilEpochMillis must be positive: " + epoch);
        }
        return epoch;
    }
}
