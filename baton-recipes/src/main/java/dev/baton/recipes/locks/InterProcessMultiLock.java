package dev.baton.recipes.locks;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.Futures;
import dev.baton.internal.ListenerContainer;
import dev.baton.listen.Listenable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several locks taken as one: all or nothing. The locks are acquired in list order, within one deadline for
 * the whole acquire; if one cannot be had in time (or fails), the ones already taken are released and nothing of
 * the attempt stays on the server. Released in reverse order. Give every process the same order, so two
 * multi-locks over the same paths cannot each hold a part.
 *
 * <pre>{@code
 * InterProcessMultiLock both = new InterProcessMultiLock(client, List.of("/locks/from", "/locks/to"));
 * if (both.acquire(5, TimeUnit.SECONDS)) {
 *     try {
 *         transfer(from, to);
 *     } finally {
 *         both.release();
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe as its locks are; with the paths constructor each lock is an {@link InterProcessMutex}, so
 * the multi-lock is re-entrant per thread and must be released by the thread that acquired it.
 * {@link #acquireAsync()} (for a multi-lock of {@link InterProcessMutex}es, such as the halves of
 * {@link InterProcessReadWriteLock}s) holds no thread while waiting and returns one {@link Hold} of them all, which
 * any thread may release.
 */
public final class InterProcessMultiLock implements InterProcessLock {
    private static final Logger LOG = LoggerFactory.getLogger(InterProcessMultiLock.class);

    private final List<InterProcessLock> locks;
    private final ListenerContainer<HoldListener> holdListeners = new ListenerContainer<>(Runnable::run,
            (message, e) -> LOG.error("Hold listener failed: {}", message, e));

    /**
     * A multi-lock of {@link InterProcessMutex}es, one per path.
     *
     * @param client the client
     * @param paths the locks' paths, in acquisition order; not empty
     * @throws NullPointerException if an argument or a path is null
     * @throws IllegalArgumentException if {@code paths} is empty or a path is invalid
     */
    public InterProcessMultiLock(BatonClient client, List<String> paths) {
        this(mutexes(Objects.requireNonNull(client, "client"), Objects.requireNonNull(paths, "paths")));
    }

    /**
     * A multi-lock of the given locks. The locks' hold listeners also receive this multi-lock's listeners'
     * notifications.
     *
     * @param locks the locks, in acquisition order; not empty
     * @throws NullPointerException if {@code locks} or one of them is null
     * @throws IllegalArgumentException if {@code locks} is empty
     */
    public InterProcessMultiLock(List<InterProcessLock> locks) {
        Objects.requireNonNull(locks, "locks");
        if (locks.isEmpty()) {
            throw new IllegalArgumentException("locks must not be empty");
        }
        for (int i = 0; i < locks.size(); i++) {
            Objects.requireNonNull(locks.get(i), "locks[" + i + "]");
        }
        this.locks = List.copyOf(locks);
        HoldListener forward = (hold, state) -> holdListeners.forEach(l -> l.holdStateChanged(hold, state));
        this.locks.forEach(lock -> lock.getHoldListenable().addListener(forward));
    }

    private static List<InterProcessLock> mutexes(BatonClient client, List<String> paths) {
        if (paths.isEmpty()) {
            throw new IllegalArgumentException("paths must not be empty");
        }
        List<InterProcessLock> mutexes = new ArrayList<>(paths.size());
        for (int i = 0; i < paths.size(); i++) {
            mutexes.add(new InterProcessMutex(client, Objects.requireNonNull(paths.get(i), "paths[" + i + "]")));
        }
        return mutexes;
    }

    @Override
    public void acquire() throws KeeperException, InterruptedException {
        acquireNanos(-1);
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws KeeperException, InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (time < 0) {
            throw new IllegalArgumentException("time must be >= 0, was " + time);
        }
        return acquireNanos(unit.toNanos(time));
    }

    /**
     * Acquires every lock, in order, without holding a thread while waiting. Each lock must be an
     * {@link InterProcessMutex}. The hold is not re-entrant and not owned by a thread: release it (from any
     * thread) with {@link Hold#release()}, not with {@link #release()}. Completing the returned future with null,
     * or cancelling it, gives the attempt up: the locks already taken are released and the node waiting for the
     * next one is deleted.
     *
     * @return a future of the hold of every lock; or failing with the {@link KeeperException} that stopped the
     *         attempt (after releasing the locks taken)
     * @throws UnsupportedOperationException if a lock is not an {@link InterProcessMutex}
     */
    public CompletableFuture<Hold> acquireAsync() {
        return acquireAsyncNanos(-1);
    }

    /**
     * Acquires every lock as {@link #acquireAsync()} does, within one deadline for the whole acquire.
     *
     * @param time how long to wait in all, {@code >= 0}
     * @param unit the unit of {@code time}
     * @return a future of the hold of every lock, or of null if the time ran out (nothing of the attempt then
     *         stays on the server)
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalArgumentException if {@code time} is negative
     * @throws UnsupportedOperationException if a lock is not an {@link InterProcessMutex}
     */
    public CompletableFuture<Hold> acquireAsync(long time, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (time < 0) {
            throw new IllegalArgumentException("time must be >= 0, was " + time);
        }
        return acquireAsyncNanos(unit.toNanos(time));
    }

    private CompletableFuture<Hold> acquireAsyncNanos(long timeoutNanos) {
        List<InterProcessMutex> mutexes = new ArrayList<>(locks.size());
        for (int i = 0; i < locks.size(); i++) {
            if (!(locks.get(i) instanceof InterProcessMutex mutex)) {
                throw new UnsupportedOperationException("acquireAsync needs InterProcessMutex locks; locks[" + i
                        + "] is a " + locks.get(i).getClass().getSimpleName());
            }
            mutexes.add(mutex);
        }
        return new AsyncAcquire(mutexes, timeoutNanos).start();
    }

    /** One asynchronous acquire: each lock's attempt starts when the one before is held. */
    private static final class AsyncAcquire {
        private final List<InterProcessMutex> mutexes;
        private final long timeoutNanos;
        private final long deadline;
        private final CompletableFuture<Hold> result = new CompletableFuture<>();
        @GuardedBy("this")
        private final List<Hold> taken = new ArrayList<>();
        /** The attempt in progress; null before the first starts. */
        @GuardedBy("this")
        private @Nullable CompletableFuture<Hold> current;

        AsyncAcquire(List<InterProcessMutex> mutexes, long timeoutNanos) {
            this.mutexes = mutexes;
            this.timeoutNanos = timeoutNanos;
            this.deadline = System.nanoTime() + Math.max(timeoutNanos, 0);
        }

        CompletableFuture<Hold> start() {
            Futures.whenDone(result, (hold, error) -> {
                if (hold == null) {
                    giveUp(); // timed out, failed, cancelled, or completed with null by the caller
                }
            });
            next(0);
            return result;
        }

        private void next(int index) {
            if (index == mutexes.size()) {
                Hold all;
                synchronized (this) {
                    all = new MultiHold(List.copyOf(taken));
                    taken.clear();
                }
                if (!result.complete(all)) {
                    all.release(); // given up just as it arrived
                }
                return;
            }
            InterProcessMutex mutex = mutexes.get(index);
            CompletableFuture<Hold> attempt = timeoutNanos < 0 ? mutex.acquireAsync()
                    : mutex.acquireAsync(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            synchronized (this) {
                current = attempt;
            }
            if (result.isDone()) {
                attempt.complete(null); // given up meanwhile
            }
            Futures.whenDone(attempt, (hold, error) -> {
                if (error != null) {
                    result.completeExceptionally(error);
                } else if (hold == null) {
                    result.complete(null);
                } else {
                    synchronized (this) {
                        taken.add(hold);
                    }
                    if (result.isDone()) {
                        giveUp();
                    } else {
                        next(index + 1);
                    }
                }
            });
        }

        private void giveUp() {
            CompletableFuture<Hold> waiting;
            List<Hold> held;
            synchronized (this) {
                waiting = current;
                held = new ArrayList<>(taken);
                taken.clear();
            }
            if (waiting != null) {
                waiting.complete(null);
            }
            releaseHolds(held);
        }
    }

    private static void releaseHolds(List<Hold> held) {
        for (int i = held.size() - 1; i >= 0; i--) {
            try {
                held.get(i).release();
            } catch (RuntimeException e) {
                LOG.error("Releasing {} failed", held.get(i), e);
            }
        }
    }

    /** The hold of every lock of one {@link #acquireAsync()}. */
    private static final class MultiHold implements Hold {
        private final List<Hold> holds;

        MultiHold(List<Hold> holds) {
            this.holds = holds;
        }

        /** {@return the first lock's node} */
        @Override
        public String nodePath() {
            return holds.get(0).nodePath();
        }

        /** {@return the first lock's token (see {@link InterProcessMultiLock#fencingToken()})} */
        @Override
        public long fencingToken() {
            return holds.get(0).fencingToken();
        }

        /** {@return the worst state of the holds} */
        @Override
        public HoldState state() {
            HoldState worst = HoldState.HELD;
            for (Hold hold : holds) {
                if (hold.state().compareTo(worst) > 0) {
                    worst = hold.state();
                }
            }
            return worst;
        }

        /** {@return the shortest {@link Hold#safeFor()} of the holds} */
        @Override
        public Duration safeFor() {
            // Never empty: there is a hold of each lock, and a multi-lock has at least one.
            return holds.stream().map(Hold::safeFor).min(Comparator.naturalOrder()).orElseThrow();
        }

        @Override
        public boolean isHeld() {
            return holds.stream().allMatch(Hold::isHeld);
        }

        /** Releases every hold, in reverse order. */
        @Override
        public void release() {
            releaseHolds(holds);
        }

        @Override
        public String toString() {
            return "MultiHold" + holds;
        }
    }

    private boolean acquireNanos(long timeoutNanos) throws KeeperException, InterruptedException {
        long deadline = System.nanoTime() + Math.max(timeoutNanos, 0);
        List<InterProcessLock> taken = new ArrayList<>(locks.size());
        boolean done = false;
        try {
            for (InterProcessLock lock : locks) {
                if (timeoutNanos < 0) {
                    lock.acquire();
                } else if (!lock.acquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    return false;
                }
                taken.add(lock);
            }
            done = true;
            return true;
        } finally {
            if (!done) {
                releaseReversed(taken);
            }
        }
    }

    /**
     * Releases every lock, in reverse order of acquisition. Every lock is released even if one throws; the
     * first exception is then rethrown.
     *
     * @throws IllegalMonitorStateException if the caller does not hold the locks
     */
    @Override
    public void release() {
        releaseReversed(locks);
    }

    private static void releaseReversed(List<InterProcessLock> held) {
        RuntimeException first = null;
        for (int i = held.size() - 1; i >= 0; i--) {
            try {
                held.get(i).release();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** {@return true only if every lock is held by this process} */
    @Override
    public boolean isAcquiredInThisProcess() {
        for (InterProcessLock lock : locks) {
            if (!lock.isAcquiredInThisProcess()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The fencing token of the first lock. A resource guarded by several of the locks should check each
     * lock's token ({@link #fencingTokens()}).
     *
     * @return the first lock's token; empty unless the caller holds every lock
     */
    @Override
    public OptionalLong fencingToken() {
        List<Long> tokens = fencingTokens();
        return tokens.isEmpty() ? OptionalLong.empty() : OptionalLong.of(tokens.get(0));
    }

    /** {@return the caller's fencing token of each lock, in list order; empty unless it holds every lock} */
    public List<Long> fencingTokens() {
        List<Long> tokens = new ArrayList<>(locks.size());
        for (InterProcessLock lock : locks) {
            OptionalLong token = lock.fencingToken();
            if (token.isEmpty()) {
                return List.of();
            }
            tokens.add(token.getAsLong());
        }
        return tokens;
    }

    /** {@return the shortest {@link InterProcessLock#safeFor()} of the locks} */
    @Override
    public Duration safeFor() {
        // Never empty: the constructors reject an empty list.
        return locks.stream().map(InterProcessLock::safeFor).min(Comparator.naturalOrder()).orElseThrow();
    }

    /** {@return listeners told when a hold of any of the locks may be lost, is lost, or is confirmed again} */
    @Override
    public Listenable<HoldListener> getHoldListenable() {
        return holdListeners;
    }

    /** {@return the locks, in acquisition order} */
    public List<InterProcessLock> getLocks() {
        return locks;
    }
}
