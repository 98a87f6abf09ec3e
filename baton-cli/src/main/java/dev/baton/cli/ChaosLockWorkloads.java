package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.BatonClient;
import dev.baton.cli.ChaosWorkloads.Acquisition;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.listen.Listenable;
import dev.baton.recipes.locks.HoldListener;
import dev.baton.recipes.locks.HoldState;
import dev.baton.recipes.locks.InterProcessLock;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.recipes.locks.InterProcessReadWriteLock;
import dev.baton.recipes.locks.InterProcessSemaphoreV2;
import dev.baton.recipes.locks.Lease;
import dev.baton.testing.History;
import java.time.Duration;
import java.util.Collection;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The lock workloads of a chaos client: mutex, read-write lock and semaphore, each holding what the recipe grants
 * and recording each hold with its fencing token. See {@link ChaosWorkloads}.
 */
final class ChaosLockWorkloads {
    private ChaosLockWorkloads() {
    }

    /** A workload that holds something (a lock, a lease) and records its belief; for both libraries. */
    abstract static class HoldingWorkload<C> extends Workload<C> {
        /** The key held (a lock name in the history), guarded by monitor; null when nothing is believed. */
        private String heldKey;
        private long heldToken;

        HoldingWorkload(Context<C> ctx, String name) {
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
            lost(state.name());
        }

        /** The hold is in doubt or gone, for {@code why}: the belief ends, recorded as a loss. */
        void lost(String why) {
            synchronized (monitor) {
                if (heldKey != null) {
                    ctx.recorder().lost(heldKey, heldToken, why);
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
            } catch (InterruptedException e) {
                running = false;
                return null;
            } catch (Exception e) {
                pause(50, 200);
                return null;
            }
        }

        /**
         * The deaf variant's hold: believed through whatever happens to the session, even a second past the
         * moment it sees another client at the head of the lock (30 s at most). A fault that ends its session
         * while it holds so always leaves it believing beside the next holder, and the checkers must say so.
         *
         * @param anotherHolds whether another client's node heads the lock now (it asks the server: a client
         *     that answers is connected)
         */
        void holdDeafly(Acquisition<Boolean> anotherHolds) {
            long started = System.nanoTime();
            long sawAnother = 0;
            while (running && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(30)) {
                if (sawAnother == 0 && Boolean.TRUE.equals(take(anotherHolds))) {
                    sawAnother = System.nanoTime();
                }
                if (sawAnother != 0 && System.nanoTime() - sawAnother > TimeUnit.SECONDS.toNanos(1)) {
                    return;
                }
                pause(50, 150);
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

    /**
     * {@code mutex} and {@code semaphore-mutex}: an {@link InterProcessMutex} or an
     * {@link dev.baton.recipes.locks.InterProcessSemaphoreMutex}; acquire, hold a little, release.
     * {@code deaf-mutex}: a mutex holder that does not listen.
     */
    static final class MutexWorkload extends HoldingWorkload<BatonClient> {
        private final InterProcessLock lock;
        private final boolean deaf;

        MutexWorkload(Context<BatonClient> ctx, String name, InterProcessLock lock, boolean deaf) {
            super(ctx, name);
            if (deaf && !(lock instanceof InterProcessMutex)) {
                throw new IllegalArgumentException("the deaf variant is a mutex's: " + lock);
            }
            this.lock = lock;
            this.deaf = deaf;
        }

        @Override
        void start() {
            if (!deaf) {
                lock.getHoldListenable().addListener((hold, state) -> told(state));
            }
            spawn("worker", () -> {
                if (!Boolean.TRUE.equals(take(lock::acquire))) {
                    return;
                }
                try {
                    // The deaf variant believes whatever happened to its session: the checkers must catch it.
                    if (believe(name, lock.fencingToken().orElse(History.NO_TOKEN),
                            deaf ? () -> 1 : () -> lock.safeFor().toMillis())) {
                        if (deaf) {
                            long token = lock.fencingToken().orElse(History.NO_TOKEN);
                            holdDeafly((time, unit) -> {
                                Collection<String> nodes = ((InterProcessMutex) lock).getParticipantNodes();
                                Stat head = nodes.isEmpty() ? null
                                        : ctx.client().checkExists().forPath(nodes.iterator().next());
                                return head != null && head.getCzxid() != token;
                            });
                        } else {
                            work();
                        }
                    }
                } finally {
                    letGo();
                    releaseQuietly(lock::release);
                }
                pause(5, 60);
            });
        }
    }

    /**
     * {@code stuck-mutex}: {@code lock} with a release that does nothing. On a lock that is not reentrant its
     * holder's next acquire waits behind its own hold, and so does everyone else, until a fault ends its session.
     */
    static InterProcessLock neverReleased(InterProcessLock lock) {
        return new InterProcessLock() {
            @Override
            public void acquire() throws KeeperException, InterruptedException {
                lock.acquire();
            }

            @Override
            public boolean acquire(long time, TimeUnit unit) throws KeeperException, InterruptedException {
                return lock.acquire(time, unit);
            }

            @Override
            public void release() {
                // the flaw
            }

            @Override
            public boolean isAcquiredInThisProcess() {
                return lock.isAcquiredInThisProcess();
            }

            @Override
            public OptionalLong fencingToken() {
                return lock.fencingToken();
            }

            @Override
            public Duration safeFor() {
                return lock.safeFor();
            }

            @Override
            public Listenable<HoldListener> getHoldListenable() {
                return lock.getHoldListenable();
            }
        };
    }

    /**
     * {@code rwlock}: an {@link InterProcessReadWriteLock}, a writer a third of the time, else a reader; the
     * history names the holds {@code <recipe>-write} and {@code <recipe>-read}. {@code broken-rwlock}: its writers
     * take the read lock.
     */
    static final class ReadWriteWorkload extends HoldingWorkload<BatonClient> {
        private final InterProcessReadWriteLock lock;
        private final boolean broken;

        ReadWriteWorkload(Context<BatonClient> ctx, String name, boolean broken) {
            super(ctx, name);
            this.lock = new InterProcessReadWriteLock(ctx.client(), path(name));
            this.broken = broken;
        }

        /** The history's name of a write hold of {@code recipe}. */
        static String write(String recipe) {
            return recipe + "-write";
        }

        /** The history's name of a read hold of {@code recipe}. */
        static String read(String recipe) {
            return recipe + "-read";
        }

        @Override
        void start() {
            lock.writeLock().getHoldListenable().addListener((hold, state) -> told(state));
            lock.readLock().getHoldListenable().addListener((hold, state) -> told(state));
            spawn("worker", () -> {
                boolean write = ctx.random().nextInt(3) == 0;
                InterProcessMutex half = write && !broken ? lock.writeLock() : lock.readLock();
                if (!Boolean.TRUE.equals(take(half::acquire))) {
                    return;
                }
                try {
                    if (believe(write ? write(name) : read(name), half.fencingToken().orElse(History.NO_TOKEN),
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
    static final class SemaphoreWorkload extends HoldingWorkload<BatonClient> {
        static final int MAX_LEASES = 2;
        private final InterProcessSemaphoreV2 semaphore;

        SemaphoreWorkload(Context<BatonClient> ctx, String name, int leases) {
            super(ctx, name);
            this.semaphore = new InterProcessSemaphoreV2(ctx.client(), path(name), leases);
        }

        /** The limit a client of {@code recipe} gives its semaphore: one too many for the broken variant. */
        static int leases(ChaosRecipe recipe) {
            return recipe == ChaosRecipe.BROKEN_SEMAPHORE ? MAX_LEASES + 1 : MAX_LEASES;
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
