package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.BatonClient;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.recipes.queue.DistributedQueue;
import dev.baton.recipes.queue.QueueBuilder;
import dev.baton.recipes.queue.QueueConsumer;
import dev.baton.state.ConnectionState;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The queue workloads of a chaos client: producers and consumers of a distributed queue, with a lock path (an item
 * is deleted once consumed: at least once) or without (deleted before: at most once), of either library. See
 * {@link ChaosWorkloads}.
 */
final class ChaosQueueWorkloads {
    private ChaosQueueWorkloads() {
    }

    /** A distributed queue of strings, of either library. */
    interface ItemQueue {
        void start() throws Exception;

        /** Puts {@code item}, returning once it is in the queue. */
        void put(String item) throws Exception;

        void close() throws Exception;
    }

    /** What the workload does with what its queue delivers. */
    interface Items {
        /** Consumes {@code item}; the queue's consumer thread calls it. */
        void consume(String item) throws InterruptedException;

        /** The session was lost: the item being consumed is no longer this consumer's. */
        void lost();
    }

    /** Makes a queue at a path, with a lock path or none (null), delivering to {@code items}. */
    @FunctionalInterface
    interface ItemQueues {
        ItemQueue create(String path, @Nullable String lockPath, Items items);
    }

    /**
     * The client that put an item, from its name ({@code <recipe>/<client>-<n>}, as the workload names them).
     *
     * @return the client's name, or the empty string for a name of another shape
     */
    static String producerOf(String item) {
        int slash = item.indexOf('/');
        int dash = item.lastIndexOf('-');
        return slash < 0 || dash <= slash ? "" : item.substring(slash + 1, dash);
    }

    /** Baton's {@link DistributedQueue}. */
    static ItemQueues baton(BatonClient client) {
        return (path, lockPath, items) -> {
            QueueBuilder<String> builder = QueueBuilder.builder(client, new QueueConsumer<String>() {
                @Override
                public void consumeMessage(String item) throws InterruptedException {
                    items.consume(item);
                }

                @Override
                public void stateChanged(BatonClient c, ConnectionState newState) {
                    if (newState == ConnectionState.LOST) {
                        items.lost();
                    }
                }
            }, Utf8Text.SERIALIZER, path).putInBackground(false);
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
                public void close() {
                    queue.close();
                }
            };
        };
    }

    /**
     * A queue whose consumer mishandles one item in five: it drops one (never handed to the workload) and puts
     * another back before consuming it (so it is taken twice, the second time perhaps by another consumer while
     * this one still consumes it). Without a lock path the {@code queue-every-item-taken} and
     * {@code queue-at-most-once} checkers must catch it; with a lock path, {@code queue-nothing-lost} and
     * {@code queue-exclusive}.
     */
    static ItemQueues broken(ItemQueues real) {
        return (path, lockPath, items) -> {
            AtomicReference<@Nullable ItemQueue> queue = new AtomicReference<>();
            AtomicInteger consumed = new AtomicInteger();
            ItemQueue created = real.create(path, lockPath, new Items() {
                @Override
                public void consume(String item) throws InterruptedException {
                    int n = consumed.incrementAndGet();
                    if (n % 10 == 3) {
                        return; // dropped
                    }
                    ItemQueue q = queue.get();
                    if (n % 10 == 7 && q != null) {
                        releaseQuietly(() -> q.put(item)); // once more
                    }
                    items.consume(item);
                }

                @Override
                public void lost() {
                    items.lost();
                }
            });
            queue.set(created);
            return created;
        };
    }

    /**
     * {@code queue}, {@code queue-unlocked}: a distributed queue with a lock path, or without; every client puts
     * uniquely named items ({@code <recipe>/<client>-<n>}) and consumes. With a lock path a put is recorded before it
     * is sent and retried until it succeeds, so every recorded item is in the queue at least once. Without one, a
     * put is sent once and recorded only when it succeeded (an item must not be queued twice, as it would then be
     * taken twice); a failed put's item may or may not be in the queue.
     */
    static final class QueueWorkload<C> extends Workload<C> implements ChaosWorkloads.Queue {
        private final boolean locked;
        private final ItemQueue queue;
        private volatile boolean producing = true;
        private String current; // guarded by monitor: the item being consumed and believed
        private int next;

        QueueWorkload(Context<C> ctx, String name, ItemQueues queues, boolean locked) {
            super(ctx, name);
            this.locked = locked;
            this.queue = queues.create(path(name), locked ? path(name + "-lock") : null, new Items() {
                @Override
                public void consume(String item) throws InterruptedException {
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
                public void lost() {
                    synchronized (monitor) {
                        if (current != null) {
                            ctx.recorder().itemDropped(current, "LOST");
                            current = null;
                        }
                    }
                }
            });
        }

        @Override
        void start() throws Exception {
            queue.start();
            spawn("producer", () -> {
                if (!producing) {
                    pause(100, 200);
                    return;
                }
                String item = name + "/" + ctx.recorder().client() + "-" + ++next;
                if (!locked) {
                    putOnce(item);
                    pause(30, 150);
                    return;
                }
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

        private void putOnce(String item) {
            try {
                queue.put(item);
                ctx.recorder().itemPut(item);
            } catch (InterruptedException e) {
                running = false;
            } catch (Exception e) {
                ctx.recorder().note("put of " + item + " failed, in the queue or not: " + e);
                pause(100, 300);
            }
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

        /** Stops putting; consumers go on until {@link #stop()}. */
        @Override
        void finish() {
            producing = false;
        }

        @Override
        public boolean drained() throws Exception {
            return ctx.nodes().children(path(name)).isEmpty();
        }

        @Override
        public String leftOver() throws Exception {
            return name + ": items " + ctx.nodes().children(path(name))
                    + (locked ? " locks " + ctx.nodes().children(path(name + "-lock")) : "");
        }

        @Override
        void stop() throws InterruptedException {
            producing = false;
            super.stop();
            releaseQuietly(queue::close);
        }
    }
}
