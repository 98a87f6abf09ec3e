package dev.baton.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Remembers things that happen on other threads (connection states, watched events) in arrival order, and lets
 * a demo wait for one of them. To wait for the effect of an action without missing a fast answer, take a
 * {@link #mark()} before the action and {@link #await} from that mark after it.
 *
 * <p>Thread-safe.
 *
 * @param <T> what is recorded
 */
final class Recorder<T> {

    private final List<T> items = new ArrayList<>();

    /**
     * Records an item and wakes the waiters.
     *
     * @param item what happened
     */
    synchronized void record(T item) {
        items.add(item);
        notifyAll();
    }

    /**
     * {@return the position the next recorded item will take}
     */
    synchronized int mark() {
        return items.size();
    }

    /**
     * {@return a copy of everything recorded so far, in order}
     */
    synchronized List<T> items() {
        return List.copyOf(items);
    }

    /**
     * Waits for an item recorded at or after {@code from} that matches.
     *
     * @param from a position from {@link #mark()}
     * @param matcher which item to wait for
     * @param timeout how long to wait at most
     * @param what the awaited thing, for the exception's message
     * @return the first matching item at or after {@code from}
     * @throws DemoException if no such item is recorded in time
     * @throws InterruptedException if interrupted while waiting
     */
    synchronized T await(int from, Predicate<? super T> matcher, Duration timeout, String what)
            throws DemoException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int next = from;
        while (true) {
            for (; next < items.size(); next++) {
                T item = items.get(next);
                if (matcher.test(item)) {
                    return item;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new DemoException("gave up waiting for " + what + " after " + timeout.toSeconds() + "s");
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }
}
