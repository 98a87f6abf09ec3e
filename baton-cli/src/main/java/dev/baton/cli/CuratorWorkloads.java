package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.cli.ChaosLockWorkloads.HoldingWorkload;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

/**
 * The workloads of a Curator client process ({@link CuratorChaosClient}): each runs Curator's recipe of the same
 * name on the same znodes as the Baton clients' workloads, and records what a careful Curator user believes by the
 * same rules (see {@link ChaosWorkloads}). The leader, barrier, counter and queue workloads are the Baton clients'
 * own, over Curator's recipes ({@link CuratorRecipes}); the lock workloads are here. Curator's recipes have no {@code safeFor()} and no hold listener, so a
 * holder believes while the client is connected and stops at the first {@code SUSPENDED} or {@code LOST}, as
 * Curator's documentation asks of its users. Curator gives no fencing tokens; the workloads read Baton's (the
 * czxid of the hold's node) from the server after each grant, so that fencing is checked across both libraries.
 */
final class CuratorWorkloads {

    /** {@code InterProcessMutex.getLockPath()}: protected in Curator, the node of the hold. */
    private static final Method LOCK_PATH = lockPathMethod();
    /** {@code LeaderSelector.mutex}: private in Curator, the lock whose node is a leadership's. */
    static final Field SELECTOR_MUTEX = field(LeaderSelector.class, "mutex");
    /** {@code InterProcessSemaphoreMutex.lease}: private in Curator, the lease of the hold. */
    private static final Field SEMAPHORE_LEASE = field(InterProcessSemaphoreMutex.class, "lease");

    private CuratorWorkloads() {
    }

    /** Returns Curator's workload of {@code recipe}, not started. */
    static Workload<CuratorFramework> create(ChaosRecipe recipe, Context<CuratorFramework> ctx) {
        String name = recipe.id();
        CuratorFramework client = ctx.client();
        return switch (recipe) {
            case MUTEX -> mutex(ctx, name, false);
            case DEAF_MUTEX -> mutex(ctx, name, true);
            case SEMAPHORE_MUTEX, STUCK_MUTEX -> {
                InterProcessSemaphoreMutex lock = new InterProcessSemaphoreMutex(ctx.client(),
                        ChaosWorkloads.pathOf(name));
                yield new MutexWorkload(ctx, name, recipe == ChaosRecipe.STUCK_MUTEX ? neverReleased(lock) : lock,
                        () -> ChaosWorkloads.pathOf(name) + "/leases/"
                                + ((Lease) SEMAPHORE_LEASE.get(lock)).getNodeName(), false);
            }
            case RWLOCK, BROKEN_RWLOCK -> new ReadWriteWorkload(ctx, name, recipe == ChaosRecipe.BROKEN_RWLOCK);
            case SEMAPHORE, BROKEN_SEMAPHORE -> new SemaphoreWorkload(ctx, name,
                    ChaosLockWorkloads.SemaphoreWorkload.leases(recipe));
            case LATCH -> new ChaosLeaderWorkloads.LatchWorkload<>(ctx, name, CuratorRecipes.latches(client));
            case SELECTOR -> new ChaosLeaderWorkloads.SelectorWorkload<>(ctx, name, CuratorRecipes.selectors(client));
            case BARRIER -> new ChaosBarrierWorkloads.GateWorkload<>(ctx, name, CuratorRecipes.gates(client));
            case DISCOVERY -> new ChaosDiscoveryWorkloads.DiscoveryWorkload<>(ctx, name,
                    CuratorRecipes.registries(client));
            case BROKEN_DISCOVERY -> new ChaosDiscoveryWorkloads.DiscoveryWorkload<>(ctx, name,
                    ChaosDiscoveryWorkloads.broken(CuratorRecipes.registries(client)));
            case BROKEN_BARRIER -> new ChaosBarrierWorkloads.GateWorkload<>(ctx, name,
                    ChaosBarrierWorkloads.brokenGates(CuratorRecipes.gates(client)));
            case DOUBLE_BARRIER -> new ChaosBarrierWorkloads.DoubleBarrierWorkload<>(ctx, name,
                    CuratorRecipes.barriers(client));
            case BROKEN_DOUBLE_BARRIER -> new ChaosBarrierWorkloads.DoubleBarrierWorkload<>(ctx, name,
                    ChaosBarrierWorkloads.brokenRounds(CuratorRecipes.barriers(client)));
            case ATOMIC_LONG, ATOMIC_LONG_LOCKED -> new ChaosCounterWorkloads.AtomicLongWorkload<>(ctx, name,
                    CuratorRecipes.atomicLongs(client), recipe == ChaosRecipe.ATOMIC_LONG_LOCKED);
            case SHARED_COUNT -> new ChaosCounterWorkloads.SharedCountWorkload<>(ctx, name,
                    CuratorRecipes.sharedCount(client, ChaosWorkloads.pathOf(name)));
            case QUEUE, QUEUE_UNLOCKED -> new ChaosQueueWorkloads.QueueWorkload<>(ctx, name,
                    CuratorRecipes.queues(client), recipe == ChaosRecipe.QUEUE);
            case BROKEN_QUEUE, BROKEN_LOCKED_QUEUE -> new ChaosQueueWorkloads.QueueWorkload<>(ctx, name,
                    ChaosQueueWorkloads.broken(CuratorRecipes.queues(client)),
                    recipe == ChaosRecipe.BROKEN_LOCKED_QUEUE);
            case BROKEN_COUNTER -> new ChaosCounterWorkloads.BrokenCounterWorkload<>(ctx, name);
        };
    }

    /** Whether the client is connected now: a Curator holder's only evidence that its hold still stands. */
    private static boolean connected(Context<CuratorFramework> ctx) {
        return ctx.client().getZookeeperClient().isConnected();
    }

    /** Returns the node of {@code mutex}'s hold, or null when it holds none. */
    static String lockPath(InterProcessMutex mutex) {
        try {
            return (String) LOCK_PATH.invoke(mutex);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read Curator's lock path", e);
        }
    }

    private static Method lockPathMethod() {
        try {
            Method m = InterProcessMutex.class.getDeclaredMethod("getLockPath");
            m.setAccessible(true);
            return m;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("this Curator has no InterProcessMutex.getLockPath()", e);
        }
    }

    private static Field field(Class<?> type, String name) {
        try {
            Field f = type.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("this Curator has no " + type.getSimpleName() + "." + name, e);
        }
    }

    /** {@code stuck-mutex}: Curator's {@code lock} with a release that does nothing (see Baton's). */
    private static InterProcessLock neverReleased(InterProcessLock lock) {
        return new InterProcessLock() {
            @Override
            public void acquire() throws Exception {
                lock.acquire();
            }

            @Override
            public boolean acquire(long time, TimeUnit unit) throws Exception {
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
        };
    }

    private static MutexWorkload mutex(Context<CuratorFramework> ctx, String name, boolean deaf) {
        InterProcessMutex mutex = new InterProcessMutex(ctx.client(), ChaosWorkloads.pathOf(name));
        return new MutexWorkload(ctx, name, mutex, () -> lockPath(mutex), deaf);
    }

    /** A holding workload on Curator: believes while connected; a SUSPENDED or LOST ends the belief. */
    private abstract static class CuratorHolding extends HoldingWorkload<CuratorFramework> {
        CuratorHolding(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
        }

        /** Listens for the connection's troubles, as a Curator lock user must. */
        void listen() {
            ctx.client().getConnectionStateListenable().addListener((c, state) -> {
                if (!state.isConnected()) {
                    lost(state.name());
                }
            });
        }

        /** Records the hold of {@code node} with its czxid if the client is still connected. */
        boolean believeNode(String key, String node) throws Exception {
            long token = CuratorChaosClient.czxid(ctx.client(), node);
            return believe(key, token, () -> connected(ctx) ? 1 : 0);
        }

        /** Believes and works under {@code node}'s hold, then lets go; a failure to read the token is no belief. */
        void holdAndWork(String key, String node) {
            try {
                if (believeNode(key, node)) {
                    work();
                }
            } catch (Exception e) {
                ctx.recorder().note(name + ": no token: " + e);
            }
        }
    }

    /**
     * {@code mutex} and {@code semaphore-mutex}: Curator's {@link InterProcessMutex} or
     * {@link InterProcessSemaphoreMutex}; {@code deaf-mutex} ignores the connection.
     */
    private static final class MutexWorkload extends CuratorHolding {
        private final InterProcessLock lock;
        /** The node of the current hold. */
        private final Callable<String> heldNode;
        private final boolean deaf;

        MutexWorkload(Context<CuratorFramework> ctx, String name, InterProcessLock lock, Callable<String> heldNode,
                boolean deaf) {
            super(ctx, name);
            this.lock = lock;
            this.heldNode = heldNode;
            this.deaf = deaf;
        }

        @Override
        void start() {
            if (!deaf) {
                listen();
            }
            spawn("worker", () -> {
                if (!Boolean.TRUE.equals(take(lock::acquire))) {
                    return;
                }
                try {
                    String mine = heldNode.call();
                    if (deaf) {
                        if (believe(name, CuratorChaosClient.czxid(ctx.client(), mine), () -> 1)) {
                            holdDeafly((time, unit) -> {
                                Collection<String> nodes = ((InterProcessMutex) lock).getParticipantNodes();
                                return !nodes.isEmpty() && !nodes.iterator().next().equals(mine);
                            });
                        }
                    } else {
                        holdAndWork(name, mine);
                    }
                } catch (Exception e) {
                    ctx.recorder().note(name + ": no token: " + e);
                } finally {
                    letGo();
                    releaseQuietly(lock::release);
                }
                pause(5, 60);
            });
        }
    }

    /**
     * {@code rwlock}: Curator's {@link InterProcessReadWriteLock}, a writer a third of the time; {@code broken-rwlock}:
     * its writers take the read lock.
     */
    private static final class ReadWriteWorkload extends CuratorHolding {
        private final InterProcessReadWriteLock lock;
        private final boolean broken;

        ReadWriteWorkload(Context<CuratorFramework> ctx, String name, boolean broken) {
            super(ctx, name);
            this.lock = new InterProcessReadWriteLock(ctx.client(), path(name));
            this.broken = broken;
        }

        @Override
        void start() {
            listen();
            spawn("worker", () -> {
                boolean write = ctx.random().nextInt(3) == 0;
                InterProcessMutex half = write && !broken ? lock.writeLock() : lock.readLock();
                if (!Boolean.TRUE.equals(take(half::acquire))) {
                    return;
                }
                try {
                    holdAndWork(write ? ChaosLockWorkloads.ReadWriteWorkload.write(name)
                            : ChaosLockWorkloads.ReadWriteWorkload.read(name), lockPath(half));
                } finally {
                    letGo();
                    releaseQuietly(half::release);
                }
                pause(5, 60);
            });
        }
    }

    /** {@code semaphore}: Curator's {@link InterProcessSemaphoreV2} of the same leases as Baton's. */
    private static final class SemaphoreWorkload extends CuratorHolding {
        private final InterProcessSemaphoreV2 semaphore;

        SemaphoreWorkload(Context<CuratorFramework> ctx, String name, int leases) {
            super(ctx, name);
            this.semaphore = new InterProcessSemaphoreV2(ctx.client(), path(name), leases);
        }

        @Override
        void start() {
            listen();
            spawn("worker", () -> {
                Lease lease = take(semaphore::acquire);
                if (lease == null) {
                    return;
                }
                try {
                    holdAndWork(name, path(name) + "/leases/" + lease.getNodeName());
                } catch (Exception e) {
                    ctx.recorder().note(name + ": no lease node: " + e);
                } finally {
                    letGo();
                    releaseQuietly(() -> semaphore.returnLease(lease));
                }
                pause(5, 60);
            });
        }
    }

}
