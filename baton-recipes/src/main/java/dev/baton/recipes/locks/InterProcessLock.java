package dev.baton.recipes.locks;

import dev.baton.listen.Listenable;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * A lock shared by processes through ZooKeeper. Implementations are thread-safe.
 *
 * <p>Beyond Curator's interface: a holder learns when its hold may be lost or is lost
 * ({@link #getHoldListenable()}), gets a fencing token for each hold ({@link #fencingToken()}), and a local
 * deadline ({@link #safeFor()}).
 */
public interface InterProcessLock {

    /**
     * Waits until the lock is acquired.
     *
     * @throws KeeperException if ZooKeeper fails in a way retries did not fix
     * @throws InterruptedException if interrupted while waiting; nothing of this attempt stays on the server
     */
    void acquire() throws KeeperException, InterruptedException;

    /**
     * Waits until the lock is acquired or the time runs out.
     *
     * @param time how long to wait, {@code >= 0}
     * @param unit the unit of {@code time}
     * @return true if acquired; false on timeout, leaving nothing of this attempt on the server
     * @throws KeeperException if ZooKeeper fails in a way retries did not fix
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code time} is negative
     */
    boolean acquire(long time, TimeUnit unit) throws KeeperException, InterruptedException;

    /**
     * Releases one acquisition. The lock's node is deleted; if the connection is down, the delete is retried in
     * the background, so a released lock never leaves a node that blocks later acquirers.
     *
     * @throws IllegalMonitorStateException if the caller does not hold the lock
     */
    void release();

    /** {@return true if this process holds the lock and has not learned that the hold is lost} */
    boolean isAcquiredInThisProcess();

    /**
     * {@return the fencing token of the caller's hold (see {@link Hold#fencingToken()}); empty when the caller
     *         does not hold the lock or its hold is lost}
     */
    OptionalLong fencingToken();

    /**
     * {@return how long the caller may still act as holder without hearing from the server;
     *         {@link Duration#ZERO} when it does not hold the lock}
     */
    Duration safeFor();

    /** {@return listeners told when a hold of this lock may be lost, is lost, or is confirmed again} */
    Listenable<HoldListener> getHoldListenable();
}
