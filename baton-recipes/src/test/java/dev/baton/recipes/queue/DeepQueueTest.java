package dev.baton.recipes.queue;

import static dev.baton.recipes.queue.Queues.STRINGS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A queue more than twice as deep as one {@code getChildren} reply can carry at the default {@code
 * jute.maxbuffer} (1 MB - 1 byte: at 20 bytes per {@code queue-<10 digits>} name, about 52,400 names) is
 * produced and then consumed completely, in order, by one consumer whose connection never drops (a listing of
 * that size would drop it on every try).
 */
@Timeout(300)
@Tag("slow")
class DeepQueueTest {
    private static final int ITEMS = 110_000;

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void aQueueDeeperThanTwoListingsIsConsumedCompletely() throws Exception {
        BatonClient producerClient = resources.untrackedClient();
        DistributedQueue<String> producer = resources.open(
                QueueBuilder.builder(producerClient, null, STRINGS, "/deep/q").buildQueue());
        producer.start();
        long started = System.nanoTime();
        for (int i = 0; i < ITEMS; i++) {
            producer.put(Integer.toString(i));
            if (i % 5000 == 4999) {
                assertThat(producer.flushPuts(60, TimeUnit.SECONDS)).isTrue(); // bounded in flight
            }
        }
        assertThat(producer.flushPuts(60, TimeUnit.SECONDS)).isTrue();
        producer.close();
        long produced = System.nanoTime();
        Stat stat = producerClient.checkExists().forPath("/deep/q");
        int limit = ZKClientConfig.CLIENT_MAX_PACKET_LENGTH_DEFAULT;
        assertThat((long) stat.getNumChildren() * (4 + "queue-0000000000".length())).isGreaterThan(2L * limit);

        BatonClient consumerClient = resources.untrackedClient();
        AtomicReference<ConnectionState> trouble = new AtomicReference<>();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        QueueConsumer<String> consumer = new QueueConsumer<>() {
            @Override
            public void consumeMessage(String message) {
                if (Integer.parseInt(message) != next.getAndIncrement()) {
                    outOfOrder.incrementAndGet();
                }
            }

            @Override
            public void stateChanged(BatonClient client, ConnectionState newState) {
                if (!newState.isConnected()) {
                    trouble.compareAndSet(null, newState);
                }
            }
        };
        DistributedQueue<String> queue = resources.open(
                QueueBuilder.builder(consumerClient, consumer, STRINGS, "/deep/q").buildQueue());
        queue.start();
        await().atMost(Duration.ofSeconds(200)).pollInterval(Duration.ofMillis(500))
                .until(() -> next.get() >= ITEMS || trouble.get() != null);
        long consumed = System.nanoTime();
        assertThat(trouble.get()).as("the consumer's connection never dropped").isNull();
        assertThat(next.get()).isEqualTo(ITEMS);
        assertThat(outOfOrder.get()).isZero();
        await().until(() -> consumerClient.checkExists().forPath("/deep/q").getNumChildren() == 0);
        System.out.printf("deep queue: %,d items (%,d bytes of names vs a %,d-byte reply limit);"
                + " produced in %.1f s, consumed in %.1f s%n", ITEMS, (long) ITEMS * 20, limit,
                (produced - started) / 1e9, (consumed - produced) / 1e9);
    }
}
