package dev.baton;

import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;

/**
 * The last step of an operation that takes a path: run it and wait ({@link #forPath}), or run it and get a
 * future ({@link #forPathAsync}).
 *
 * @param <T> the operation's result
 */
public interface Pathable<T> {

    /**
     * Runs the operation and waits for its result, retrying under the client's retry policy.
     *
     * @param path the node's path (under the client's namespace, if any)
     * @return the result
     * @throws KeeperException what ZooKeeper answered, such as {@link KeeperException.NoNodeException}, or
     *         {@link KeeperException.ConnectionLossException} when retries ran out
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws IllegalArgumentException if the path is invalid
     * @throws IllegalStateException if the client is not started or is closed
     */
    T forPath(String path) throws KeeperException, InterruptedException;

    /**
     * Runs the operation without blocking. The future completes on ZooKeeper's event thread (or the client's
     * scheduler thread after a retry); dependent stages that block should use an {@code *Async} stage.
     *
     * @param path the node's path (under the client's namespace, if any)
     * @return the result, or a future failed with the {@link KeeperException}
     * @throws IllegalArgumentException if the path is invalid
     * @throws IllegalStateException if the client is not started or is closed
     */
    CompletableFuture<T> forPathAsync(String path);
}
