package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.cli.ChaosCounterWorkloads.CounterWorkload;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.atomic.PromotedToLock;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;

/** Curator's counter and queue workloads; see {@link CuratorWorkloads}. */
final class CuratorDataWorkloads {
    private CuratorDataWorkloads() {
    }

    /** A counter workload on Curator's client. */
    abstract static class CuratorCounterWorkload extends CounterWorkload<CuratorFramework> {
        CuratorCounterWorkload(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
        }

        @Override
        final void sync() throws Exception {
            ctx.client().sync().forPath(path(name));
        }
    }

    /** {@code atomic-long} and {@code atomic-long-locked}: Curator's {@link DistributedAtomicLong}. */
    static final class AtomicLongWorkload extends CuratorCounterWorkload {
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
    static final class SharedCountWorkload extends CuratorCounterWorkload {
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
    static final class BrokenCounterWorkload extends CuratorCounterWorkload {
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
    static final class QueueWorkload extends Workload<CuratorFramework> implements ChaosWorkloads.Queue {
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
