package dev.baton.internal;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A private monitor: the lock object of a class that must not lock on {@code this} (a caller synchronizing on
 * a public instance could otherwise stall it), with the wait-until-a-condition loop written once. Callers hold
 * it with {@code synchronized (lock)} around the state it guards, call {@link #signalAll()} when that state
 * changes, and {@link #await(BooleanSupplier)} or {@link #await(BooleanSupplier, long)} to wait for it.
 *
 * <p>Every method must be called by a thread that holds this monitor ({@code synchronized (lock)}); otherwise
 * it throws {@link IllegalMonitorStateException}. Thread-safe.
 */
public final class Monitor {

    /** Creates a monitor. */
    public Monitor() {
    }

    /**
     * Waits, releasing this monitor meanwhile, until {@code condition} holds; spurious wake-ups are waited
     * through. The condition is evaluated with this monitor held.
     *
     * @param condition when to stop waiting
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalMonitorStateException if the calling thread does not hold this monitor
     */
    public void await(BooleanSupplier condition) throws InterruptedException {
        while (!condition.getAsBoolean()) {
            wait();
        }
    }

    /**
     * Waits, releasing this monitor meanwhile, until {@code condition} holds or the deadline passes; spurious
     * wake-ups are waited through. The condition is evaluated with this monitor held, first before any wait.
     *
     * @param condition when to stop waiting
     * @param deadlineNanos when to give up, on the {@link System#nanoTime()} scale
     * @return true if the condition holds, false if the deadline passed first
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalMonitorStateException if the calling thread does not hold this monitor
     */
    public boolean await(BooleanSupplier condition, long deadlineNanos) throws InterruptedException {
        while (!condition.getAsBoolean()) {
            long leftNanos = deadlineNanos - System.nanoTime();
            if (leftNanos <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, leftNanos);
        }
        return true;
    }

    /**
     * Wakes every thread waiting in {@code await}, to evaluate its condition again.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold this monitor
     */
    public void signalAll() {
        notifyAll();
    }
}
