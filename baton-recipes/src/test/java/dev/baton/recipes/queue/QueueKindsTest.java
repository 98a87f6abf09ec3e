package dev.baton.recipes.queue;

import static dev.baton.recipes.queue.Queues.STRINGS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The id, priority and delay queues: their names, their order, removal by id, delivery times. */
@Timeout(60)
class QueueKindsTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);
    private BatonClient client;

    @BeforeEach
    void setUp() throws InterruptedException {
        client = resources.untrackedClient();
    }

    @Test
    void namesAreCuratorsNames() {
        assertThat(Layout.priorityPrefix(5)).isEqualTo("queue-100000005");
        assertThat(Layout.priorityPrefix(-1)).isEqualTo("queue-0FFFFFFFF");
        assertThat(Layout.priorityPrefix(Integer.MIN_VALUE)).isEqualTo("queue-080000000");
        assertThat(Layout.delayPrefix(0x1234L)).isEqualTo("queue-|00001234|");
        assertThat(Layout.idPrefix("a/b|c")).isEqualTo("queue-|a_b_c|");
        assertThat(Layout.idOf("queue-|order-7|0000000003")).isEqualTo("order-7");
        assertThat(Layout.withoutId("queue-|order-7|0000000003")).isEqualTo("queue-0000000003");
        assertThat(Layout.epochOf("queue-|19A2B3C4D5E|0000000003")).isEqualTo(0x19A2B3C4D5EL);
    }

    @Test
    void idQueueDeliversInOrderAndRemovesById() throws Exception {
        DistributedIdQueue<String> producer = resources.open(
                QueueBuilder.builder(client, null, STRINGS, "/q/ids").putInBackground(false).buildIdQueue());
        producer.start();
        producer.put("first", "a");
        producer.put("second", "b");
        producer.put("third", "a");
        producer.put("fourth", "c/d");
        assertThat(client.getChildren().forPath("/q/ids")).filteredOn(n -> n.startsWith("queue-"))
                .anyMatch(n -> n.startsWith("queue-|a|")).anyMatch(n -> n.startsWith("queue-|c_d|"));
        assertThat(producer.remove("a")).isEqualTo(2);
        assertThat(producer.remove("a")).isZero();
        assertThat(producer.remove("c/d")).isEqualTo(1);
        assertThatThrownBy(() -> producer.put("x", "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> producer.remove(null)).isInstanceOf(NullPointerException.class);
        producer.put("fifth", "e");

        Queues.Recording consumer = new Queues.Recording();
        DistributedIdQueue<String> queue = resources.open(QueueBuilder.builder(client, consumer, STRINGS,
                "/q/ids").lockPath("/q/ids-locks").buildIdQueue());
        queue.start();
        await().until(() -> consumer.consumed.size() == 2);
        assertThat(consumer.consumed).containsExactly("second", "fifth");
    }

    @Test
    void priorityQueueDeliversLowerPrioritiesFirst() throws Exception {
        DistributedPriorityQueue<String> producer = resources.open(QueueBuilder.builder(client, null, STRINGS,
                "/q/prio").putInBackground(false).buildPriorityQueue(0));
        producer.start();
        producer.put("p10-a", 10);
        producer.put("p-5", -5);
        producer.put("p0", 0);
        producer.put("p10-b", 10);
        producer.put("pmin", Integer.MIN_VALUE);
        producer.putMulti(multi("m1", "m2"), 3);

        Queues.Recording consumer = new Queues.Recording();
        DistributedPriorityQueue<String> queue = resources.open(
                QueueBuilder.builder(client, consumer, STRINGS, "/q/prio").buildPriorityQueue(0));
        queue.start();
        await().until(() -> consumer.consumed.size() == 7);
        assertThat(consumer.consumed).containsExactly("pmin", "p-5", "p0", "m1", "m2", "p10-a", "p10-b");
    }

    @Test
    void aMoreUrgentItemOvertakesTheRestOfAListing() throws Exception {
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        QueueConsumer<String> consumer = new Queues.Recording() {
            @Override
            public void consumeMessage(String message) {
                seen.add(message);
                if (message.equals("low-0")) {
                    try {
                        gate.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        DistributedPriorityQueue<String> queue = resources.open(QueueBuilder.builder(client, consumer, STRINGS,
                "/q/urgent").putInBackground(false).buildPriorityQueue(1));
        queue.start();
        for (int i = 0; i < 5; i++) {
            queue.put("low-" + i, 100);
        }
        await().until(() -> seen.size() == 1);
        queue.put("urgent", 1);
        gate.countDown();
        await().until(() -> seen.size() == 6);
        assertThat(seen.indexOf("urgent")).isLessThan(5);
    }

    @Test
    void delayQueueDeliversNoEarlierThanAsked() throws Exception {
        Map<String, Long> deliveredAt = new ConcurrentHashMap<>();
        Queues.Recording consumer = new Queues.Recording() {
            @Override
            public void consumeMessage(String message) {
                deliveredAt.put(message, System.currentTimeMillis());
                super.consumeMessage(message);
            }
        };
        DistributedDelayQueue<String> queue = resources.open(QueueBuilder.builder(client, consumer, STRINGS,
                "/q/delay").putInBackground(false).buildDelayQueue());
        queue.start();
        long now = System.currentTimeMillis();
        queue.put("late", now + 1500);
        queue.put("soon", now + 500);
        queue.put("now", now);
        assertThatThrownBy(() -> queue.put("bad", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delayUntilEpochMillis");
        await().atMost(Duration.ofSeconds(10)).until(() -> deliveredAt.size() == 3);
        assertThat(deliveredAt.get("soon")).isGreaterThanOrEqualTo(now + 500);
        assertThat(deliveredAt.get("late")).isGreaterThanOrEqualTo(now + 1500);
        // The consumer records the time before the message: wait for the last one to be recorded too.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(consumer.consumed).containsExactly("now", "soon", "late"));
    }

    private static MultiItem<String> multi(String... items) {
        java.util.Iterator<String> it = List.of(items).iterator();
        return () -> it.hasNext() ? it.next() : null;
    }
}
