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
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * The counter workloads of a chaos client: atomic long (optimistic and promoted), shared count, and a broken
 * counter the checker must catch. See {@link ChaosWorkloads}.
 */
final class ChaosCounterWorkloads {
    private ChaosCounterWorkloads() {
    }

    /** An operation on a counter: its text for the history, and how to run it. */
    interface CounterCall {
        /** Returns the result text, or null if the operation certainly did not take effect. */
        String run() throws Exception;
    }

    /** A counter workload of either library: each operation recorded with its outcome, after a sync. */
    abstract static class CounterWorkload<C> extends Workload<C> {
        CounterWorkload(Context<C> ctx, String name) {
            super(ctx, name);
        }

        /** Syncs the client's server with the leader on the counter's path, so that the next read is current. */
        abstract void sync() throws Exception;

        /** Runs one operation, recorded; returns its result text, or null if it failed or its outcome is unknown. */
        String op(String operation, CounterCall call) {
            ctx.recorder().invoked(name, operation);
            try {
                sync();
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

    /** A counter workload on a {@link BatonClient}. */
    abstract static class BatonCounterWorkload extends CounterWorkload<BatonClient> {
        BatonCounterWorkload(Context<BatonClient> ctx, String name) {
            super(ctx, name);
        }

        @Override
        final void sync() throws KeeperException, InterruptedException {
            ctx.client().sync().forPath(path(name));
        }
    }

    /**
     * {@code atomic-long} and {@code atomic-long-locked}: a {@link DistributedAtomicLong} (the latter promoted to a
     * lock after one optimistic try); increments, reads and compare-and-sets from the last value read.
     */
    static final class AtomicLongWorkload extends BatonCounterWorkload {
        private final DistributedAtomicLong counter;
        private long lastRead;

        AtomicLongWorkload(Context<BatonClient> ctx, String name, boolean locked) {
            super(ctx, name);
            this.counter = locked
                    ? new DistributedAtomicLong(ctx.client(), path(name), new RetryNTimes(1, 10),
                            PromotedToLock.builder().lockPath(path(name + "-lock")).timeout(3, TimeUnit.SECONDS)
                                    .retryPolicy(new RetryNTimes(3, 20)).build())
                    : new DistributedAtomicLong(ctx.client(), path(name), new RetryNTimes(30, 10));
        }

        @Override
        void start() throws KeeperException, InterruptedException {
            // Written before any operation: a counter no one wrote reads 0, and Curator's compareAndSet(0, 1)
            // on it fails (absent is not 0 there), which would show as a violation in every mixed run.
            counter.initialize(0L);
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
    static final class SharedCountWorkload extends BatonCounterWorkload {
        private final SharedCount count;

        SharedCountWorkload(Context<BatonClient> ctx, String name) {
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
    static final class BrokenCounterWorkload extends BatonCounterWorkload {
        BrokenCounterWorkload(Context<BatonClient> ctx, String name) {
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

        static byte[] encode(long v) {
            return java.nio.ByteBuffer.allocate(8).putLong(v).array();
        }

        static long decode(byte[] b) {
            return java.nio.ByteBuffer.wrap(b).getLong();
        }
    }
}
