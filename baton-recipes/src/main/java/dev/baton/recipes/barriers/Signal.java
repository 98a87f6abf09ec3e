package dev.baton.recipes.barriers;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * The monitor a blocking barrier call waits on, and the watcher that wakes it. One instance per call, so that a
 * call that gives up can remove exactly its own watch. Every event counts as a wake-up, including connection
 * events; the caller re-reads the server's state after each one and never takes a wake-up itself as progress
 * (with one exception it asks for explicitly: {@link #sawCreated()}).
 */
final class Signal implements Watcher {
    private int events;
    private boolean created;
    private boolean deleted;

    @Override
    public synchronized void process(WatchedEvent event) {
        events++;
        if (event.getType() == Event.EventType.NodeCreated) {
            created = true;
        } else if (event.getType() == Event.EventType.NodeDeleted) {
            deleted = true;
        }
        notifyAll();
    }

    /** @return the event count, to be passed to {@link #await} after the watch was set */
    synchronized int mark() {
        return events;
    }

    /** @return true once a {@code NodeCreated} event arrived (meaningful when only one path is watched) */
    synchronized boolean sawCreated() {
        return created;
    }

    /** @return true once a {@code NodeDeleted} event arrived (meaningful when only one path is watched) */
    synchronized boolean sawDeleted() {
        return deleted;
    }

    /**
     * Waits for an event after {@code mark}.
     *
     * @return true if one arrived, false if the deadline passed first
     * @throws InterruptedException if interrupted
     */
    synchronized boolean await(int mark, Deadline deadline) throws InterruptedException {
        while (events == mark) {
            long left = deadline.remainingNanos();
            if (left <= 0) {
                return false;
            }
            if (deadline.isTimed()) {
                long ms = Math.max(1, (left + 999_999) / 1_000_000);
                wait(ms);
            } else {
                wait();
            }
        }
        return true;
    }
}
