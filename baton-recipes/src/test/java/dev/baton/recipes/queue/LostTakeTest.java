package dev.baton.recipes.queue;

import static dev.baton.recipes.queue.Queues.STRINGS;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.retry.RetryNTimes;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Without a lock path, whoever deletes an item has it. A take whose delete dies on the way (never applied) while
 * another consumer takes the item must not hand the item out: the client's retried delete would find the node
 * gone, which the plain delete counts as done. The one-hour mixed chaos run caught Baton consumers doing so.
 */
@Timeout(60)
class LostTakeTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @AfterEach
    void stopRefusing() {
        zk.server().refuseDeletesOf(0);
    }

    /** A client that retries long enough for its retry to come after the other consumer's take. */
    private BatonClient patientClient() throws InterruptedException {
        return resources.client(false, Duration.ofSeconds(5), new RetryNTimes(100, 50));
    }

    @Test
    void aSimpleQueueTakeWhoseDeleteDiedNeverReturnsTheItemAnotherConsumerTook() throws Exception {
        BatonClient other = resources.untrackedClient();
        new SimpleDistributedQueue(other, "/lost/simple").offer("x".getBytes(UTF_8));
        BatonClient taker = patientClient();
        SimpleDistributedQueue queue = new SimpleDistributedQueue(taker, "/lost/simple");
        int refused = zk.server().deletesRefused();
        zk.server().refuseDeletesOf(taker.getZooKeeper().getSessionId());

        CompletableFuture<byte[]> polled = CompletableFuture.supplyAsync(() -> {
            try {
                return queue.poll();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(WAIT).until(() -> zk.server().deletesRefused() > refused);
        List<String> items = other.getChildren().forPath("/lost/simple");
        other.delete().forPath("/lost/simple/" + items.get(0)); // the other consumer takes it
        zk.server().refuseDeletesOf(0);

        assertThat(polled.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the taker never deleted the item").isNull();
    }

    @Test
    void aQueueConsumerWhoseDeleteDiedNeverConsumesTheItemAnotherConsumerTook() throws Exception {
        BatonClient other = resources.untrackedClient();
        BatonClient taker = patientClient();
        List<String> consumed = new CopyOnWriteArrayList<>();
        DistributedQueue<String> queue = resources.open(QueueBuilder.builder(taker, new QueueConsumer<String>() {
            @Override
            public void consumeMessage(String message) {
                consumed.add(message);
            }

            @Override
            public void stateChanged(BatonClient client, dev.baton.state.ConnectionState newState) {
            }
        }, STRINGS, "/lost/queue").buildQueue());
        queue.start();
        int refused = zk.server().deletesRefused();
        zk.server().refuseDeletesOf(taker.getZooKeeper().getSessionId());

        DistributedQueue<String> producer = resources.open(QueueBuilder.builder(other, null, STRINGS, "/lost/queue")
                .buildQueue());
        producer.start();
        producer.put("first");
        await().atMost(WAIT).until(() -> zk.server().deletesRefused() > refused);
        List<String> items = other.getChildren().forPath("/lost/queue");
        other.delete().forPath("/lost/queue/" + items.get(0)); // the other consumer takes it
        zk.server().refuseDeletesOf(0);

        // The consumer is alive and takes what comes next, and never the item it did not delete.
        producer.put("second");
        await().atMost(WAIT).until(() -> consumed.contains("second"));
        assertThat(consumed).containsExactly("second");
    }
}
