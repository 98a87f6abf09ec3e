package dev.baton.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * An executor whose tasks a blocked caller runs while it waits for a result: a blocking recipe call hands the
 * work its callbacks would do to the thread that waits for it, so the whole call runs on that one thread, and
 * ZooKeeper's event thread only passes results along. Once the caller stops waiting, tasks run on whichever
 * thread submits them.
 *
 * <p>Use it as the delegate of a {@link SerialExecutor}, which hands it one task at a time. Thread-safe.
 */
public final class CallerExecutor implements Executor {
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    /** The caller is still in {@link #runUntil}, or has not entered it yet. */
    @GuardedBy("tasks")
    private boolean open = true;

    @Override
    public void execute(Runnable task) {
        synchronized (tasks) {
            if (open) {
                tasks.add(task);
                tasks.notifyAll();
                return;
            }
        }
        task.run();
    }

    /**
     * Runs the submitted tasks on the calling thread until {@code done} completes and no task is left; from then
     * on tasks run where they are submitted. Also returns that way when interrupted, after running what was
     * already submitted.
     *
     * @param done completes when the caller has its result
     * @throws InterruptedException if interrupted while waiting for a task
     */
    public void runUntil(CompletableFuture<?> done) throws InterruptedException {
        Futures.whenDone(done, (v, e) -> {
            synchronized (tasks) {
                tasks.notifyAll();
            }
        });
        try {
            while (true) {
                Runnable next;
                synchronized (tasks) {
                    while (tasks.isEmpty() && !done.isDone()) {
                        tasks.wait();
                    }
                    next = tasks.poll();
                    if (next == null) {
                        open = false;
                        return;
                    }
                }
                next.run();
            }
        } finally {
            ArrayDeque<Runnable> left;
            synchronized (tasks) {
                open = false;
                left = new ArrayDeque<>(tasks);
                tasks.clear();
            }
            left.forEach(Runnable::run);
        }
    }
}
