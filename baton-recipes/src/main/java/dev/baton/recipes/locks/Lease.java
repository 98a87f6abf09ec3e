package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import org.apache.zookeeper.KeeperException;

/**
 * One lease of an {@link InterProcessSemaphoreV2}: its node under {@code <path>/leases}. Closing it (or
 * {@link InterProcessSemaphoreV2#returnLease returning} it) deletes the node, retrying in the background if the
 * connection is down. Thread-safe; may be closed from any thread; closing twice does nothing.
 */
public final class Lease implements AutoCloseable {
    private final BatonClient client;
    private final Hold hold;

    Lease(BatonClient client, Hold hold) {
        this.client = client;
        this.hold = Objects.requireNonNull(hold, "hold");
    }

    /**
     * Reads the lease node's data from the server, as Curator's {@code Lease.getData()} does.
     *
     * @return the data
     * @throws KeeperException.NoNodeException if the lease was returned or lost
     * @throws KeeperException if the read fails
     * @throws InterruptedException if interrupted while waiting
     */
    public byte[] getData() throws KeeperException, InterruptedException {
        return client.getData().forPath(hold.nodePath());
    }

    /** {@return the lease node's name, such as {@code _c_<uuid>-lease-0000000004}} */
    public String getNodeName() {
        return BatonPaths.nodeName(hold.nodePath());
    }

    /** {@return the lease node's full path} */
    public String getNodePath() {
        return hold.nodePath();
    }

    /**
     * {@return the lease's fencing token (the czxid of its node; see {@link Hold#fencingToken()}), empty once
     *         returned or lost}
     */
    public OptionalLong fencingToken() {
        return hold.isHeld() ? OptionalLong.of(hold.fencingToken()) : OptionalLong.empty();
    }

    /**
     * {@return how long this process may still use the lease without hearing from the server;
     *         {@link Duration#ZERO} once returned or lost}
     */
    public Duration safeFor() {
        return hold.safeFor();
    }

    /** {@return what the holder may assume now: held, possibly lost (SUSPENDED) or lost} */
    public HoldState state() {
        return hold.state();
    }

    /** {@return true until returned or {@link HoldState#LOST}} */
    public boolean isHeld() {
        return hold.isHeld();
    }

    /** The hold behind the lease, as {@link HoldListener}s see it. */
    Hold hold() {
        return hold;
    }

    /** Returns the lease: deletes its node (in the background if the connection is down). */
    @Override
    public void close() {
        hold.release();
    }

    @Override
    public String toString() {
        return "Lease[" + hold + "]";
    }
}
