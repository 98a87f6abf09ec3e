package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.cli.ChaosWorkloads.Acquisition;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.recipes.locks.HoldState;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.recipes.locks.InterProcessReadWriteLock;
import dev.baton.recipes.locks.InterProcessSemaphoreV2;
import dev.baton.recipes.locks.Lease;
import dev.baton.testing.History;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.zookeeper.KeeperException;

/**
 * The lock workloads of a chaos client: mutex, read-write lock and semaphore, each holding what the recipe grants
 * and recording each hold with its fencing token. See {@link ChaosWorkloads}.
 */
final class ChaosLockWorkloads {
    private ChaosLockWorkloads() {
    }

    abstract static class HoldingWorkload extends Workload {
        /** The key held (a lock name in the history), guarded by monitor; null when nothing is believed. */
        private String heldKey;
        private long heldToken;

        HoldingWorkload(Context ctx, String name) {
            super(ctx, name);
        }

        /** Records the hold if {@code safe} still says the recipe holds it; returns whether it did. */
        boolean believe(String key, long token, LongSupplier safeMillis) {
            synchronized (monitor) {
                if (safeMillis.getAsLong() <= 0) {
                    return false;
                }
                heldKey = key;
                heldToken = token;
                ctx.recorder().acquired(key, token);
                return true;
            }
        }

        boolean believes() {
            synchronized (monitor) {
                return heldKey != null;
            }
        }

        /** Ends the belief before the release is sent. */
        void letGo() {
            synchronized (monitor) {
                if (heldKey != null) {
                    ctx.recorder().released(heldKey, heldToken);
                    heldKey = null;
                }
            }
        }

        /** The recipe said the hold is in doubt or gone. */
        void told(HoldState state) {
            if (state == HoldState.HELD) {
                return; // confirmed again: the worker already stopped believing at SUSPENDED and will release
            }
            synchronized (monitor) {
                if (heldKey != null) {
                    ctx.recorder().lost(heldKey, heldToken, state.name());
                    heldKey = null;
                }
            }
        }

        /**
         * Tries to take the hold for up to three seconds.
         *
         * @return what {@code acquisition} gave; null if it failed (after a short back-off) or was interrupted (which
         *     ends the workload)
         */
        <T> T take(Acquisition<T> acquisition) {
            try {
                return acquisition.within(3, TimeUnit.SECONDS);
            } catch (KeeperException e) {
                pause(50, 200);
                return null;
            } catch (InterruptedException e) {
                running = false;
                return null;
            }
        }

        /** Works under the hold for a while, as long as it is believed. */
        void work() {
            int steps = 1 + ctx.random().nextInt(8);
            for (int i = 0; i < steps && running && believes(); i++) {
                pause(5, 25);
            }
        }
    }

    /** {@code mutex}: an {@link InterProcessMutex}, acquire, hold a little, release. */
    static final class MutexWorkload extends HoldingWorkload {
        private final InterProcessMutex mutex;
        private final boolean deaf;

        MutexWorkload(Context ctx, String name, boolean deaf) {
            super(ctx, name);
            this.mutex = new InterProcessMutex(ctx.client(), path(name));
            this.deaf = deaf;
        }

        @Override
        void start() {
            if (!deaf) {
                mutex.getHoldListenable().addListener((hold, state) -> told(state));
            }
            spawn("worker", () -> {
                if (!Boolean.TRUE.equals(take(mutex::acquire))) {
                    return;
                }
                try {
                    // The deaf variant believes whatever happened to its session: the checkers must catch it.
                    if (believe(name, mutex.fencingToken().orElse(History.NO_TOKEN),
                            deaf ? () -> 1 : () -> mutex.safeFor().toMillis())) {
                        if (deaf) {
                            // Long holds, through whatever happens to the session meanwhile: a partition or an
                            // expiry while it holds leaves it believing after it reconnects, beside the next holder.
                            for (int i = 0; i < 10 && running; i++) {
                                pause(100, 400);
                            }
                        } else {
                            work();
                        }
                    }
                } finally {
                    letGo();
                    releaseQuietly(mutex::release);
                }
                pause(5, 60);
            });
        }
    }

    /** {@code rwlock}: an {@link InterProcessReadWriteLock}, a writer a third of the time, else a reader. */
    static final class ReadWriteWorkload extends HoldingWorkload {
        static final String WRITE = "rwlock-write";
        static final String READ = "rwlock-read";
        private final InterProcessReadWriteLock lock;

        ReadWriteWorkload(Context ctx, String name) {
            super(ctx, name);
            this.lock = new InterProcessReadWriteLock(ctx.client(), path(name));
        }

        @Override
        void start() {
            lock.writeLock().getHoldListenable().addListener((hold, state) -> told(state));
            lock.readLock().getHoldListenable().addListener((hold, state) -> told(state));
            spawn("worker", () -> {
                boolean write = ctx.random().nextInt(3) == 0;
                InterProcessMutex half = write ? lock.writeLock() : lock.readLock();
                if (!Boolean.TRUE.equals(take(half::acquire))) {
                    return;
                }
                try {
                    if (believe(write ? WRITE : READ, half.fencingToken().orElse(History.NO_TOKEN),
                            () -> half.safeFor().toMillis())) {
                        work();
                    }
                } finally {
                    letGo();
                    releaseQuietly(half::release);
                }
                pause(5, 60);
            });
        }
    }

    /** {@code semaphore}: an {@link InterProcessSemaphoreV2} of {@value #MAX_LEASES} leases, one lease at a time. */
    static final class SemaphoreWorkload extends HoldingWorkload {
        static final int MAX_LEASES = 2;
        private final InterProcessSemaphoreV2 semaphore;

        SemaphoreWorkload(Context ctx, String name) {
            super(ctx, name);
            this.semaphore = new InterProcessSemaphoreV2(ctx.client(), path(name), MAX_LEASES);
        }

        @Override
        void start() {
            semaphore.getHoldListenable().addListener((hold, state) -> told(state));
            spawn("worker", () -> {
                Lease lease = take(semaphore::acquire);
                if (lease == null) {
                    return;
                }
                try {
                    if (believe(name, lease.fencingToken().orElse(History.NO_TOKEN), () -> lease.safeFor().toMillis())) {
                        work();
                    }
                } finally {
                    letGo();
                    releaseQuietly(() -> semaphore.returnLease(lease));
                }
                pause(5, 60);
            });
        }
    }
}
