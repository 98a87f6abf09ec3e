package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.listen.Listenable;
import dev.baton.internal.ListenerContainer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
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

    /** @return true only if every lock is held by this process */
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

    /** @return the caller's fencing token of each lock, in list order; empty unless it holds every lock */
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

    /** @return the shortest {@link InterProcessLock#safeFor()} of the locks */
    @Override
    public Duration safeFor() {
        Duration min = null;
        for (InterProcessLock lock : locks) {
            Duration d = lock.safeFor();
            min = min == null || d.compareTo(min) < 0 ? d : min;
        }
        return min;
    }

    /** @return listeners told when a hold of any of the locks may be lost, is lost, or is confirmed again */
    @Override
    public Listenable<HoldListener> getHoldListenable() {
        return holdListeners;
    }

    /** @return the locks, in acquisition order */
    public List<InterProcessLock> getLocks() {
        return locks;
    }
}
