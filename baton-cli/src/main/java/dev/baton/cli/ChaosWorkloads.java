package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.recipes.atomic.AtomicValue;
import dev.baton.recipes.atomic.DistributedAtomicLong;
import dev.baton.recipes.atomic.PromotedToLock;
import dev.baton.recipes.barriers.DistributedDoubleBarrier;
import dev.baton.recipes.leader.CancelLeadershipException;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.leader.LeaderLatchListener;
import dev.baton.recipes.leader.LeaderSelector;
import dev.baton.recipes.leader.LeaderSelectorListener;
import dev.baton.recipes.locks.HoldState;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.recipes.locks.InterProcessReadWriteLock;
import dev.baton.recipes.locks.InterProcessSemaphoreV2;
import dev.baton.recipes.locks.Lease;
import dev.baton.recipes.queue.DistributedQueue;
import dev.baton.recipes.queue.QueueBuilder;
import dev.baton.recipes.queue.QueueConsumer;
import dev.baton.recipes.queue.QueueSerializer;
import dev.baton.recipes.shared.SharedCount;
import dev.baton.recipes.shared.VersionedValue;
import dev.baton.retry.RetryNTimes;
import dev.baton.state.ConnectionState;
import dev.baton.testing.History;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.zookeeper.KeeperException;

/**
 * The recipe workloads of a chaos client process ({@link ChaosClient}): each runs one recipe the way a service
 * would, on its own thread, and records what it believes in the process's history at the safe side of each
 * action: a hold is recorded after the server granted it and only while the recipe still says it is safe
 * ({@code safeFor() > 0}), its end before the release is sent, and a loss as soon as the recipe tells of it. The
 * fencing token of each hold goes with it. Counters record every operation's invocation and outcome (a
 * {@link KeeperException} is an unknown outcome) for the linearizability checker, and sync before each one, as
 * plain ZooKeeper reads are only sequentially consistent.
 *
 * <p>Znodes live under {@value #ROOT}. Names recorded in the history are the recipe names of {@link ChaosRecipe}.
 */
final class ChaosWorkloads {

    /** The parent of every recipe path of a chaos run. */
    static final String ROOT = "/baton-chaos";

    private ChaosWorkloads() {
    }

    /** What every workload gets: the client, its recorder, its randomness and the run's shape. */
    record Context(BatonClient client, History.Recorder recorder, Random random, int clients, Duration session) {
    }

    /** One recipe's workload in one process. Thread-safety: start/stop/finish from the command thread. */
    abstract static class Workload {
        final Context ctx;
        final String name;
        private final List<Thread> threads = new ArrayList<>();
        volatile boolean running = true;
        /** Guards beliefs and their records, so that no record follows a recorded loss out of order. */
        final Object monitor = new Object();

        Workload(Context ctx, String name) {
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
            return ROOT + "/" + leaf;
        }
    }

    /** The hold of a lock-like recipe: the token believed, or none. */
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

    /** {@code latch}: a {@link LeaderLatch}; a leader steps down after a while (closes it and joins anew). */
    static final class LatchWorkload extends Workload {
        private LeaderLatch latch; // guarded by monitor, as the two below
        private boolean leading;
        private long token;

        LatchWorkload(Context ctx, String name) {
            super(ctx, name);
        }

        @Override
        void start() {
            spawn("worker", () -> {
                LeaderLatch mine = new LeaderLatch(ctx.client(), path(name), ctx.recorder().client());
                synchronized (monitor) {
                    latch = mine;
                }
                mine.addListener(new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        synchronized (monitor) {
                            if (latch == mine && !leading && mine.safeFor().toMillis() > 0) {
                                leading = true;
                                token = mine.fencingToken().orElse(History.NO_TOKEN);
                                ctx.recorder().becameLeader(name, token);
                            }
                        }
                    }

                    @Override
                    public void notLeader() {
                        stepDown(mine, "notLeader");
                    }
                });
                mine.start();
                try {
                    // Lead (or wait) a while, then leave: leadership must move on without a double leader.
                    pause(500, 4_000);
                } finally {
                    stepDown(mine, "closing");
                    releaseQuietly(mine::close);
                }
            });
        }

        private void stepDown(LeaderLatch which, String why) {
            synchronized (monitor) {
                if (latch == which && leading) {
                    ctx.recorder().lostLeadership(name, token, why);
                    leading = false;
                }
            }
        }
    }

    /** {@code selector}: a {@link LeaderSelector} that requeues; a leader leads a while, then returns. */
    static final class SelectorWorkload extends Workload {
        private final LeaderSelector selector;
        private boolean leading; // guarded by monitor, as token
        private long token;

        SelectorWorkload(Context ctx, String name) {
            super(ctx, name);
            this.selector = new LeaderSelector(ctx.client(), path(name), new LeaderSelectorListener() {
                @Override
                public void takeLeadership(BatonClient client) throws Exception {
                    synchronized (monitor) {
                        if (selector.safeFor().toMillis() <= 0) {
                            return;
                        }
                        leading = true;
                        token = selector.fencingToken().orElse(History.NO_TOKEN);
                        ctx.recorder().becameLeader(name, token);
                    }
                    try {
                        Thread.sleep(50 + ctx.random().nextInt(500));
                    } finally {
                        end("returned");
                    }
                }

                @Override
                public void stateChanged(BatonClient client, ConnectionState newState) {
                    if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST) {
                        end(newState.name());
                        throw new CancelLeadershipException();
                    }
                }
            });
            selector.setId(ctx.recorder().client());
            selector.autoRequeue();
        }

        private void end(String why) {
            synchronized (monitor) {
                if (leading) {
                    ctx.recorder().lostLeadership(name, token, why);
                    leading = false;
                }
            }
        }

        @Override
        void start() {
            selector.start();
        }

        @Override
        void stop() throws InterruptedException {
            super.stop();
            end("closing");
            releaseQuietly(selector::close);
        }
    }

    /**
     * {@code double-barrier}: every client enters and leaves a {@link DistributedDoubleBarrier} of all clients,
     * round after round, one barrier path per round; a member that timed out joins the highest round it sees.
     */
    static final class DoubleBarrierWorkload extends Workload {
        private int round;
        private volatile boolean finishing;

        DoubleBarrierWorkload(Context ctx, String name) {
            super(ctx, name);
        }

        @Override
        void start() {
            long waitMs = ctx.session().toMillis() * 2 + 4_000;
            spawn("worker", () -> {
                if (finishing) {
                    running = false; // the round in progress is done; start no other
                    return;
                }
                round = Math.max(round + 1, highestRound());
                String barrierName = name + "-" + round;
                DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(ctx.client(),
                        path(name) + "/round-" + round, ctx.clients());
                try {
                    ctx.recorder().enterCalled(barrierName);
                    if (!barrier.enter(waitMs, TimeUnit.MILLISECONDS)) {
                        ctx.recorder().note(barrierName + ": enter timed out");
                        return;
                    }
                    ctx.recorder().enterReturned(barrierName);
                    pause(0, 50);
                    ctx.recorder().leaveCalled(barrierName);
                    if (barrier.leave(waitMs, TimeUnit.MILLISECONDS)) {
                        ctx.recorder().leaveReturned(barrierName);
                    } else {
                        ctx.recorder().note(barrierName + ": leave timed out");
                    }
                } catch (KeeperException e) {
                    ctx.recorder().note(barrierName + ": " + e);
                    pause(100, 300);
                } catch (InterruptedException e) {
                    running = false;
                }
            });
        }

        /** Ends the rounds: the one in progress runs to its end (the others are finishing too), no new one. */
        @Override
        void finish() throws InterruptedException {
            finishing = true;
            joinThreads(Duration.ofMillis(ctx.session().toMillis() * 4 + 10_000));
        }

        private int highestRound() {
            try {
                int max = 0;
                for (String child : ctx.client().getChildren().forPath(path(name))) {
                    if (child.startsWith("round-")) {
                        max = Math.max(max, Integer.parseInt(child.substring("round-".length())));
                    }
                }
                return max;
            } catch (KeeperException | NumberFormatException e) {
                return 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
        }
    }

    /** An operation on a counter: its text for the history, and how to run it. */
    private interface CounterCall {
        /** Returns the result text, or null if the operation certainly did not take effect. */
        String run() throws KeeperException, InterruptedException;
    }

    /** Counters: records invocations and outcomes; syncs first, so that the read it makes is current. */
    abstract static class CounterWorkload extends Workload {
        CounterWorkload(Context ctx, String name) {
            super(ctx, name);
        }

        /** Runs one operation, recorded; returns its result text, or null if it failed or its outcome is unknown. */
        String op(String operation, CounterCall call) {
            ctx.recorder().invoked(name, operation);
            try {
                ctx.client().sync().forPath(path(name));
                String result = call.run();
                if (result == null) {
                    ctx.recorder().failed(name, operation);
                } else {
                    ctx.recorder().ok(name, operation, result);
                }
                return result;
            } catch (KeeperException | RuntimeException e) {
                ctx.recorder().unknown(name, operation, e.getClass().getSimpleName());
                pause(50, 200);
                return null;
            } catch (InterruptedException e) {
                ctx.recorder().unknown(name, operation, "interrupted");
                running = false;
                return null;
            }
        }
    }

    /**
     * {@code atomic-long} and {@code atomic-long-locked}: a {@link DistributedAtomicLong} (the latter promoted to a
     * lock after one optimistic try); increments, reads and compare-and-sets from the last value read.
     */
    static final class AtomicLongWorkload extends CounterWorkload {
        private final DistributedAtomicLong counter;
        private long lastRead;

        AtomicLongWorkload(Context ctx, String name, boolean locked) {
            super(ctx, name);
            this.counter = locked
                    ? new DistributedAtomicLong(ctx.client(), path(name), new RetryNTimes(1, 10),
                            PromotedToLock.builder().lockPath(path(name + "-lock")).timeout(3, TimeUnit.SECONDS)
                                    .retryPolicy(new RetryNTimes(3, 20)).build())
                    : new DistributedAtomicLong(ctx.client(), path(name), new RetryNTimes(30, 10));
        }

        @Override
        void start() {
            spawn("worker", () -> {
                int dice = ctx.random().nextInt(10);
                if (dice < 6) {
                    op("add 1", () -> change(counter.increment()));
                } else if (dice < 8) {
                    read();
                } else {
                    long from = lastRead;
                    op("cas " + from + " " + (from + 1), () -> {
                        AtomicValue<Long> v = counter.compareAndSet(from, from + 1);
                        return Boolean.toString(v.succeeded());
                    });
                }
                pause(10, 80);
            });
        }

        private void read() {
            String v = op("read", () -> Long.toString(counter.get().postValue()));
            if (v != null) {
                lastRead = Long.parseLong(v);
            }
        }

        private static String change(AtomicValue<Long> v) {
            return v.succeeded() ? v.preValue() + " " + v.postValue() : null;
        }

        @Override
        void finish() throws InterruptedException {
            halt(); // one operation at a time per client: the worker first
            running = true;
            read();
            running = false;
        }
    }

    /** {@code shared-count}: a {@link SharedCount}, incremented by version-checked writes from its cached value. */
    static final class SharedCountWorkload extends CounterWorkload {
        private final SharedCount count;

        SharedCountWorkload(Context ctx, String name) {
            super(ctx, name);
            this.count = new SharedCount(ctx.client(), path(name), 0);
        }

        @Override
        void start() throws Exception {
            count.start();
            spawn("worker", () -> {
                VersionedValue<Integer> seen = count.getVersionedValue();
                int from = seen.getValue();
                // Every write adds 1, so a value names one version: the check by version is a check by value.
                op("cas " + from + " " + (from + 1), () -> Boolean.toString(count.trySetCount(seen, from + 1)));
                pause(10, 80);
            });
        }

        @Override
        void stop() throws InterruptedException {
            super.stop();
            releaseQuietly(count::close);
        }
    }

    /**
     * {@code broken-counter}: a deliberately wrong counter for the checker's self-test: it reads the value and
     * writes value + 1 without a version check, so concurrent increments are lost.
     */
    static final class BrokenCounterWorkload extends CounterWorkload {
        BrokenCounterWorkload(Context ctx, String name) {
            super(ctx, name);
        }

        @Override
        void start() throws Exception {
            try {
                ctx.client().create().creatingParentsIfNeeded().forPath(path(name), encode(0));
            } catch (KeeperException.NodeExistsException e) {
                // Another client made it.
            }
            spawn("worker", () -> {
                op("add 1", () -> {
                    long before = decode(ctx.client().getData().forPath(path(name)));
                    ctx.client().setData().forPath(path(name), encode(before + 1));
                    return before + " " + (before + 1);
                });
                pause(0, 5);
            });
        }

        private static byte[] encode(long v) {
            return java.nio.ByteBuffer.allocate(8).putLong(v).array();
        }

        private static long decode(byte[] b) {
            return java.nio.ByteBuffer.wrap(b).getLong();
        }
    }

    /**
     * {@code queue}: a {@link DistributedQueue} with a lock path; every client puts uniquely named items and
     * consumes. A put is recorded before it is sent and retried until it succeeds, so every recorded item is in
     * the queue at least once.
     */
    static final class QueueWorkload extends Workload {
        private static final QueueSerializer<String> STRINGS = new QueueSerializer<>() {
            @Override
            public byte[] serialize(String item) {
                return item.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String deserialize(byte[] bytes) {
                return new String(bytes, StandardCharsets.UTF_8);
            }
        };

        private final DistributedQueue<String> queue;
        private volatile boolean producing = true;
        private String current; // guarded by monitor: the item being consumed and believed
        private int next;

        QueueWorkload(Context ctx, String name) {
            super(ctx, name);
            QueueConsumer<String> consumer = new QueueConsumer<>() {
                @Override
                public void consumeMessage(String item) throws InterruptedException {
                    synchronized (monitor) {
                        current = item;
                        ctx.recorder().itemTaken(item);
                    }
                    Thread.sleep(2 + ctx.random().nextInt(20));
                    synchronized (monitor) {
                        if (item.equals(current)) {
                            ctx.recorder().itemDone(item);
                            current = null;
                        }
                    }
                }

                @Override
                public void stateChanged(BatonClient client, ConnectionState newState) {
                    if (newState == ConnectionState.LOST) {
                        synchronized (monitor) {
                            if (current != null) {
                                ctx.recorder().itemDropped(current, "LOST");
                                current = null;
                            }
                        }
                    }
                }
            };
            this.queue = QueueBuilder.builder(ctx.client(), consumer, STRINGS, path(name))
                    .lockPath(path(name + "-lock")).putInBackground(false).buildQueue();
        }

        @Override
        void start() throws Exception {
            queue.start();
            spawn("producer", () -> {
                if (!producing) {
                    pause(100, 200);
                    return;
                }
                String item = ctx.recorder().client() + "-" + (++next);
                ctx.recorder().itemPut(item);
                while (true) {
                    try {
                        queue.put(item);
                        break;
                    } catch (KeeperException e) {
                        pause(100, 300); // put again: at least once; the item is recorded as put
                    } catch (InterruptedException e) {
                        // Stopping: one last try below, so that the recorded item is really there.
                        Thread.interrupted();
                        putLastTime(item);
                        running = false;
                        return;
                    }
                }
                pause(30, 150);
            });
        }

        private void putLastTime(String item) {
            for (int i = 0; i < 50; i++) {
                try {
                    queue.put(item);
                    return;
                } catch (KeeperException e) {
                    pause(100, 300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        /** Stops putting; consumers go on until {@link #stop()}. */
        @Override
        void finish() {
            producing = false;
        }

        /** What is left in the queue: items and lock nodes, for a run whose queue did not drain. */
        String leftOver() throws KeeperException, InterruptedException {
            List<String> items = ctx.client().getChildren().forPath(path(name));
            List<String> locks = ctx.client().getChildren().forPath(path(name + "-lock"));
            return "items " + items + " locks " + locks;
        }

        @Override
        void stop() throws InterruptedException {
            producing = false;
            super.stop();
            releaseQuietly(queue::close);
        }
    }

    /** The workload for a recipe name. */
    static Workload create(ChaosRecipe recipe, Context ctx) {
        String name = recipe.id();
        return switch (recipe) {
            case MUTEX -> new MutexWorkload(ctx, name, false);
            case RWLOCK -> new ReadWriteWorkload(ctx, name);
            case SEMAPHORE -> new SemaphoreWorkload(ctx, name);
            case LATCH -> new LatchWorkload(ctx, name);
            case SELECTOR -> new SelectorWorkload(ctx, name);
            case DOUBLE_BARRIER -> new DoubleBarrierWorkload(ctx, name);
            case ATOMIC_LONG -> new AtomicLongWorkload(ctx, name, false);
            case ATOMIC_LONG_LOCKED -> new AtomicLongWorkload(ctx, name, true);
            case SHARED_COUNT -> new SharedCountWorkload(ctx, name);
            case QUEUE -> new QueueWorkload(ctx, name);
            case BROKEN_COUNTER -> new BrokenCounterWorkload(ctx, name);
            case DEAF_MUTEX -> new MutexWorkload(ctx, name, true);
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
        T within(long time, TimeUnit unit) throws KeeperException, InterruptedException;
    }

    /** A release that may throw. */
    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
