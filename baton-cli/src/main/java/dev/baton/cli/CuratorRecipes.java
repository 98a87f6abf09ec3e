package dev.baton.cli;

import dev.baton.cli.ChaosBarrierWorkloads.RoundBarrier;
import dev.baton.cli.ChaosBarrierWorkloads.Gate;
import dev.baton.cli.ChaosBarrierWorkloads.Gates;
import dev.baton.cli.ChaosBarrierWorkloads.RoundBarriers;
import dev.baton.cli.ChaosCounterWorkloads.AtomicLong;
import dev.baton.cli.ChaosDiscoveryWorkloads.Registries;
import dev.baton.cli.ChaosDiscoveryWorkloads.Registry;
import dev.baton.cli.ChaosCounterWorkloads.AtomicLongs;
import dev.baton.cli.ChaosCounterWorkloads.SharedCounter;
import dev.baton.cli.ChaosLeaderWorkloads.Elections;
import dev.baton.cli.ChaosLeaderWorkloads.Leadership;
import dev.baton.cli.ChaosQueueWorkloads.ItemQueue;
import dev.baton.cli.ChaosQueueWorkloads.ItemQueues;
import dev.baton.cli.ChaosWorkloads.Nodes;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.atomic.PromotedToLock;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.leader.CancelLeadershipException;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.details.JsonInstanceSerializer;
import org.apache.zookeeper.KeeperException;

/**
 * Curator's recipes behind the chaos workloads' recipe interfaces, configured as their Baton counterparts
 * ({@link ChaosWorkloads#create}): the same paths, retries, leases and lock paths. A leadership is believed while
 * the recipe says it leads and the client is connected; its token is the czxid of its node, read from the server.
 */
final class CuratorRecipes {
    private CuratorRecipes() {
    }

    /** Curator's client's node operations. */
    static Nodes nodes(CuratorFramework client) {
        return new Nodes() {
            @Override
            public void sync(String path) throws Exception {
                client.sync().forPath(path);
            }

            @Override
            public List<String> children(String path) throws Exception {
                return client.getChildren().forPath(path);
            }

            @Override
            public byte[] read(String path) throws Exception {
                return client.getData().forPath(path);
            }

            @Override
            public void write(String path, byte[] data) throws Exception {
                client.setData().forPath(path, data);
            }

            @Override
            public void createIfAbsent(String path, byte[] data) throws Exception {
                try {
                    client.create().creatingParentsIfNeeded().forPath(path, data);
                } catch (KeeperException.NodeExistsException made) {
                    // another client made it
                }
            }
        };
    }

    /**
     * Curator's {@link LeaderLatch}. Its listener runs on a thread of its own: Curator calls it on the ZooKeeper
     * event thread, where the token read would wait for itself.
     */
    static Elections latches(CuratorFramework client) {
        return (path, id, leadership) -> {
            LeaderLatch latch = new LeaderLatch(client, path, id);
            ExecutorService listenerThread = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "chaos-latch-listener");
                t.setDaemon(true);
                return t;
            });
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    try {
                        OptionalLong token = OptionalLong.of(CuratorChaosClient.czxid(client, latch.getOurPath()));
                        leadership.lead(latch.hasLeadership() && connected(client) ? token : OptionalLong.empty());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (Exception e) {
                        leadership.ended("no token: " + e);
                    }
                }

                @Override
                public void notLeader() {
                    leadership.ended("notLeader");
                }
            }, listenerThread);
            return ChaosLeaderWorkloads.election(latch::start, () -> {
                try {
                    latch.close();
                } finally {
                    listenerThread.shutdownNow();
                }
            });
        };
    }

    /** Curator's {@link LeaderSelector}, requeued; cancelled at SUSPENDED or LOST. */
    static Elections selectors(CuratorFramework client) {
        return (path, id, leadership) -> new CuratorSelector(client, path, id, leadership).election();
    }

    private static final class CuratorSelector {
        private final LeaderSelector selector;

        CuratorSelector(CuratorFramework client, String path, String id, Leadership leadership) {
            selector = new LeaderSelector(client, path, new LeaderSelectorListener() {
                @Override
                public void takeLeadership(CuratorFramework c) throws Exception {
                    InterProcessMutex mutex = (InterProcessMutex) CuratorWorkloads.SELECTOR_MUTEX.get(selector);
                    long token = CuratorChaosClient.czxid(c, CuratorWorkloads.lockPath(mutex));
                    leadership.lead(connected(c) ? OptionalLong.of(token) : OptionalLong.empty());
                }

                @Override
                public void stateChanged(CuratorFramework c, ConnectionState newState) {
                    if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST) {
                        leadership.ended(newState.name());
                        throw new CancelLeadershipException();
                    }
                }
            });
            selector.setId(id);
            selector.autoRequeue();
        }

        ChaosLeaderWorkloads.Election election() {
            return ChaosLeaderWorkloads.election(selector::start, selector::close);
        }
    }

    /** Curator's {@link DistributedDoubleBarrier}. */
    static Registries registries(CuratorFramework client) {
        return basePath -> {
            ServiceDiscovery<String> discovery = ServiceDiscoveryBuilder.builder(String.class).client(client)
                    .basePath(basePath).serializer(new JsonInstanceSerializer<>(String.class)).build();
            discovery.start();
            return new Registry() {
                @Override
                public void register(String id) throws Exception {
                    discovery.registerService(ServiceInstance.<String>builder().name(ChaosDiscoveryWorkloads.SERVICE)
                            .id(id).address("127.0.0.1").port(8080).payload(id).build());
                }

                @Override
                public List<String> query() throws Exception {
                    return discovery.queryForInstances(ChaosDiscoveryWorkloads.SERVICE).stream()
                            .map(ServiceInstance::getId).toList();
                }

                @Override
                public void close() throws Exception {
                    discovery.close();
                }
            };
        };
    }

    static Gates gates(CuratorFramework client) {
        return path -> {
            DistributedBarrier barrier = new DistributedBarrier(client, path);
            return new Gate(barrier::setBarrier, barrier::removeBarrier,
                    ms -> barrier.waitOnBarrier(ms, TimeUnit.MILLISECONDS));
        };
    }

    /**
     * Curator's {@link DistributedDoubleBarrier}, each step held to its time limit: Curator's {@code enter} waits
     * without one once a connection event has woken it (a one-hour run saw a member stay in it for 55 minutes,
     * and no round of all members could form after that), so the step is interrupted a while after its limit and
     * fails saying so.
     */
    static RoundBarriers barriers(CuratorFramework client) {
        return (path, members) -> {
            DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, path, members);
            return new RoundBarrier(ms -> held(ms, OVERRUN_MS, "enter", () -> barrier.enter(ms, TimeUnit.MILLISECONDS)),
                    ms -> held(ms, OVERRUN_MS, "leave", () -> barrier.leave(ms, TimeUnit.MILLISECONDS)));
        };
    }

    /** How long past its limit a step may run before it is interrupted. */
    private static final long OVERRUN_MS = 5_000;

    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "chaos-curator-watchdog");
        t.setDaemon(true);
        return t;
    });

    /** A blocking step that may outrun its limit. */
    @FunctionalInterface
    interface Blocking {
        boolean run() throws Exception;
    }

    /** Runs {@code step}, interrupting it {@code overrunMs} after {@code ms}; that fails it, naming the step. */
    static boolean held(long ms, long overrunMs, String what, Blocking step) throws Exception {
        Thread caller = Thread.currentThread();
        Object lock = new Object();
        boolean[] state = new boolean[2]; // [0]: the step ended, [1]: the watchdog interrupted it
        ScheduledFuture<?> dog = WATCHDOG.schedule(() -> {
            synchronized (lock) {
                if (!state[0]) {
                    state[1] = true;
                    caller.interrupt();
                }
            }
        }, ms + overrunMs, TimeUnit.MILLISECONDS);
        try {
            return step.run();
        } catch (InterruptedException e) {
            synchronized (lock) {
                if (state[1]) {
                    throw new IllegalStateException("Curator's " + what + " did not return within its limit of "
                            + ms + " ms; interrupted " + overrunMs + " ms after it", e);
                }
            }
            throw e;
        } finally {
            dog.cancel(false);
            synchronized (lock) {
                state[0] = true;
                if (state[1]) {
                    Thread.interrupted(); // the interrupt was the watchdog's, not a stop
                }
            }
        }
    }

    /** Curator's {@link DistributedAtomicLong}, with the retries of Baton's. */
    static AtomicLongs atomicLongs(CuratorFramework client) {
        return (path, lockPath, locked) -> {
            DistributedAtomicLong counter = locked
                    ? new DistributedAtomicLong(client, path, new RetryNTimes(1, 10), PromotedToLock.builder()
                            .lockPath(lockPath).timeout(3, TimeUnit.SECONDS).retryPolicy(new RetryNTimes(3, 20))
                            .build())
                    : new DistributedAtomicLong(client, path, new RetryNTimes(30, 10));
            return new AtomicLong() {
                @Override
                public void initialize() throws Exception {
                    counter.initialize(0L);
                }

                @Override
                public String increment() throws Exception {
                    AtomicValue<Long> v = counter.increment();
                    return v.succeeded() ? v.preValue() + " " + v.postValue() : null;
                }

                @Override
                public long get() throws Exception {
                    return counter.get().postValue();
                }

                @Override
                public boolean compareAndSet(long from, long to) throws Exception {
                    return counter.compareAndSet(from, to).succeeded();
                }
            };
        };
    }

    /** Curator's {@link SharedCount}, starting at 0. */
    static SharedCounter<VersionedValue<Integer>> sharedCount(CuratorFramework client, String path) {
        SharedCount count = new SharedCount(client, path, 0);
        return new SharedCounter<>() {
            @Override
            public void start() throws Exception {
                count.start();
            }

            @Override
            public VersionedValue<Integer> seen() {
                return count.getVersionedValue();
            }

            @Override
            public int valueOf(VersionedValue<Integer> seen) {
                return seen.getValue();
            }

            @Override
            public boolean trySet(VersionedValue<Integer> seen, int value) throws Exception {
                return count.trySetCount(seen, value);
            }

            @Override
            public void close() throws Exception {
                count.close();
            }
        };
    }

    /** Baton's UTF-8 items ({@link Utf8Text}) behind Curator's serializer: the same bytes in the same nodes. */
    private static final QueueSerializer<String> UTF8 = new QueueSerializer<>() {
        @Override
        public byte[] serialize(String item) {
            return Utf8Text.SERIALIZER.serialize(item);
        }

        @Override
        public String deserialize(byte[] bytes) {
            return Utf8Text.SERIALIZER.deserialize(bytes);
        }
    };

    /** Curator's {@link DistributedQueue}, items in UTF-8 as Baton's. */
    static ItemQueues queues(CuratorFramework client) {
        return (path, lockPath, items) -> {
            QueueBuilder<String> builder = QueueBuilder.builder(client, new QueueConsumer<String>() {
                @Override
                public void consumeMessage(String item) throws InterruptedException {
                    items.consume(item);
                }

                @Override
                public void stateChanged(CuratorFramework c, ConnectionState newState) {
                    if (newState == ConnectionState.LOST) {
                        items.lost();
                    }
                }
            }, UTF8, path).putInBackground(false);
            DistributedQueue<String> queue = (lockPath == null ? builder : builder.lockPath(lockPath)).buildQueue();
            return new ItemQueue() {
                @Override
                public void start() throws Exception {
                    queue.start();
                }

                @Override
                public void put(String item) throws Exception {
                    queue.put(item);
                }

                @Override
                public void close() throws Exception {
                    queue.close();
                }
            };
        };
    }

    private static boolean connected(CuratorFramework client) {
        return client.getZookeeperClient().isConnected();
    }
}
