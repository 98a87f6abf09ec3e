package dev.baton.recipes.locks;

import java.time.Duration;

/**
 * One acquisition of a lock: the node that won it, its fencing token, and what is known about whether it is
 * still held. Releasing it (or closing it) deletes the node, retrying in the background if the connection is
 * down. Thread-safe; may be released from any thread.
 */
public interface Hold extends AutoCloseable {

    /** {@return the full path of the node that holds the lock} */
    String nodePath();

    /**
     * The fencing token of this hold: the czxid of its node. It strictly increases across successive holders
     * of the same lock, also when the lock's path is deleted and created again. Hand it to the resource the
     * lock protects, so the resource can refuse an older holder.
     *
     * @return the token
     */
    long fencingToken();

    /** {@return what the holder may assume now} */
    HoldState state();

    /**
     * {@return how long this process may still act as holder without hearing from the server;
     *         {@link Duration#ZERO} once released or lost}
     */
    Duration safeFor();

    /** {@return true until released or {@link HoldState#LOST}} */
    boolean isHeld();

    /**
     * Releases the hold: deletes its node, retrying in the background if the connection is down. Releasing
     * twice does nothing.
     */
    void release();

    /** Same as {@link #release()}. */
    @Override
    default void close() {
        release();
    }
}
