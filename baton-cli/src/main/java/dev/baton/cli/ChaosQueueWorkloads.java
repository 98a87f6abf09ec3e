package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.BatonClient;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.recipes.queue.DistributedQueue;
import dev.baton.recipes.queue.QueueBuilder;
import dev.baton.recipes.queue.QueueConsumer;
import dev.baton.state.ConnectionState;

/**
 * The queue workload of a chaos client: producers and consumers of a distributed queue with a lock path, of either
 * library. See {@link ChaosWorkloads}.
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

    /** Makes a queue at a path, with a lock path, delivering to {@code items}. */
    @FunctionalInterface
    interface ItemQueues {
        ItemQueue create(String path, String lockPath, Items items);
    }

    /** Baton's {@link DistributedQueue}. */
    static ItemQueues baton(BatonClient client) {
        return (path, lockPath, items) -> {
            DistributedQueue<String> queue = QueueBuilder.builder(client, new QueueConsumer<String>() {
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
            }, Utf8Text.SERIALIZER, path).lockPath(lockPath).putInBackground(false).buildQueue();
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
     * {@code queue}: a distributed queue with a lock path; every client puts uniquely named items and consumes. A
     * put is recorded before it is sent and retried until it succeeds, so every recorded item is in the queue at
     * least once.
     */
    static final class QueueWorkload<C> extends Workload<C> implements ChaosWorkloads.Queue {
        private final ItemQueue queue;
        private volatile boolean producing = true;
        private String current; // guarded by monitor: the item being consumed and believed
        private int next;

        QueueWorkload(Context<C> ctx, String name, ItemQueues queues) {
            super(ctx, name);
            this.queue = queues.create(path(name), path(name + "-lock"), new Items() {
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

        /** Stops putting; consumers go on until {@link #stop()}. */
        @Override
        void finish() {
            producing = false;
        }

        @Override
        public String leftOver() throws Exception {
            return "items " + ctx.nodes().children(path(name)) + " locks " + ctx.nodes().children(path(name + "-lock"));
        }

        @Override
        void stop() throws InterruptedException {
            producing = false;
            super.stop();
            releaseQuietly(queue::close);
        }
    }
}
