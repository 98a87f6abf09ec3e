package dev.baton.recipes.barriers;

import dev.baton.internal.Monitor;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;

/**
 * The watcher that wakes a barrier call, and what the call waits on: a monitor for a blocking call
 * ({@link #await}), a future for an asynchronous one ({@link #next}). One instance per call (or per wait of a
 * call), so that a call that gives up can remove exactly its own watch. Every event counts as a wake-up, including
 * connection events; the caller re-reads the server's state after each one and never takes a wake-up itself as
 * progress (with one exception it asks for explicitly: {@link #sawCreated()}). {@link #giveUp()} ends the current
 * and every later wait as if its time had run out.
 */
final class Signal implements Watcher {
    private final Monitor lock = new Monitor();
    private int events;
    private boolean created;
    private boolean deleted;
    private boolean givenUp;
    /** The pending asynchronous wait, completed outside the monitor. */
    private @Nullable CompletableFuture<Boolean> next;

    @Override
    public void process(WatchedEvent event) {
        CompletableFuture<Boolean> waiting;
        synchronized (lock) {
            events++;
            if (event.getType() == Event.EventType.NodeCreated) {
                created = true;
            } else if (event.getType() == Event.EventType.NodeDeleted) {
                deleted = true;
            }
            lock.signalAll();
            waiting = next;
            next = null;
        }
        if (waiting != null) {
            waiting.complete(true);
        }
    }

    /** {@return the event count, to be passed to {@link #await} or {@link #next} after the watch was set} */
    int mark() {
        synchronized (lock) {
            return events;
        }
    }

    /** {@return true once a {@code NodeCreated} event arrived (meaningful when only one path is watched)} */
    boolean sawCreated() {
        synchronized (lock) {
            return created;
        }
    }

    /** {@return true once a {@code NodeDeleted} event arrived (meaningful when only one path is watched)} */
    boolean sawDeleted() {
        synchronized (lock) {
            return deleted;
        }
    }

    /**
     * Waits for an event after {@code mark}.
     *
     * @return true if one arrived, false if the deadline passed (or the wait was given up) first
     * @throws InterruptedException if interrupted
     */
    boolean await(int mark, Deadline deadline) throws InterruptedException {
        synchronized (lock) {
            BooleanSupplier ended = () -> events != mark || givenUp;
            if (deadline.isTimed()) {
                lock.await(ended, System.nanoTime() + deadline.remainingNanos());
            } else {
                lock.await(ended);
            }
            return events != mark;
        }
    }

    /**
     * Waits for an event after {@code mark} without a thread.
     *
     * @return a future of true once one arrived (at once if one did already), of false once the wait is given up
     */
    CompletableFuture<Boolean> next(int mark) {
        synchronized (lock) {
            if (events != mark) {
                return CompletableFuture.completedFuture(true);
            }
            if (givenUp) {
                return CompletableFuture.completedFuture(false);
            }
            if (next == null) {
                next = new CompletableFuture<>();
            }
            return next;
        }
    }

    /** Ends the current wait, and every later one that finds no new event, with false. */
    void giveUp() {
        CompletableFuture<Boolean> waiting;
        synchronized (lock) {
            givenUp = true;
            lock.signalAll();
            waiting = next;
            next = null;
        }
        if (waiting != null) {
            waiting.complete(false);
        }
    }
}
