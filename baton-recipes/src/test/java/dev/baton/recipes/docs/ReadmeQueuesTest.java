package dev.baton.recipes.docs;

// README.md begin queues
import dev.baton.recipes.queue.*;

// README.md end queues
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * README.md's queue examples, line for line (checked by {@link DocsMirrorTest}), run against an embedded server:
 * every item is consumed once (the cancelled order and the week-away reminder excepted), the simple queue hands
 * its bytes back.
 */
@Timeout(120)
class ReadmeQueuesTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    /** The client the examples use. */
    private BatonClient client;
    private final byte[] bytes = "report".getBytes(UTF_8);
    private final List<String> consumed = new CopyOnWriteArrayList<>();
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final List<String> handled = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startClient() throws InterruptedException {
        client = resources.client();
    }

    void run(String job) {
        consumed.add(job);
    }

    void stopRunning() {
        consumed.add("(stopped)");
    }

    void log(String message) {
        logged.add(message);
    }

    void handle(byte[] item) {
        handled.add(new String(item, UTF_8));
    }

    @Test
    void everyQueueDeliversWhatWasPut() throws Exception {
        // README.md begin queues
        QueueSerializer<String> text = new QueueSerializer<>() {
            public byte[] serialize(String s) { return s.getBytes(UTF_8); }
            public String deserialize(byte[] b) { return new String(b, UTF_8); }
        };
        QueueConsumer<String> worker = new QueueConsumer<>() {
            public void consumeMessage(String job) throws Exception { run(job); }      // one at a time per queue
            public void stateChanged(BatonClient c, ConnectionState s) { if (s == ConnectionState.LOST) stopRunning(); }
        };

        // FIFO, at least once: an item leaves the queue only after consumeMessage returns.
        DistributedQueue<String> jobs = QueueBuilder.builder(client, worker, text, "/jobs/queue")
                .lockPath("/jobs/locks").buildQueue();
        jobs.start();                                            // every queue but the simple one: start(), close()
        jobs.put("job-1");                                       // in the background by default; flushPuts waits
        Iterator<String> batch = List.of("a", "b").iterator();
        jobs.putMulti(() -> batch.hasNext() ? batch.next() : null);              // several items in one node
        jobs.putAsync("job-2").thenRun(() -> log("queued"));

        // Items with ids, removable before anyone consumes them.
        DistributedIdQueue<String> orders = QueueBuilder.builder(client, worker, text, "/orders").buildIdQueue();
        orders.start();
        orders.put("order 7", "order-7");
        int cancelled = orders.remove("order-7");

        // Lower priority first; after 10 items of a listing, list again if something more urgent came.
        DistributedPriorityQueue<String> alerts = QueueBuilder.builder(client, worker, text, "/alerts")
                .buildPriorityQueue(10);
        alerts.start();
        alerts.put("disk full", 0);

        // Not delivered before the given time.
        DistributedDelayQueue<String> reminders = QueueBuilder.builder(client, worker, text, "/reminders").buildDelayQueue();
        reminders.start();
        reminders.put("renew the certificate", System.currentTimeMillis() + TimeUnit.DAYS.toMillis(7));

        // A java.util.Queue-like queue of byte arrays; no lifecycle.
        SimpleDistributedQueue simple = new SimpleDistributedQueue(client, "/simple");
        simple.offer(bytes);
        byte[] first = simple.element();                         // element()/remove(): NoSuchElementException if empty
        byte[] next = simple.poll(5, TimeUnit.SECONDS);          // null if none came
        simple.takeAsync().thenAccept(this::handle);             // waits on a watch, holding no thread
        // README.md end queues
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> consumed.containsAll(
                    List.of("job-1", "a", "b", "job-2", "disk full")));
            assertThat(consumed).containsSubsequence("job-1", "a", "b", "job-2");   // FIFO
            assertThat(logged).containsExactly("queued");
            assertThat(new String(first, UTF_8)).isEqualTo("report");
            assertThat(new String(next, UTF_8)).isEqualTo("report");
            simple.offer("invoice".getBytes(UTF_8));
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.contains("invoice"));
            if (cancelled == 0) {   // the consumer took the order first
                await().atMost(Duration.ofSeconds(30)).until(() -> consumed.contains("order 7"));
            } else {
                assertThat(cancelled).isEqualTo(1);
            }
            jobs.flushPuts(10, TimeUnit.SECONDS);
            assertThat(consumed).doesNotContain("renew the certificate", "(stopped)")
                    .doesNotHaveDuplicates();
            assertThat(consumed.contains("order 7")).isEqualTo(cancelled == 0);
        } finally {
            jobs.close();
            orders.close();
            alerts.close();
            reminders.close();
        }
    }
}
