package dev.baton.cli;

import dev.baton.recipes.locks.InterProcessSemaphoreMutex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code baton demo semaphore-mutex}: three schedulers share a nightly batch through an
 * {@link InterProcessSemaphoreMutex}. The holder hands the batch to a worker thread, which releases the lock when
 * the batch is done (any thread may release this lock); the lock is not re-entrant, so even its holder cannot
 * take it twice; the others wait without a thread and take their turns.
 */
final class SemaphoreMutexDemo implements Demo {

    static final String PATH = "/demo-semaphore-mutex";
    private static final String[] SCHEDULERS = {"alice", "bob", "carol"};
    private static final Duration WORK = Duration.ofMillis(500);

    @Override
    public String name() {
        return "semaphore-mutex";
    }

    @Override
    public List<String> aliases() {
        return List.of("InterProcessSemaphoreMutex");
    }

    @Override
    public String description() {
        return "a mutex that is not re-entrant: the holder's worker thread releases it, the others take turns";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        List<InterProcessSemaphoreMutex> locks = new ArrayList<>();
        for (int i = 0; i < SCHEDULERS.length; i++) {
            locks.add(new InterProcessSemaphoreMutex(ctx.connect(), PATH));
        }
        ctx.claim(ctx.connect(), PATH);
        ctx.log("mutex", "%d schedulers, one nightly batch at a time, guarded by %s (a semaphore of one lease)",
                SCHEDULERS.length, PATH);

        InterProcessSemaphoreMutex alice = locks.get(0);
        alice.acquire();
        ctx.log("acquire", "alice holds the lock (fencing token %d)", alice.fencingToken().getAsLong());
        boolean twice = alice.acquire(300, TimeUnit.MILLISECONDS);
        ctx.log("acquire", "alice tries to take it again for 300ms: %s", twice ? "got it?!"
                : "no, it is not re-entrant (gave up, nothing left behind)");
        if (twice) {
            throw new DemoException("the semaphore mutex was re-entered");
        }

        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        List<CompletableFuture<Void>> turns = new ArrayList<>();
        for (int i = 1; i < SCHEDULERS.length; i++) {
            String who = SCHEDULERS[i];
            InterProcessSemaphoreMutex lock = locks.get(i);
            ctx.log("wait", "%s asks for the lock (asynchronously: no thread waits)", who);
            turns.add(lock.acquireAsync().thenCompose(acquired -> {
                ctx.log("acquire", "%s holds the lock (fencing token %d)", who, lock.fencingToken().getAsLong());
                return batch(ctx, who, lock, running, mostAtOnce);
            }));
        }
        ctx.pause(WORK);
        batch(ctx, "alice", alice, running, mostAtOnce).get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        CompletableFuture.allOf(turns.toArray(CompletableFuture[]::new))
                .get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        ctx.log("mutex", "%d batches ran, at most %d at a time; every release came from a worker thread",
                SCHEDULERS.length, mostAtOnce.get());
        if (mostAtOnce.get() != 1) {
            throw new DemoException(mostAtOnce.get() + " batches ran at once");
        }
    }

    /** Runs the batch on a worker thread, which releases the lock when done. */
    private static CompletableFuture<Void> batch(DemoContext ctx, String who, InterProcessSemaphoreMutex lock,
            AtomicInteger running, AtomicInteger mostAtOnce) {
        return DemoContext.background(who + "-batch", () -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            ctx.log("batch", "%s's batch runs on thread %s", who, Thread.currentThread().getName());
            ctx.pause(WORK);
            running.decrementAndGet();
            ctx.log("release", "%s's batch is done: thread %s releases the lock", who,
                    Thread.currentThread().getName());
            lock.release();
        });
    }
}
