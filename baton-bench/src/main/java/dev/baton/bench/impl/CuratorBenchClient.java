package dev.baton.bench.impl;

import dev.baton.bench.BenchClient;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * Apache Curator with default settings: blocking {@code forPath} for the blocking hooks, and
 * {@code inBackground(callback)} for the asynchronous one (its {@code AsyncCuratorFramework} is in a separate
 * artifact); its {@code curator-recipes} {@link LeaderLatch}, {@link LeaderSelector} and {@link CuratorCache} for
 * the recipe hooks.
 * Curator's methods declare {@code throws Exception}; what is not a {@link KeeperException} or an
 * {@link InterruptedException} is rethrown unchecked, which costs nothing on the success path.
 */
public final class CuratorBenchClient implements BenchClient {
    private CuratorFramework client;

    /** Creates an unopened adapter. */
    public CuratorBenchClient() {
    }

    @Override
    public String name() {
        return "Curator";
    }

    @Override
    public BenchClient another() {
        return new CuratorBenchClient();
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
        try {
            latch.start();
        } catch (Exception e) {
            throw new IllegalStateException("Curator LeaderLatch.start " + path, e);
        }
        return new Recipe() {
            @Override
            public void close() {
                try {
                    latch.close();
                } catch (Exception e) {
                    throw new IllegalStateException("Curator LeaderLatch.close " + path, e);
                }
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
            public void takeLeadership(CuratorFramework c) throws InterruptedException {
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
        CuratorCache cache = CuratorCache.build(client, path);
        CountDownLatch initialized = new CountDownLatch(1);
        cache.listenable().addListener(CuratorCacheListener.builder()
                .forChanges((oldNode, node) -> onChange.changed(node.getPath(), node.getData()))
                .forInitialized(initialized::countDown)
                .build());
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
        return new CuratorBenchDiscovery(client, basePath);
    }

    @Override
    public void setData(String path, byte[] data) throws KeeperException, InterruptedException {
        try {
            client.setData().forPath(path, data);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Curator setData " + path, e);
        }
    }

    @Override
    public DoubleBarrier doubleBarrier(String path, int memberQty) {
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, path, memberQty);
        return new DoubleBarrier() {
            @Override
            public void enter() throws KeeperException, InterruptedException {
                try {
                    barrier.enter();
                } catch (KeeperException | InterruptedException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException("Curator DistributedDoubleBarrier.enter " + path, e);
                }
            }

            @Override
            public void leave() throws KeeperException, InterruptedException {
                try {
                    barrier.leave();
                } catch (KeeperException | InterruptedException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException("Curator DistributedDoubleBarrier.leave " + path, e);
                }
            }
        };
    }

    @Override
    public AtomicCounter atomicLong(String path, int retries) {
        DistributedAtomicLong counter = new DistributedAtomicLong(client, path, new RetryNTimes(retries, 0));
        return () -> {
            try {
                return counter.increment().succeeded();
            } catch (KeeperException | InterruptedException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("Curator DistributedAtomicLong.increment " + path, e);
            }
        };
    }

    @Override
    public Lock mutex(String path) {
        return lock(new org.apache.curator.framework.recipes.locks.InterProcessMutex(client, path), path);
    }

    private static Lock lock(org.apache.curator.framework.recipes.locks.InterProcessLock lock, String path) {
        return new Lock() {
            @Override
            public void acquire() throws KeeperException, InterruptedException {
                try {
                    lock.acquire();
                } catch (KeeperException | InterruptedException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException("Curator lock acquire " + path, e);
                }
            }

            @Override
            public void release() throws KeeperException, InterruptedException {
                try {
                    lock.release();
                } catch (KeeperException | InterruptedException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException("Curator lock release " + path, e);
                }
            }
        };
    }

    @Override
    public ReadWriteLock readWriteLock(String path) {
        org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock rw =
                new org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock(client, path);
        Lock read = lock(rw.readLock(), path);
        Lock write = lock(rw.writeLock(), path);
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
        org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2 semaphore =
                new org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2(client, path, maxLeases);
        return () -> {
            org.apache.curator.framework.recipes.locks.Lease lease;
            try {
                lease = semaphore.acquire();
            } catch (KeeperException | InterruptedException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("Curator semaphore acquire " + path, e);
            }
            return () -> semaphore.returnLease(lease);
        };
    }

    @Override
    public Queue queue(String path, String lockPath, java.util.function.Consumer<byte[]> consumer) {
        org.apache.curator.framework.recipes.queue.QueueConsumer<byte[]> c = consumer == null ? null
                : new org.apache.curator.framework.recipes.queue.QueueConsumer<>() {
                    @Override
                    public void consumeMessage(byte[] message) {
                        consumer.accept(message);
                    }

                    @Override
                    public void stateChanged(CuratorFramework client,
                            org.apache.curator.framework.state.ConnectionState newState) {
                    }
                };
        var builder = org.apache.curator.framework.recipes.queue.QueueBuilder.builder(client, c, BYTES, path);
        if (lockPath != null) {
            builder.lockPath(lockPath);
        }
        org.apache.curator.framework.recipes.queue.DistributedQueue<byte[]> queue = builder.buildQueue();
        try {
            queue.start();
        } catch (Exception e) {
            throw new IllegalStateException("Curator queue start " + path, e);
        }
        return new Queue() {
            @Override
            public void put(byte[] item) throws KeeperException, InterruptedException {
                try {
                    queue.put(item);
                } catch (KeeperException | InterruptedException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException("Curator queue put " + path, e);
                }
            }

            @Override
            public void close() {
                try {
                    queue.close();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        };
    }

    @Override
    public SimpleQueue simpleQueue(String path) {
        var queue = new org.apache.curator.framework.recipes.queue.SimpleDistributedQueue(client, path);
        return new SimpleQueue() {
            @Override
            public void offer(byte[] item) throws KeeperException, InterruptedException {
                try {
                    queue.offer(item);
                } catch (KeeperException | InterruptedException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException("Curator simple queue offer " + path, e);
                }
            }

            @Override
            public byte[] take() throws KeeperException, InterruptedException {
                try {
                    return queue.take();
                } catch (KeeperException | InterruptedException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException("Curator simple queue take " + path, e);
                }
            }

            @Override
            public void close() {
            }
        };
    }

    private static final org.apache.curator.framework.recipes.queue.QueueSerializer<byte[]> BYTES =
            new org.apache.curator.framework.recipes.queue.QueueSerializer<>() {
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
        // The builder with its defaults but the tracker; TLS goes through zkClientConfig.
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder().connectString(connectString)
                .retryPolicy(new ExponentialBackoffRetry(1000, 3))
                .ensembleTracker(false); // stay on the address given: it may be a proxy (--latency, counters)
        if (clientConfig != null) {
            builder.zkClientConfig(clientConfig);
        }
        client = builder.build();
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            close();
            throw new IllegalStateException("Curator: no session with " + connectString + " after 30 s");
        }
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
            client = null;
        }
    }

    @Override
    public void create(String path, byte[] data) throws KeeperException, InterruptedException {
        try {
            client.create().forPath(path, data);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Curator create " + path, e);
        }
    }

    @Override
    public void createAsync(String path, byte[] data, Completion done) {
        try {
            client.create().inBackground((c, event) -> {
                int rc = event.getResultCode();
                done.complete(rc == KeeperException.Code.OK.intValue() ? null
                        : KeeperException.create(KeeperException.Code.get(rc), event.getPath()));
            }).forPath(path, data);
        } catch (Exception e) {
            done.complete(e);
        }
    }

    @Override
    public void delete(String path) throws KeeperException, InterruptedException {
        try {
            client.delete().forPath(path);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Curator delete " + path, e);
        }
    }

    @Override
    public byte[] getData(String path) throws KeeperException, InterruptedException {
        try {
            return client.getData().forPath(path);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Curator getData " + path, e);
        }
    }
}
