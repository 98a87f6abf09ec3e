package dev.baton.recipes.barriers;

import dev.baton.BatonClient;
import dev.baton.BatonPaths;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/**
 * A barrier that holds processes back while its node exists: {@link #setBarrier()} creates the node,
 * {@link #removeBarrier()} deletes it, and {@link #waitOnBarrier()} blocks until it is gone. Wire-compatible with
 * Apache Curator's {@code DistributedBarrier} on the same path (the barrier is the persistent node at the path).
 *
 * <pre>{@code
 * DistributedBarrier barrier = new DistributedBarrier(client, "/jobs/nightly/hold");
 * barrier.setBarrier();                               // the coordinator closes the gate
 * ...
 * if (barrier.waitOnBarrier(5, TimeUnit.MINUTES)) {   // workers wait for the gate to open
 *     runJob();
 * }
 * ...
 * barrier.removeBarrier();                            // the coordinator opens it; every waiter wakes
 * }</pre>
 *
 * <p>A waiting thread sleeps on a monitor woken by a data watch on the barrier node; the barrier has no thread
 * of its own. A waiter re-reads the node after every wake-up (including connection events), so it returns only
 * once the node is really gone. A wait that times out or is interrupted removes its watch from the server.
 *
 * <p>Thread-safe: any number of threads may wait on one instance.
 */
public final class DistributedBarrier {
    private final BatonClient client;
    private final String barrierPath;

    /**
     * @param client the client
     * @param barrierPath the barrier node's path
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public DistributedBarrier(BatonClient client, String barrierPath) {
        this.client = Objects.requireNonNull(client, "client");
        this.barrierPath = BatonPaths.validate(Objects.requireNonNull(barrierPath, "barrierPath"));
    }

    /**
     * Sets the barrier: creates its node (and missing parents, as container nodes). Setting a barrier that is
     * already set does nothing.
     *
     * @throws KeeperException if ZooKeeper fails the create, such as
     *         {@link KeeperException.ConnectionLossException} when retries ran out
     * @throws InterruptedException if interrupted while waiting
     */
    public void setBarrier() throws KeeperException, InterruptedException {
        try {
            client.create().creatingParentContainersIfNeeded().forPath(barrierPath);
        } catch (KeeperException.NodeExistsException e) {
            // Set already: what the caller wants.
        }
    }

    /**
     * Removes the barrier, waking every waiter. Removing a barrier that is not set does nothing.
     *
     * @throws KeeperException if ZooKeeper fails the delete
     * @throws InterruptedException if interrupted while waiting
     */
    public void removeBarrier() throws KeeperException, InterruptedException {
        client.delete().quietly().forPath(barrierPath);
    }

    /**
     * Blocks until the barrier is removed (returns at once if it is not set).
     *
     * @throws KeeperException if the barrier node cannot be read, such as
     *         {@link KeeperException.ConnectionLossException} when the connection stays down
     * @throws InterruptedException if interrupted while waiting
     */
    public void waitOnBarrier() throws KeeperException, InterruptedException {
        await(Deadline.NONE);
    }

    /**
     * Blocks until the barrier is removed or the time runs out.
     *
     * @param maxWait how long to wait, {@code >= 0}
     * @param unit the unit of {@code maxWait}
     * @return true if the barrier is not set (any more), false if the time ran out
     * @throws KeeperException if the barrier node cannot be read
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws NullPointerException if {@code unit} is null
     */
    public boolean waitOnBarrier(long maxWait, TimeUnit unit) throws KeeperException, InterruptedException {
        return await(Deadline.after(maxWait, unit, "maxWait"));
    }

    private boolean await(Deadline deadline) throws KeeperException, InterruptedException {
        Signal signal = new Signal();
        WatchScope watches = new WatchScope(client, signal);
        boolean done = false;
        try {
            while (true) {
                int mark = signal.mark();
                try {
                    // getData, not exists: on a missing node it leaves no watch behind.
                    watches.watching(barrierPath, Watcher.WatcherType.Data);
                    client.getData().usingWatcher(signal).forPath(barrierPath);
                } catch (KeeperException.NoNodeException e) {
                    done = true;
                    return true;
                }
                if (!signal.await(mark, deadline)) {
                    return false;
                }
            }
        } finally {
            watches.close(!done); // timed out, interrupted or failed: take our watch off the server
        }
    }

    /** @return the barrier node's path */
    public String getPath() {
        return barrierPath;
    }
}
