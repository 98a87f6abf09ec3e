package dev.baton.bench.impl;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.bench.BenchClient;
import dev.baton.internal.Futures;
import dev.baton.micrometer.BatonMetrics;
import dev.baton.recipes.atomic.DistributedAtomicLong;
import dev.baton.recipes.barriers.DistributedDoubleBarrier;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.cache.BatonCacheListener;
import dev.baton.recipes.cache.ChildData;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.leader.LeaderLatchListener;
import dev.baton.recipes.leader.LeaderSelector;
import dev.baton.recipes.leader.LeaderSelectorListenerAdapter;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.retry.RetryNTimes;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * Baton with default settings: blocking {@code forPath} for the blocking hooks, {@code forPathAsync} (a
 * {@link java.util.concurrent.CompletableFuture}) for the asynchronous one; the recipes of {@code baton-recipes}
 * ({@link LeaderLatch}, {@link LeaderSelector}, {@link BatonCache}) for the recipe hooks.
 */
public final class BatonBenchClient implements BenchClient {
    private final boolean metered;
    private BatonClient client;
    private BatonMetrics metrics;

    /** Creates an unopened adapter. */
    public BatonBenchClient() {
        this(false);
    }

    /**
     * @param metered attach {@link BatonMetrics} with a Micrometer registry to the client, to measure what the
     *     operation hook and the meters cost (reported as {@code Baton+metrics})
     */
    public BatonBenchClient(boolean metered) {
        this.metered = metered;
    }

    @Override
    public String name() {
        return metered ? "Baton+metrics" : "Baton";
    }

    @Override
    public BenchClient another() {
        return new BatonBenchClient(metered);
    }

    @Override
    public boolean hasRecipes() {
        return true;
    }

    @Override
    public Recipe startLatch(String path, String id, Runnable isLeader) {
        LeaderLatch latch = new LeaderLatch(client, path, id);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                isLeader.run();
            }

            @Override
            public void notLeader() {
            }
        });
        latch.start();
        return new Recipe() {
            @Override
            public void close() {
                latch.close();
            }

            @Override
            public String ourPath() {
                return latch.getOurPath();
            }
        };
    }

    @Override
    public Recipe startSelector(String path, String id, Turn turn) {
        LeaderSelector selector = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient c) throws InterruptedException {
                turn.lead();
            }
        });
        selector.setId(id);
        selector.autoRequeue();
        selector.start();
        return selector::close;
    }

    @Override
    public Cache startCache(String path, CacheChange onChange) {
        BatonCache cache = BatonCache.build(client, path);
        CountDownLatch initialized = new CountDownLatch(1);
        cache.listenable().addListener(new BatonCacheListener() {
            @Override
            public void event(Type type, ChildData oldData, ChildData data) {
                if (type == Type.NODE_CHANGED) {
                    onChange.changed(data.path(), data.data());
                }
            }

            @Override
            public void initialized() {
                initialized.countDown();
            }
        });
        cache.start();
        return new Cache() {
            @Override
            public boolean awaitInitialized(long timeout, TimeUnit unit) throws InterruptedException {
                return initialized.await(timeout, unit);
            }

            @Override
            public int size() {
                return cache.size();
            }

            @Override
            public void close() {
                cache.close();
            }
        };
    }

    @Override
    public Discovery discovery(String basePath) {
        return new BatonBenchDiscovery(client, basePath);
    }

    @Override
    public void setData(String path, byte[] data) throws KeeperException, InterruptedException {
        client.setData().forPath(path, data);
    }

    @Override
    public DoubleBarrier doubleBarrier(String path, int memberQty) {
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, path, memberQty);
        return new DoubleBarrier() {
            @Override
            public void enter() throws KeeperException, InterruptedException {
                barrier.enter();
            }

            @Override
            public void leave() throws KeeperException, InterruptedException {
                barrier.leave();
            }
        };
    }

    @Override
    public AtomicCounter atomicLong(String path, int retries) {
        DistributedAtomicLong counter = new DistributedAtomicLong(client, path, new RetryNTimes(retries, 0));
        return () -> counter.increment().succeeded();
    }

    @Override
    public Lock mutex(String path) {
        return lock(new dev.baton.recipes.locks.InterProcessMutex(client, path));
    }

    private static Lock lock(dev.baton.recipes.locks.InterProcessMutex mutex) {
        return new Lock() {
            @Override
            public void acquire() throws KeeperException, InterruptedException {
                mutex.acquire();
            }

            @Override
            public void release() {
                mutex.release();
            }
        };
    }

    @Override
    public ReadWriteLock readWriteLock(String path) {
        dev.baton.recipes.locks.InterProcessReadWriteLock rw =
                new dev.baton.recipes.locks.InterProcessReadWriteLock(client, path);
        Lock read = lock(rw.readLock());
        Lock write = lock(rw.writeLock());
        return new ReadWriteLock() {
            @Override
            public Lock readLock() {
                return read;
            }

            @Override
            public Lock writeLock() {
                return write;
            }
        };
    }

    @Override
    public Semaphore semaphore(String path, int maxLeases) {
        dev.baton.recipes.locks.InterProcessSemaphoreV2 semaphore =
                new dev.baton.recipes.locks.InterProcessSemaphoreV2(client, path, maxLeases);
        return () -> {
            dev.baton.recipes.locks.Lease lease = semaphore.acquire();
            return () -> semaphore.returnLease(lease);
        };
    }

    @Override
    public Queue queue(String path, String lockPath, java.util.function.Consumer<byte[]> consumer) {
        dev.baton.recipes.queue.QueueConsumer<byte[]> c = consumer == null ? null
                : new dev.baton.recipes.queue.QueueConsumer<>() {
                    @Override
                    public void consumeMessage(byte[] message) {
                        consumer.accept(message);
                    }

                    @Override
                    public void stateChanged(BatonClient client, dev.baton.state.ConnectionState newState) {
                    }
                };
        var builder = dev.baton.recipes.queue.QueueBuilder.builder(client, c, BYTES, path);
        if (lockPath != null) {
            builder.lockPath(lockPath);
        }
        dev.baton.recipes.queue.DistributedQueue<byte[]> queue = builder.buildQueue();
        try {
            queue.start();
        } catch (KeeperException e) {
            throw new IllegalStateException("Baton queue start " + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        return new Queue() {
            @Override
            public void put(byte[] item) throws KeeperException, InterruptedException {
                queue.put(item);
            }

            @Override
            public void close() {
                queue.close();
            }
        };
    }

    @Override
    public SimpleQueue simpleQueue(String path) {
        var queue = new dev.baton.recipes.queue.SimpleDistributedQueue(client, path);
        return new SimpleQueue() {
            @Override
            public void offer(byte[] item) throws KeeperException, InterruptedException {
                queue.offer(item);
            }

            @Override
            public byte[] take() throws KeeperException, InterruptedException {
                return queue.take();
            }

            @Override
            public void close() {
            }
        };
    }

    private static final dev.baton.recipes.queue.QueueSerializer<byte[]> BYTES =
            new dev.baton.recipes.queue.QueueSerializer<>() {
                @Override
                public byte[] serialize(byte[] item) {
                    return item;
                }

                @Override
                public byte[] deserialize(byte[] bytes) {
                    return bytes;
                }
            };

    @Override
    public void open(String connectString, ZKClientConfig clientConfig) throws InterruptedException {
        Baton.Builder builder = Baton.builder().connectString(connectString)
                .retryPolicy(new ExponentialBackoffRetry(1000, 3))
                .ensembleTracker(false); // stay on the address given: it may be a proxy (--latency, counters)
        if (clientConfig != null) {
            builder.zkClientConfig(clientConfig);
        }
        client = builder.build();
        if (metered) {
            metrics = BatonMetrics.monitor(client, new SimpleMeterRegistry());
        }
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            close();
            throw new IllegalStateException("Baton: no session with " + connectString + " after 30 s");
        }
    }

    @Override
    public void close() {
        if (metrics != null) {
            metrics.close();
            metrics = null;
        }
        if (client != null) {
            client.close();
            client = null;
        }
    }

    @Override
    public void create(String path, byte[] data) throws KeeperException, InterruptedException {
        client.create().forPath(path, data);
    }

    @Override
    public void createAsync(String path, byte[] data, Completion done) {
        try {
            Futures.whenDone(client.create().forPathAsync(path, data), (created, error) ->
                    done.complete(error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error));
        } catch (RuntimeException e) {
            done.complete(e);
        }
    }

    @Override
    public void delete(String path) throws KeeperException, InterruptedException {
        client.delete().forPath(path);
    }

    @Override
    public byte[] getData(String path) throws KeeperException, InterruptedException {
        return client.getData().forPath(path);
    }
}
