package dev.baton;

import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;

/**
 * The last step of an operation that takes a path and data. The one-argument forms use empty data.
 *
 * @param <T> the operation's result
 */
public interface PathAndBytesable<T> extends Pathable<T> {

    /**
     * As {@link #forPath(String)}, with data.
     *
     * @param path the node's path
     * @param data the data, not null
     * @return the result
     * @throws KeeperException what ZooKeeper answered
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    T forPath(String path, byte[] data) throws KeeperException, InterruptedException;

    /**
     * As {@link #forPathAsync(String)}, with data.
     *
     * @param path the node's path
     * @param data the data, not null
     * @return the result, or a future failed with the {@link KeeperException}
     */
    CompletableFuture<T> forPathAsync(String path, byte[] data);
}
