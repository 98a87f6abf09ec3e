package dev.baton.recipes.queue;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.state.ConnectionState;
import dev.baton.testing.DriverMain;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A queue consumer (with a lock path) in its own JVM, to be paused with SIGSTOP. Commands: {@code start
 * <connect> <queuePath> <lockPath> <sessionMs>}; {@code finish} lets the item being consumed finish. Events:
 * {@code taken <item>} as it starts consuming an item (it then waits for {@code finish}), {@code done <item>}
 * when consumption returns normally, {@code dropped <item>} when it is told LOST while consuming (it then stops
 * believing the item is its own, and returns without finishing it).
 */
public final class QueueDriver {
    private QueueDriver() {
    }

    /**
     * @param args unused
     */
    public static void main(String[] args) {
        DriverMain driver = DriverMain.create();
        CountDownLatch[] finish = {new CountDownLatch(1)};
        String[] current = {null};
        driver.on("start", a -> {
            BatonClient client = Baton.builder().connectString(a.get(0))
                    .sessionTimeout(Duration.ofMillis(Long.parseLong(a.get(3))))
                    .retryPolicy(new RetryOneTime(10)).ensembleTracker(false).build();
            client.start();
            if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not connected");
            }
            QueueConsumer<String> consumer = new QueueConsumer<>() {
                @Override
                public void consumeMessage(String message) throws InterruptedException {
                    synchronized (current) {
                        current[0] = message;
                    }
                    driver.event("taken " + message);
                    finish[0].await();
                    synchronized (current) {
                        if (current[0] == null) {
                            return; // dropped meanwhile
                        }
                        current[0] = null;
                    }
                    driver.event("done " + message);
                }

                @Override
                public void stateChanged(BatonClient c, ConnectionState newState) {
                    if (newState == ConnectionState.LOST) {
                        synchronized (current) {
                            if (current[0] != null) {
                                driver.event("dropped " + current[0]);
                                current[0] = null;
                            }
                        }
                    }
                }
            };
            DistributedQueue<String> queue = QueueBuilder.builder(client, consumer, Queues.STRINGS, a.get(1))
                    .lockPath(a.get(2)).buildQueue();
            queue.start();
            return "";
        });
        driver.on("finish", a -> {
            finish[0].countDown();
            return "";
        });
        driver.run();
    }
}
