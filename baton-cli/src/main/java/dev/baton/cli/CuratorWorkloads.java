package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.cli.ChaosCounterWorkloads.CounterWorkload;
import dev.baton.cli.ChaosLockWorkloads.HoldingWorkload;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.atomic.PromotedToLock;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.leader.CancelLeadershipException;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;

/**
 * The workloads of a Curator client process ({@link CuratorChaosClient}): each runs Curator's recipe of the same
 * name on the same znodes as the Baton clients' workloads, and records what a careful Curator user believes by the
 * same rules (see {@link ChaosWorkloads}). Curator's recipes have no {@code safeFor()} and no hold listener, so a
 * holder believes while the client is connected and stops at the first {@code SUSPENDED} or {@code LOST}, as
 * Curator's documentation asks of its users. Curator gives no fencing tokens; the workloads read Baton's (the
 * czxid of the hold's node) from the server after each grant, so that fencing is checked across both libraries.
 */
final class CuratorWorkloads {

    /** {@code InterProcessMutex.getLockPath()}: protected in Curator, the node of the hold. */
    private static final Method LOCK_PATH = lockPathMethod();
    /** {@code LeaderSelector.mutex}: private in Curator, the lock whose node is a leadership's. */
    private static final Field SELECTOR_MUTEX = selectorMutexField();

    private CuratorWorkloads() {
    }

    /** Returns Curator's workload of {@code recipe}, not started. */
    static Workload<CuratorFramework> create(ChaosRecipe recipe, Context<CuratorFramework> ctx) {
        String name = recipe.id();
        return switch (recipe) {
            case MUTEX -> new MutexWorkload(ctx, name, false);
            case DEAF_MUTEX -> new MutexWorkload(ctx, name, true);
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
        };
    }

    /** Whether the client is connected now: a Curator holder's only evidence that its hold still stands. */
    private static boolean connected(Context<CuratorFramework> ctx) {
        return ctx.client().getZookeeperClient().isConnected();
    }

    /** Returns the node of {@code mutex}'s hold, or null when it holds none. */
    private static String lockPath(InterProcessMutex mutex) {
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

    private static Field selectorMutexField() {
        try {
            Field f = LeaderSelector.class.getDeclaredField("mutex");
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("this Curator has no LeaderSelector.mutex", e);
        }
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

    /** {@code mutex}: Curator's {@link InterProcessMutex}; {@code deaf-mutex} ignores the connection. */
    private static final class MutexWorkload extends CuratorHolding {
        private final InterProcessMutex mutex;
        private final boolean deaf;

        MutexWorkload(Context<CuratorFramework> ctx, String name, boolean deaf) {
            super(ctx, name);
            this.mutex = new InterProcessMutex(ctx.client(), path(name));
            this.deaf = deaf;
        }

        @Override
        void start() {
            if (!deaf) {
                listen();
            }
            spawn("worker", () -> {
                if (!Boolean.TRUE.equals(take(mutex::acquire))) {
                    return;
                }
                try {
                    if (deaf) {
                        String mine = lockPath(mutex);
                        if (believe(name, CuratorChaosClient.czxid(ctx.client(), mine), () -> 1)) {
                            holdDeafly((time, unit) -> {
                                Collection<String> nodes = mutex.getParticipantNodes();
                                return !nodes.isEmpty() && !nodes.iterator().next().equals(mine);
                            });
                        }
                    } else {
                        holdAndWork(name, lockPath(mutex));
                    }
                } catch (Exception e) {
                    ctx.recorder().note(name + ": no token: " + e);
                } finally {
                    letGo();
                    releaseQuietly(mutex::release);
                }
                pause(5, 60);
            });
        }
    }

    /** {@code rwlock}: Curator's {@link InterProcessReadWriteLock}, a writer a third of the time. */
    private static final class ReadWriteWorkload extends CuratorHolding {
        private final InterProcessReadWriteLock lock;

        ReadWriteWorkload(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
            this.lock = new InterProcessReadWriteLock(ctx.client(), path(name));
        }

        @Override
        void start() {
            listen();
            spawn("worker", () -> {
                boolean write = ctx.random().nextInt(3) == 0;
                InterProcessMutex half = write ? lock.writeLock() : lock.readLock();
                if (!Boolean.TRUE.equals(take(half::acquire))) {
                    return;
                }
                try {
                    holdAndWork(write ? ChaosLockWorkloads.ReadWriteWorkload.WRITE
                            : ChaosLockWorkloads.ReadWriteWorkload.READ, lockPath(half));
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

        SemaphoreWorkload(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
            this.semaphore = new InterProcessSemaphoreV2(ctx.client(), path(name),
                    ChaosLockWorkloads.SemaphoreWorkload.MAX_LEASES);
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

    /**
     * {@code latch}: Curator's {@link LeaderLatch}, joined, held a while and closed. Its listener runs on a thread
     * of its own: Curator calls it on the ZooKeeper event thread, where the token read would wait for itself.
     */
    private static final class LatchWorkload extends Workload<CuratorFramework> {
        private final ExecutorService listenerThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "chaos-latch-listener");
            t.setDaemon(true);
            return t;
        });
        private LeaderLatch latch; // guarded by monitor, as the two below
        private boolean leading;
        private long token;

        LatchWorkload(Context<CuratorFramework> ctx, String name) {
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
                        long t;
                        try {
                            t = CuratorChaosClient.czxid(ctx.client(), mine.getOurPath());
                        } catch (Exception e) {
                            ctx.recorder().note(name + ": no token: " + e);
                            return;
                        }
                        synchronized (monitor) {
                            if (latch == mine && !leading && mine.hasLeadership() && connected(ctx)) {
                                leading = true;
                                token = t;
                                ctx.recorder().becameLeader(name, token);
                            }
                        }
                    }

                    @Override
                    public void notLeader() {
                        stepDown(mine, "notLeader");
                    }
                }, listenerThread);
                try {
                    mine.start();
                    pause(500, 4_000);
                } catch (Exception e) {
                    ctx.recorder().note(name + ": " + e);
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

        @Override
        void stop() throws InterruptedException {
            super.stop();
            listenerThread.shutdownNow();
        }
    }

    /** {@code selector}: Curator's {@link LeaderSelector}, requeued; cancelled at SUSPENDED or LOST. */
    private static final class SelectorWorkload extends Workload<CuratorFramework> {
        private final LeaderSelector selector;
        private boolean leading; // guarded by monitor, as token
        private long token;

        SelectorWorkload(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
            this.selector = new LeaderSelector(ctx.client(), path(name), new LeaderSelectorListener() {
                @Override
                public void takeLeadership(CuratorFramework client) throws Exception {
                    long t = CuratorChaosClient.czxid(client, lockPath((InterProcessMutex) SELECTOR_MUTEX
                            .get(selector)));
                    synchronized (monitor) {
                        if (!connected(ctx)) {
                            return;
                        }
                        leading = true;
                        token = t;
                        ctx.recorder().becameLeader(name, token);
                    }
                    try {
                        Thread.sleep(50 + ctx.random().nextInt(500));
                    } finally {
                        end("returned");
                    }
                }

                @Override
                public void stateChanged(CuratorFramework client, ConnectionState newState) {
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

    /** {@code double-barrier}: Curator's {@link DistributedDoubleBarrier}, one barrier path per round. */
    private static final class DoubleBarrierWorkload extends Workload<CuratorFramework> {
        private int round;
        private volatile boolean finishing;

        DoubleBarrierWorkload(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
        }

        @Override
        void start() {
            long waitMs = ctx.session().toMillis() * 2 + 4_000;
            spawn("worker", () -> {
                if (finishing) {
                    running = false;
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
                } catch (InterruptedException e) {
                    running = false;
                } catch (Exception e) {
                    ctx.recorder().note(barrierName + ": " + e);
                    pause(100, 300);
                }
            });
        }

        @Override
        void finish() throws InterruptedException {
            finishing = true;
            joinThreads(Duration.ofMillis(ctx.session().toMillis() * 4 + 10_000));
        }

        private int highestRound() {
            try {
                return ChaosBarrierWorkloads.highestRound(ctx.client().getChildren().forPath(path(name)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            } catch (Exception e) {
                return 0;
            }
        }
    }

    /** A counter workload on Curator's client. */
    private abstract static class CuratorCounterWorkload extends CounterWorkload<CuratorFramework> {
        CuratorCounterWorkload(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
        }

        @Override
        final void sync() throws Exception {
            ctx.client().sync().forPath(path(name));
        }
    }

    /** {@code atomic-long} and {@code atomic-long-locked}: Curator's {@link DistributedAtomicLong}. */
    private static final class AtomicLongWorkload extends CuratorCounterWorkload {
        private final DistributedAtomicLong counter;
        private long lastRead;

        AtomicLongWorkload(Context<CuratorFramework> ctx, String name, boolean locked) {
            super(ctx, name);
            this.counter = locked
                    ? new DistributedAtomicLong(ctx.client(), path(name), new RetryNTimes(1, 10),
                            PromotedToLock.builder().lockPath(path(name + "-lock")).timeout(3, TimeUnit.SECONDS)
                                    .retryPolicy(new RetryNTimes(3, 20)).build())
                    : new DistributedAtomicLong(ctx.client(), path(name), new RetryNTimes(30, 10));
        }

        @Override
        void start() throws Exception {
            counter.initialize(0L); // as Baton's workload does: see ChaosCounterWorkloads.AtomicLongWorkload
            spawn("worker", () -> {
                int dice = ctx.random().nextInt(10);
                if (dice < 6) {
                    op("add 1", () -> change(counter.increment()));
                } else if (dice < 8) {
                    read();
                } else {
                    long from = lastRead;
                    op("cas " + from + " " + (from + 1),
                            () -> Boolean.toString(counter.compareAndSet(from, from + 1).succeeded()));
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
            halt();
            running = true;
            read();
            running = false;
        }
    }

    /** {@code shared-count}: Curator's {@link SharedCount}, version-checked increments from its cached value. */
    private static final class SharedCountWorkload extends CuratorCounterWorkload {
        private final SharedCount count;

        SharedCountWorkload(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
            this.count = new SharedCount(ctx.client(), path(name), 0);
        }

        @Override
        void start() throws Exception {
            count.start();
            spawn("worker", () -> {
                VersionedValue<Integer> seen = count.getVersionedValue();
                int from = seen.getValue();
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

    /** {@code broken-counter} on Curator's client: a read and an unversioned write, losing increments. */
    private static final class BrokenCounterWorkload extends CuratorCounterWorkload {
        BrokenCounterWorkload(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
        }

        @Override
        void start() throws Exception {
            try {
                ctx.client().create().creatingParentsIfNeeded().forPath(path(name),
                        ChaosCounterWorkloads.BrokenCounterWorkload.encode(0));
            } catch (org.apache.zookeeper.KeeperException.NodeExistsException e) {
                // another client made it
            }
            spawn("worker", () -> {
                op("add 1", () -> {
                    long before = ChaosCounterWorkloads.BrokenCounterWorkload.decode(ctx.client().getData()
                            .forPath(path(name)));
                    ctx.client().setData().forPath(path(name),
                            ChaosCounterWorkloads.BrokenCounterWorkload.encode(before + 1));
                    return before + " " + (before + 1);
                });
                pause(0, 5);
            });
        }
    }

    /** {@code queue}: Curator's {@link DistributedQueue} with the same lock path, items and rules as Baton's. */
    private static final class QueueWorkload extends Workload<CuratorFramework> implements ChaosWorkloads.Queue {
        private static final QueueSerializer<String> UTF8 = new QueueSerializer<>() {
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

        QueueWorkload(Context<CuratorFramework> ctx, String name) {
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
                public void stateChanged(CuratorFramework client, ConnectionState newState) {
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
            this.queue = QueueBuilder.builder(ctx.client(), consumer, UTF8, path(name))
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
                String item = ctx.recorder().client() + "-" + ++next;
                ctx.recorder().itemPut(item);
                while (true) {
                    try {
                        queue.put(item);
                        break;
                    } catch (InterruptedException e) {
                        // Stopping: one last try below, so that the recorded item is really there.
                        Thread.interrupted();
                        putLastTime(item);
                        running = false;
                        return;
                    } catch (Exception e) {
                        pause(100, 300); // put again: at least once; the item is recorded as put
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
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (Exception e) {
                    pause(100, 300);
                }
            }
        }

        @Override
        void finish() {
            producing = false;
        }

        @Override
        public String leftOver() throws Exception {
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
}
