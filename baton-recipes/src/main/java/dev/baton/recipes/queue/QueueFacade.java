package dev.baton.recipes.queue;

import dev.baton.listen.Listenable;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * What the id, priority and delay queues share: a {@link DistributedQueue} on their own layout, to which their
 * lifecycle, listeners, error mode and flush are handed. Thread-safe, as the queue.
 *
 * @param <T> the item type
 */
abstract class QueueFacade<T> implements QueueBase<T> {
    final DistributedQueue<T> queue;

    QueueFacade(DistributedQueue<T> queue) {
        this.queue = queue;
    }

    @Override
    public void start() throws KeeperException, InterruptedException {
        queue.start();
    }

    @Override
    public void close() {
        queue.close();
    }

    @Override
    public Listenable<QueuePutListener<T>> getPutListenerContainer() {
        return queue.getPutListenerContainer();
    }

    @Override
    public void setErrorMode(ErrorMode newErrorMode) {
        queue.setErrorMode(newErrorMode);
    }

    @Override
    public boolean flushPuts(long waitTime, TimeUnit timeUnit) throws InterruptedException {
        return queue.flushPuts(waitTime, timeUnit);
    }

    @Override
    public int getLastMessageCount() {
        return queue.getLastMessageCount();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + queue.getPath() + "]";
    }
}
