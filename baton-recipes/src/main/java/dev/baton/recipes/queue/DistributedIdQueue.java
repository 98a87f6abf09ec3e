package dev.baton.recipes.queue;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * A {@link DistributedQueue} whose items carry an id, by which queued items can be removed. Curator's layout:
 * item nodes {@code queue-|<id>|<seq>} ({@code /} and {@code |} in the id become {@code _}), delivered FIFO by
 * sequence. Built by {@link QueueBuilder#buildIdQueue()}.
 *
 * <pre>{@code
 * queue.put(order, order.id());
 * int removed = queue.remove(order.id());   // cancelled before anyone consumed it
 * }</pre>
 *
 * <p>Thread-safety: thread-safe.
 *
 * @param <T> the item type
 */
public final class DistributedIdQueue<T> extends QueueFacade<T> {

    DistributedIdQueue(DistributedQueue<T> queue) {
        super(queue);
    }

    /**
     * Puts an item with an id (ids need not be unique).
     *
     * @param item the item
     * @param itemId its id, not empty
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code itemId} is empty
     * @throws IllegalStateException if the queue is not started or is closed
     */
    public void put(T item, String itemId) throws KeeperException, InterruptedException {
        Objects.requireNonNull(item, "item");
        queue.internalPut(Layout.idPrefix(checkId(itemId)), item, -1);
    }

    /**
     * As {@link #put(Object, String)}, waiting at most the given time for room in a bounded queue.
     *
     * @param item the item
     * @param itemId its id, not empty
     * @param maxWait how long to wait for room, {@code >= 0}
     * @param unit its unit
     * @return true if put, false if the queue stayed full for the whole time
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code itemId} is empty or {@code maxWait} negative
     */
    public boolean put(T item, String itemId, long maxWait, TimeUnit unit)
            throws KeeperException, InterruptedException {
        Objects.requireNonNull(item, "item");
        return queue.internalPut(Layout.idPrefix(checkId(itemId)), item, DistributedQueue.nanos(maxWait, unit));
    }

    /**
     * Removes every queued item with this id that no consumer holds. With a lock path, an item is removed only
     * under its lock node (created and deleted in the same transaction), so an item being consumed stays.
     *
     * @param itemId the id
     * @return how many items were removed
     * @throws KeeperException if ZooKeeper fails the listing
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code itemId} is null
     * @throws IllegalStateException if the queue is not started or is closed
     */
    public int remove(String itemId) throws KeeperException, InterruptedException {
        Objects.requireNonNull(itemId, "itemId");
        queue.checkStarted();
        QueueBuilder.Config<T> config = queue.config();
        BatonClient client = config.client();
        String wanted = Layout.idOf(Layout.idPrefix(itemId) + "0");
        int removed = 0;
        List<String> children = client.getChildren().forPath(config.queuePath());
        for (String name : children) {
            if (!Layout.ID.isItem(name) || !Layout.idOf(name).equals(wanted)) {
                continue;
            }
            String itemPath = BatonPaths.makePath(config.queuePath(), name);
            try {
                if (config.lockPath() == null) {
                    client.delete().forPath(itemPath);
                } else {
                    String lockNode = BatonPaths.makePath(config.lockPath(), name);
                    var op = client.transactionOp();
                    client.transaction().forOperations(op.create().withMode(CreateMode.EPHEMERAL).forPath(lockNode),
                            op.delete().forPath(itemPath), op.delete().forPath(lockNode));
                }
                removed++;
            } catch (KeeperException.NoNodeException | KeeperException.NodeExistsException e) {
                // consumed meanwhile, or being consumed
            }
        }
        return removed;
    }

    private static String checkId(String itemId) {
        Objects.requireNonNull(itemId, "itemId");
        if (itemId.isEmpty()) {
            throw new IllegalArgumentException("itemId must not be empty");
        }
        return itemId;
    }
}
