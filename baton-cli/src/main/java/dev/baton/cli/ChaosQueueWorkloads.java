package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.BatonClient;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.recipes.queue.DistributedQueue;
import dev.baton.recipes.queue.QueueBuilder;
import dev.baton.recipes.queue.QueueConsumer;
import dev.baton.state.ConnectionState;
import java.util.List;
import org.apache.zookeeper.KeeperException;

/**
 * The queue workload of a chaos client: producers and consumers of a distributed queue, with or without a lock
 * path. See {@link ChaosWorkloads}.
 */
final class ChaosQueueWorkloads {
    private ChaosQueueWorkloads() {
    }

    /**
     * {@code queue}: a {@link DistributedQueue} with a lock path; every client puts uniquely named items and
     * consumes. A put is recorded before it is sent and retried until it succeeds, so every recorded item is in
     * the queue at least once.
     */
    static final class QueueWorkload extends Workload<BatonClient> implements ChaosWorkloads.Queue {
        private final DistributedQueue<String> queue;
        private volatile boolean producing = true;
        private String current; // guarded by monitor: the item being consumed and believed
        private int next;

        QueueWorkload(Context<BatonClient> ctx, String name) {
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
            this.queue = QueueBuilder.builder(ctx.client(), consumer, Utf8Text.SERIALIZER, path(name))
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
                String item = ctx.recorder().client() + "-" +  ++next;
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

        @Override
        public String leftOver() throws KeeperException, InterruptedException {
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
