package dev.baton.spring;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.recipes.locks.InterProcessLock;
import dev.baton.recipes.locks.InterProcessMutex;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.ExpirableLockRegistry;

/**
 * Spring Integration's {@link ExpirableLockRegistry} on ZooKeeper: the lock of a key is an
 * {@link InterProcessMutex} at {@code <path>/<key>}, shared by every process that uses the same path (and by
 * Curator's {@code InterProcessMutex} on it). Locks are re-entrant per thread, as Java's are.
 *
 * <pre>{@code
 * Lock lock = registry.obtain("invoice-42");
 * if (lock.tryLock(5, TimeUnit.SECONDS)) {
 *     try { ... } finally { lock.unlock(); }
 * }
 * }</pre>
 *
 * <p>Unlike Spring Integration's own ZooKeeper registry, unused locks can be dropped without a call of the
 * application's: {@link #expireUnusedAfter(Duration)} sweeps them on the client's scheduler (no thread of the
 * registry's own). A lock object that
 * was dropped while someone still kept it keeps working; {@link #obtain} simply makes a new one next time.
 * Thread-safe.
 */
public final class BatonLockRegistry implements ExpirableLockRegistry<Lock>, AutoCloseable {
    private final Object lock = new Object();
    private final BatonClient client;
    private final String path;
    private final Function<InterProcessMutex, InterProcessLock> decorator;
    private final Map<String, BatonLock> locks = new ConcurrentHashMap<>();
    /** The next sweep, while one is scheduled. */
    @GuardedBy("lock")
    private @Nullable ScheduledFuture<?> sweep;
    @GuardedBy("lock")
    private Duration sweepAfter = Duration.ZERO;
    private volatile boolean closed;

    /**
     * @param client the client
     * @param path the parent path of the locks, such as {@code /baton/locks}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public BatonLockRegistry(BatonClient client, String path) {
        this(client, path, mutex -> mutex);
    }

    /**
     * @param client the client
     * @param path the parent path of the locks
     * @param decorator applied to each new mutex, such as {@code BatonMetrics::lock} to meter the locks
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public BatonLockRegistry(BatonClient client, String path, Function<InterProcessMutex, InterProcessLock> decorator) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = BatonPaths.validate(Objects.requireNonNull(path, "path"));
        this.decorator = Objects.requireNonNull(decorator, "decorator");
    }

    /** {@return the parent path of the locks} */
    public String getPath() {
        return path;
    }

    /**
     * Returns the lock of a key, the same object for the same key until it expires.
     *
     * @param lockKey the key: a {@code String} that makes a valid path below {@link #getPath()}
     * @return the lock
     * @throws NullPointerException if the key is null
     * @throws IllegalArgumentException if the key is not a string or makes an invalid path
     * @throws IllegalStateException if the registry is closed
     */
    @Override
    public Lock obtain(Object lockKey) {
        Objects.requireNonNull(lockKey, "lockKey");
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lockKey must be a String, was " + lockKey.getClass().getName());
        }
        if (closed) {
            throw new IllegalStateException("the lock registry is closed");
        }
        String lockPath = BatonPaths.validate(path.equals("/") ? "/" + key : path + "/" + key);
        BatonLock obtained = locks.computeIfAbsent(key, k -> {
            InterProcessMutex mutex = new InterProcessMutex(client, lockPath);
            return new BatonLock(lockPath, decorator.apply(mutex));
        });
        obtained.touch();
        if (sweepPending()) {
            synchronized (lock) {
                scheduleSweep();
            }
        }
        return obtained;
    }

    /**
     * Drops the locks that nobody in this process holds and that were last obtained or unlocked more than
     * {@code age} milliseconds ago.
     *
     * @param age the age in milliseconds
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
        locks.values().removeIf(lock -> now - lock.lastUsed >= ageNanos && !lock.mutex.isAcquiredInThisProcess());
    }

    /**
     * Sweeps unused locks on the client's scheduler, dropping those unused for {@code after}. The sweep runs
     * every {@code after} while the registry keeps locks, and only then: an empty registry schedules nothing.
     *
     * @param after the age at which an unused lock is dropped; zero turns the sweep off
     * @throws NullPointerException if {@code after} is null
     * @throws IllegalArgumentException if {@code after} is negative
     */
    public void expireUnusedAfter(Duration after) {
        synchronized (lock) {
            Objects.requireNonNull(after, "after");
            if (after.isNegative()) {
                throw new IllegalArgumentException("after must be >= 0, was " + after);
            }
            sweepAfter = after;
            if (sweep != null) {
                sweep.cancel(false);
                sweep = null;
            }
            scheduleSweep();
        }
    }

    /** Schedules the next sweep if one is due and none is pending. */
    @GuardedBy("lock")
    private void scheduleSweep() {
        if (sweep != null || sweepAfter.isZero() || closed || locks.isEmpty()
                || client.getState() != BatonClient.State.STARTED) {
            return;
        }
        try {
            sweep = client.schedule(this::sweep, sweepAfter);
        } catch (IllegalStateException e) {
            // closed meanwhile: nothing to sweep for
        }
    }

    private void sweep() {
        Duration after;
        synchronized (lock) {
            sweep = null;
            after = sweepAfter;
        }
        expireUnusedOlderThan(after.toMillis());
        synchronized (lock) {
            scheduleSweep();
        }
    }

    private boolean sweepPending() {
        synchronized (lock) {
            return sweep == null && !sweepAfter.isZero();
        }
    }

    /** {@return how many locks the registry keeps now} */
    public int size() {
        return locks.size();
    }

    /** Stops the sweep and forgets the locks; locks still held stay held until unlocked. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (sweep != null) {
                sweep.cancel(false);
                sweep = null;
            }
            locks.clear();
        }
    }

    /** One key's lock: a {@link Lock} face on a ZooKeeper mutex. */
    private static final class BatonLock implements Lock {
        private final String lockPath;
        private final InterProcessLock mutex;
        private volatile long lastUsed = System.nanoTime();

        BatonLock(String lockPath, InterProcessLock mutex) {
            this.lockPath = lockPath;
            this.mutex = mutex;
        }

        void touch() {
            lastUsed = System.nanoTime();
        }

        @Override
        public void lock() {
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        mutex.acquire();
                        return;
                    } catch (InterruptedException e) {
                        interrupted = true; // lock() is not interruptible: keep trying, then restore the flag
                    } catch (KeeperException e) {
                        throw failure(e);
                    }
                }
            } finally {
                touch();
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            try {
                mutex.acquire();
            } catch (KeeperException e) {
                throw failure(e);
            } finally {
                touch();
            }
        }

        /** Takes the lock if it is free now (the mutex still makes its one create and listing to find out). */
        @Override
        public boolean tryLock() {
            try {
                return tryLock(0, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            try {
                return mutex.acquire(Math.max(0, time), unit);
            } catch (KeeperException e) {
                throw failure(e);
            } finally {
                touch();
            }
        }

        @Override
        public void unlock() {
            try {
                mutex.release();
            } finally {
                touch();
            }
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException("a ZooKeeper lock has no conditions");
        }

        private IllegalStateException failure(KeeperException e) {
            return new IllegalStateException("could not lock " + lockPath + ": " + e.getMessage(), e);
        }

        @Override
        public String toString() {
            return "BatonLock[" + lockPath + "]";
        }
    }
}
