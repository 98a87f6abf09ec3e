package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.BatonClient;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.recipes.atomic.AtomicValue;
import dev.baton.recipes.atomic.DistributedAtomicLong;
import dev.baton.recipes.atomic.PromotedToLock;
import dev.baton.recipes.shared.SharedCount;
import dev.baton.recipes.shared.VersionedValue;
import dev.baton.retry.RetryNTimes;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * The counter workloads of a chaos client: atomic long (optimistic and promoted), shared count, and a broken
 * counter the checker must catch, of either library. See {@link ChaosWorkloads}.
 */
final class ChaosCounterWorkloads {
    private ChaosCounterWorkloads() {
    }

    /** An operation on a counter: its text for the history, and how to run it. */
    interface CounterCall {
        /** Returns the result text, or null if the operation certainly did not take effect. */
        String run() throws Exception;
    }

    /** A distributed atomic long of either library, answering as the history records it. */
    interface AtomicLong {
        /** Writes 0 unless the counter exists. */
        void initialize() throws Exception;

        /** Returns {@code "pre post"} of an increment that succeeded, null if it did not. */
        String increment() throws Exception;

        long get() throws Exception;

        boolean compareAndSet(long from, long to) throws Exception;
    }

    /** Makes the atomic long at a path, optimistic or promoted to a lock at {@code lockPath}. */
    @FunctionalInterface
    interface AtomicLongs {
        AtomicLong create(String path, String lockPath, boolean locked);
    }

    /**
     * A shared count of either library.
     *
     * @param <V> the library's versioned value
     */
    interface SharedCounter<V> {
        void start() throws Exception;

        /** Returns the value last seen, with its version. */
        V seen();

        int valueOf(V seen);

        /** Sets {@code value} if the count is still at {@code seen}'s version. */
        boolean trySet(V seen, int value) throws Exception;

        void close() throws Exception;
    }

    /** Baton's {@link DistributedAtomicLong}: 30 optimistic tries, or one then a lock. */
    static AtomicLongs batonAtomicLongs(BatonClient client) {
        return (path, lockPath, locked) -> {
            DistributedAtomicLong counter = locked
                    ? new DistributedAtomicLong(client, path, new RetryNTimes(1, 10), PromotedToLock.builder()
                            .lockPath(lockPath).timeout(3, TimeUnit.SECONDS).retryPolicy(new RetryNTimes(3, 20))
                            .build())
                    : new DistributedAtomicLong(client, path, new RetryNTimes(30, 10));
            return new AtomicLong() {
                @Override
                public void initialize() throws KeeperException, InterruptedException {
                    counter.initialize(0L);
                }

                @Override
                public String increment() throws KeeperException, InterruptedException {
                    AtomicValue<Long> v = counter.increment();
                    return v.succeeded() ? v.preValue() + " " + v.postValue() : null;
                }

                @Override
                public long get() throws KeeperException, InterruptedException {
                    return counter.get().postValue();
                }

                @Override
                public boolean compareAndSet(long from, long to) throws KeeperException, InterruptedException {
                    return counter.compareAndSet(from, to).succeeded();
                }
            };
        };
    }

    /** Baton's {@link SharedCount}, starting at 0. */
    static SharedCounter<VersionedValue<Integer>> batonSharedCount(BatonClient client, String path) {
        SharedCount count = new SharedCount(client, path, 0);
        return new SharedCounter<>() {
            @Override
            public void start() throws KeeperException, InterruptedException {
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
            public boolean trySet(VersionedValue<Integer> seen, int value)
                    throws KeeperException, InterruptedException {
                return count.trySetCount(seen, value);
            }

            @Override
            public void close() {
                count.close();
            }
        };
    }

    /** A counter workload of either library: each operation recorded with its outcome, after a sync. */
    abstract static class CounterWorkload<C> extends Workload<C> {
        CounterWorkload(Context<C> ctx, String name) {
            super(ctx, name);
        }

        /** Runs one operation, recorded; returns its result text, or null if it failed or its outcome is unknown. */
        String op(String operation, CounterCall call) {
            ctx.recorder().invoked(name, operation);
            try {
                ctx.nodes().sync(path(name));
                String result = call.run();
                if (result == null) {
                    ctx.recorder().failed(name, operation);
                } else {
                    ctx.recorder().ok(name, operation, result);
                }
                return result;
            } catch (InterruptedException e) {
                ctx.recorder().unknown(name, operation, "interrupted");
                running = false;
                return null;
            } catch (Exception e) {
                ctx.recorder().unknown(name, operation, e.getClass().getSimpleName());
                pause(50, 200);
                return null;
            }
        }
    }

    /**
     * {@code atomic-long} and {@code atomic-long-locked}: a distributed atomic long (the latter promoted to a lock
     * after one optimistic try); increments, reads and compare-and-sets from the last value read.
     */
    static final class AtomicLongWorkload<C> extends CounterWorkload<C> {
        private final AtomicLong counter;
        private long lastRead;

        AtomicLongWorkload(Context<C> ctx, String name, AtomicLongs counters, boolean locked) {
            super(ctx, name);
            this.counter = counters.create(path(name), path(name + "-lock"), locked);
        }

        @Override
        void start() throws Exception {
            // Written before any operation: a counter no one wrote reads 0, and Curator's compareAndSet(0, 1)
            // on it fails (absent is not 0 there), which would show as a violation in every mixed run.
            counter.initialize();
            spawn("worker", () -> {
                int dice = ctx.random().nextInt(10);
                if (dice < 6) {
                    op("add 1", counter::increment);
                } else if (dice < 8) {
                    read();
                } else {
                    long from = lastRead;
                    op("cas " + from + " " + (from + 1), () -> Boolean.toString(counter.compareAndSet(from, from + 1)));
                }
                pause(10, 80);
            });
        }

        private void read() {
            String v = op("read", () -> Long.toString(counter.get()));
            if (v != null) {
                lastRead = Long.parseLong(v);
            }
        }

        @Override
        void finish() throws InterruptedException {
            halt(); // one operation at a time per client: the worker first
            running = true;
            read();
            running = false;
        }
    }

    /** {@code shared-count}: a shared count, incremented by version-checked writes from its cached value. */
    static final class SharedCountWorkload<C, V> extends CounterWorkload<C> {
        private final SharedCounter<V> count;

        SharedCountWorkload(Context<C> ctx, String name, SharedCounter<V> count) {
            super(ctx, name);
            this.count = count;
        }

        @Override
        void start() throws Exception {
            count.start();
            spawn("worker", () -> {
                V seen = count.seen();
                int from = count.valueOf(seen);
                // Every write adds 1, so a value names one version: the check by version is a check by value.
                op("cas " + from + " " + (from + 1), () -> Boolean.toString(count.trySet(seen, from + 1)));
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
    static final class BrokenCounterWorkload<C> extends CounterWorkload<C> {
        BrokenCounterWorkload(Context<C> ctx, String name) {
            super(ctx, name);
        }

        @Override
        void start() throws Exception {
            ctx.nodes().createIfAbsent(path(name), ByteBuffer.allocate(8).putLong(0).array());
            spawn("worker", () -> {
                op("add 1", () -> {
                    long before = ByteBuffer.wrap(ctx.nodes().read(path(name))).getLong();
                    ctx.nodes().write(path(name), ByteBuffer.allocate(8).putLong(before + 1).array());
                    return before + " " + (before + 1);
                });
                pause(0, 5);
            });
        }
    }
}
