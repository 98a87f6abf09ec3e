package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.recipes.locks.InterProcessSemaphoreMutex;
import dev.baton.testing.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * The recipe workloads of a chaos client process ({@link ChaosClient}): each runs one recipe the way a service
 * would, on its own thread, and records what it believes in the process's history at the safe side of each
 * action: a hold is recorded after the server granted it and only while the recipe still says it is safe
 * ({@code safeFor() > 0}), its end before the release is sent, and a loss as soon as the recipe tells of it. The
 * fencing token of each hold goes with it. Counters record every operation's invocation and outcome (a
 * {@code KeeperException} is an unknown outcome) for the linearizability checker, and sync before each one, as
 * plain ZooKeeper reads are only sequentially consistent.
 *
 * <p>Znodes live under {@value #ROOT}. Names recorded in the history are the recipe names of {@link ChaosRecipe}.
 */
final class ChaosWorkloads {

    /** The parent of every recipe path of a chaos run. */
    static final String ROOT = "/baton-chaos";

    private ChaosWorkloads() {
    }

    /**
     * What every workload gets: the client (a {@link BatonClient}, or Curator's in a Curator client process), its
     * plain node operations, its recorder, its randomness and the run's shape.
     */
    record Context<C>(C client, Nodes nodes, History.Recorder recorder, Random random, int clients,
            Duration session) {
    }

    /** The plain ZooKeeper operations the workloads need, on either library's client. */
    interface Nodes {
        /** Syncs the client's server with the leader on {@code path}, so that the next read is current. */
        void sync(String path) throws Exception;

        List<String> children(String path) throws Exception;

        byte[] read(String path) throws Exception;

        void write(String path, byte[] data) throws Exception;

        /** Creates the node with {@code data} (and missing parents) unless it exists. */
        void createIfAbsent(String path, byte[] data) throws Exception;
    }

    /** A {@link BatonClient}'s node operations. */
    static Nodes batonNodes(BatonClient client) {
        return new Nodes() {
            @Override
            public void sync(String path) throws KeeperException, InterruptedException {
                client.sync().forPath(path);
            }

            @Override
            public List<String> children(String path) throws KeeperException, InterruptedException {
                return client.getChildren().forPath(path);
            }

            @Override
            public byte[] read(String path) throws KeeperException, InterruptedException {
                return client.getData().forPath(path);
            }

            @Override
            public void write(String path, byte[] data) throws KeeperException, InterruptedException {
                client.setData().forPath(path, data);
            }

            @Override
            public void createIfAbsent(String path, byte[] data) throws KeeperException, InterruptedException {
                try {
                    client.create().creatingParentsIfNeeded().forPath(path, data);
                } catch (KeeperException.NodeExistsException made) {
                    // another client made it
                }
            }
        };
    }

    /** One recipe's workload in one process. Thread-safety: start/stop/finish from the command thread. */
    abstract static class Workload<C> {
        final Context<C> ctx;
        final String name;
        private final List<Thread> threads = new ArrayList<>();
        volatile boolean running = true;
        /** Guards beliefs and their records, so that no record follows a recorded loss out of order. */
        final Object monitor = new Object();

        Workload(Context<C> ctx, String name) {
            this.ctx = ctx;
            this.name = name;
        }

        abstract void start() throws Exception;

        /** Stops new work, ends holds, closes the recipe; waits for the workload's threads. */
        void stop() throws InterruptedException {
            halt();
        }

        /** Stops the workload's threads and waits for them (idempotent). */
        final void halt() throws InterruptedException {
            running = false;
            for (Thread t : threads) {
                t.interrupt();
            }
            joinThreads(Duration.ofSeconds(30));
        }

        /** Waits for the workload's threads to end by themselves. */
        final void joinThreads(Duration max) throws InterruptedException {
            long deadline = System.nanoTime() + max.toNanos();
            for (Thread t : threads) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left > 0) {
                    t.join(left);
                }
            }
        }

        /** After faults: counters stop and make a last read; the queue stops putting. */
        void finish() throws InterruptedException {
        }

        void spawn(String what, Runnable body) {
            Thread t = new Thread(() -> {
                while (running) {
                    try {
                        body.run();
                    } catch (RuntimeException e) {
                        if (running) {
                            ctx.recorder().note(name + ": " + e);
                            pause(100, 300);
                        }
                    }
                }
            }, "chaos-" + name + "-" + what);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }

        /** Sleeps a random time in [min, max) ms; the workload's simulated work and back-off, not a wait. */
        void pause(int min, int max) {
            try {
                Thread.sleep(min + ctx.random().nextInt(Math.max(1, max - min)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
        }

        String path(String leaf) {
            return pathOf(leaf);
        }
    }

    /** Returns the path of a recipe's node {@code leaf} under {@link #ROOT}. */
    static String pathOf(String leaf) {
        return ROOT + "/" + leaf;
    }

    /** A queue workload of either library: what its queue still holds, for a run whose queue did not drain. */
    interface Queue {
        /** Returns the items and lock nodes left. */
        String leftOver() throws Exception;

        /** Returns true when the queue holds no item on the server. */
        boolean drained() throws Exception;
    }

    /** Returns Baton's workload of {@code recipe}, not started. */
    static Workload<BatonClient> create(ChaosRecipe recipe, Context<BatonClient> ctx) {
        String name = recipe.id();
        BatonClient client = ctx.client();
        return switch (recipe) {
            case MUTEX -> new ChaosLockWorkloads.MutexWorkload(ctx, name,
                    new InterProcessMutex(ctx.client(), pathOf(name)), false);
            case SEMAPHORE_MUTEX -> new ChaosLockWorkloads.MutexWorkload(ctx, name,
                    new InterProcessSemaphoreMutex(ctx.client(), pathOf(name)), false);
            case RWLOCK, BROKEN_RWLOCK -> new ChaosLockWorkloads.ReadWriteWorkload(ctx, name,
                    recipe == ChaosRecipe.BROKEN_RWLOCK);
            case SEMAPHORE, BROKEN_SEMAPHORE -> new ChaosLockWorkloads.SemaphoreWorkload(ctx, name,
                    ChaosLockWorkloads.SemaphoreWorkload.leases(recipe));
            case LATCH -> new ChaosLeaderWorkloads.LatchWorkload<>(ctx, name,
                    ChaosLeaderWorkloads.batonLatches(client));
            case SELECTOR -> new ChaosLeaderWorkloads.SelectorWorkload<>(ctx, name,
                    ChaosLeaderWorkloads.batonSelectors(client));
            case DISCOVERY -> new ChaosDiscoveryWorkloads.DiscoveryWorkload<>(ctx, name,
                    ChaosDiscoveryWorkloads.baton(client));
            case BROKEN_DISCOVERY -> new ChaosDiscoveryWorkloads.DiscoveryWorkload<>(ctx, name,
                    ChaosDiscoveryWorkloads.broken(ChaosDiscoveryWorkloads.baton(client)));
            case BARRIER -> new ChaosBarrierWorkloads.GateWorkload<>(ctx, name,
                    ChaosBarrierWorkloads.batonGates(client));
            case BROKEN_BARRIER -> new ChaosBarrierWorkloads.GateWorkload<>(ctx, name,
                    ChaosBarrierWorkloads.brokenGates(ChaosBarrierWorkloads.batonGates(client)));
            case DOUBLE_BARRIER -> new ChaosBarrierWorkloads.DoubleBarrierWorkload<>(ctx, name,
                    ChaosBarrierWorkloads.baton(client));
            case BROKEN_DOUBLE_BARRIER -> new ChaosBarrierWorkloads.DoubleBarrierWorkload<>(ctx, name,
                    ChaosBarrierWorkloads.brokenRounds(ChaosBarrierWorkloads.baton(client)));
            case ATOMIC_LONG, ATOMIC_LONG_LOCKED -> new ChaosCounterWorkloads.AtomicLongWorkload<>(ctx, name,
                    ChaosCounterWorkloads.batonAtomicLongs(client), recipe == ChaosRecipe.ATOMIC_LONG_LOCKED);
            case SHARED_COUNT -> new ChaosCounterWorkloads.SharedCountWorkload<>(ctx, name,
                    ChaosCounterWorkloads.batonSharedCount(client, pathOf(name)));
            case QUEUE, QUEUE_UNLOCKED -> new ChaosQueueWorkloads.QueueWorkload<>(ctx, name,
                    ChaosQueueWorkloads.baton(client), recipe == ChaosRecipe.QUEUE);
            case BROKEN_QUEUE, BROKEN_LOCKED_QUEUE -> new ChaosQueueWorkloads.QueueWorkload<>(ctx, name,
                    ChaosQueueWorkloads.broken(ChaosQueueWorkloads.baton(client)),
                    recipe == ChaosRecipe.BROKEN_LOCKED_QUEUE);
            case BROKEN_COUNTER -> new ChaosCounterWorkloads.BrokenCounterWorkload<>(ctx, name);
            case DEAF_MUTEX -> new ChaosLockWorkloads.MutexWorkload(ctx, name,
                    new InterProcessMutex(ctx.client(), pathOf(name)), true);
            case STUCK_MUTEX -> new ChaosLockWorkloads.MutexWorkload(ctx, name,
                    ChaosLockWorkloads.neverReleased(new InterProcessSemaphoreMutex(ctx.client(), pathOf(name))),
                    false);
        };
    }

    /** Runs a release or close, which may fail when the session is gone; the run goes on. */
    static void releaseQuietly(ThrowingRunnable action) {
        try {
            action.run();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A timed acquire of a lock or a lease. */
    @FunctionalInterface
    interface Acquisition<T> {
        T within(long time, TimeUnit unit) throws Exception;
    }

    /** A release that may throw. */
    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
