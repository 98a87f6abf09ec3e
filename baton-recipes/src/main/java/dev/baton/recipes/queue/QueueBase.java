package dev.baton.recipes.queue;

import dev.baton.listen.Listenable;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * What every queue built by {@link QueueBuilder} has: a lifecycle, put listeners, the error mode and a flush of
 * background puts.
 *
 * <p>Thread-safety: implementations are thread-safe.
 *
 * @param <T> the item type
 */
public interface QueueBase<T> extends AutoCloseable {

    /**
     * Creates the queue's path (and the lock path) if missing and, with a consumer, starts consuming.
     *
     * @throws KeeperException if ZooKeeper fails the creates
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if started before or closed
     */
    void start() throws KeeperException, InterruptedException;

    /**
     * Stops consuming, flushes background puts for the builder's final flush time, and removes everything this
     * queue left on the server (its watch, any lock node it holds, its producer marker). Idempotent.
     */
    @Override
    void close();

    /** {@return the put listeners} */
    Listenable<QueuePutListener<T>> getPutListenerContainer();

    /**
     * Sets what happens to an item whose {@code consumeMessage} throws.
     *
     * @param newErrorMode the mode
     * @throws NullPointerException if {@code newErrorMode} is null
     * @throws IllegalStateException if the queue has no lock path (without one, an item is removed before it
     *         is consumed)
     */
    void setErrorMode(ErrorMode newErrorMode);

    /**
     * Waits until every put made so far has reached ZooKeeper (or failed).
     *
     * @param waitTime how long to wait, {@code >= 0}
     * @param timeUnit its unit
     * @return true if none is pending any more, false if the time ran out
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code waitTime} is negative
     */
    boolean flushPuts(long waitTime, TimeUnit timeUnit) throws InterruptedException;

    /** {@return how many items the consumer's last listing of the queue held (for information only)} */
    int getLastMessageCount();
}
