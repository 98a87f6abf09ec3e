package dev.baton.internal;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Runs tasks one at a time, in the order they were submitted, on an underlying executor. With a direct
 * underlying executor ({@code Runnable::run}) a task runs on the submitting thread, unless another thread is
 * already running this executor's tasks, in which case that thread runs it next. No thread of its own.
 *
 * <p>Recipes use it to deliver listener calls in order (a "became leader" never overtakes the "lost leadership"
 * before it) while their state changes arrive on different threads. Thread-safe.
 */
public final class SerialExecutor implements Executor {
    private final Executor delegate;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean draining;

    /**
     * @param delegate where the tasks run; {@code Runnable::run} for the submitting thread
     * @throws NullPointerException if {@code delegate} is null
     */
    public SerialExecutor(Executor delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /**
     * Queues a task. A task that throws does not stop the tasks after it.
     *
     * @param task the task
     * @throws NullPointerException if {@code task} is null
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        synchronized (queue) {
            queue.add(task);
            if (draining) {
                return;
            }
            draining = true;
        }
        try {
            delegate.execute(this::drain);
        } catch (RuntimeException e) {
            synchronized (queue) {
                draining = false;
            }
            throw e;
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (queue) {
                next = queue.poll();
                if (next == null) {
                    draining = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                // The task's own error handling reports it; keep the order for the rest.
            }
        }
    }
}
