package dev.baton.recipes.queue;

import static dev.baton.recipes.queue.Queues.STRINGS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
@Tag("slow")
class DistributedQueueTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);
    private BatonClient client;

    @BeforeEach
    void setUp() throws InterruptedException {
        client = resources.untrackedClient();
    }

    private static List<String> items(int n) {
        return IntStream.range(0, n).mapToObj(i -> "item-" + i).toList();
    }

    @Test
    void oneConsumerGetsEveryItemInOrder() throws Exception {
        Queues.Recording consumer = new Queues.Recording();
        DistributedQueue<String> queue = resources.open(
                QueueBuilder.builder(client, consumer, STRINGS, "/q/fifo").buildQueue());
        queue.start();
        for (String item : items(100)) {
            queue.put(item);
        }
        assertThat(queue.flushPuts(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(20)).until(() -> consumer.consumed.size() == 100);
        assertThat(consumer.consumed).containsExactlyElementsOf(items(100));
        await().until(() -> itemNodes("/q/fifo").isEmpty());
    }

    /**
     * Two producers put from one thread each, in the background; two consumers take turns on the items. Each
     * consumer must receive each producer's items in that producer's order. (A consumer that lost a race once
     * used to pick one of the next few items at random, and so received items out of order.)
     */
    @Test
    void eachConsumerReceivesEachThreadsPutsInTheirOrder() throws Exception {
        for (int round = 0; round < 3; round++) {
            String path = "/q/order-" + round;
            List<ExecutorService> executors = IntStream.range(0, 4)
                    .mapToObj(i -> Executors.newSingleThreadExecutor()).toList();
            List<Queues.Recording> consumers = List.of(new Queues.Recording(), new Queues.Recording());
            try {
                for (int c = 0; c < 2; c++) {
                    resources.open(QueueBuilder.builder(client, consumers.get(c), STRINGS, path)
                            .executor(executors.get(c)).buildQueue()).start();
                }
                List<DistributedQueue<String>> producers = new ArrayList<>();
                for (int p = 0; p < 2; p++) {
                    DistributedQueue<String> producer = resources.open(
                            QueueBuilder.builder(resources.untrackedClient(), null, STRINGS, path).buildQueue());
                    producer.start();
                    producers.add(producer);
                }
                List<CompletableFuture<Void>> putters = new ArrayList<>();
                for (int p = 0; p < 2; p++) {
                    DistributedQueue<String> producer = producers.get(p);
                    String prefix = "p" + p + "-";
                    putters.add(CompletableFuture.runAsync(() -> {
                        try {
                            for (int i = 0; i < 50; i++) {
                                producer.put(prefix + i);
                            }
                        } catch (Exception e) {
                            throw new CompletionException(e);
                        }
                    }, executors.get(2 + p)));
                }
                CompletableFuture.allOf(putters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                for (DistributedQueue<String> producer : producers) {
                    assertThat(producer.flushPuts(20, TimeUnit.SECONDS)).isTrue();
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> consumers.get(0).consumed.size() + consumers.get(1).consumed.size() == 100);
                List<String> all = new ArrayList<>(consumers.get(0).consumed);
                all.addAll(consumers.get(1).consumed);
                assertThat(all).doesNotHaveDuplicates().hasSize(100);
                for (Queues.Recording consumer : consumers) {
                    for (String prefix : List.of("p0-", "p1-")) {
                        List<Integer> got = consumer.consumed.stream().filter(m -> m.startsWith(prefix))
                                .map(m -> Integer.parseInt(m.substring(prefix.length()))).toList();
                        assertThat(got).as("round %d, %s items as one consumer received them", round, prefix)
                                .isSorted();
                    }
                }
            } finally {
                executors.forEach(ExecutorService::shutdownNow);
            }
        }
    }

    @Test
    void withALockPathEachItemIsRemovedOnlyAfterItWasConsumed() throws Exception {
        List<String> inQueueWhileConsuming = new CopyOnWriteArrayList<>();
        QueueConsumer<String> consumer = new Queues.Recording() {
            @Override
            public void consumeMessage(String message) {
                try {
                    inQueueWhileConsuming.addAll(itemNodes("/q/locked"));
                    inQueueWhileConsuming.addAll(client.getChildren().forPath("/q/locks"));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                super.consumeMessage(message);
            }
        };
        DistributedQueue<String> queue = resources.open(QueueBuilder.builder(client, consumer, STRINGS,
                "/q/locked").lockPath("/q/locks").putInBackground(false).buildQueue());
        queue.start();
        queue.put("a");
        await().until(() -> ((Queues.Recording) consumer).consumed.size() == 1);
        // While consumed, the item was still queued and its lock node (same name) existed.
        assertThat(inQueueWhileConsuming).hasSize(2);
        assertThat(inQueueWhileConsuming.get(0)).startsWith("queue-").isEqualTo(inQueueWhileConsuming.get(1));
        await().until(() -> itemNodes("/q/locked").isEmpty() && client.getChildren().forPath("/q/locks").isEmpty());
    }

    @Test
    void aFailedItemIsRequeuedOrDeletedAsTheErrorModeSays() throws Exception {
        Queues.Recording consumer = new Queues.Recording();
        consumer.failOn = "boom";
        DistributedQueue<String> queue = resources.open(QueueBuilder.builder(client, consumer, STRINGS,
                "/q/errors").lockPath("/q/errors-locks").buildQueue());
        queue.start();
        queue.put("boom");
        queue.put("next");
        await().until(() -> consumer.consumed.size() == 3);
        assertThat(consumer.consumed).containsExactly("boom", "next", "boom"); // requeued at the end

        queue.setErrorMode(ErrorMode.DELETE);
        consumer.failOn = "gone";
        queue.put("gone");
        queue.put("last");
        await().until(() -> consumer.consumed.size() == 5);
        assertThat(consumer.consumed.subList(3, 5)).containsExactly("gone", "last");
        await().until(() -> itemNodes("/q/errors").isEmpty());
    }

    @Test
    void putMultiDeliversTheItemsOneByOneFromOneNode() throws Exception {
        Queues.Recording consumer = new Queues.Recording();
        DistributedQueue<String> producer = resources.open(
                QueueBuilder.builder(client, null, STRINGS, "/q/multi").putInBackground(false).buildQueue());
        producer.start();
        List<String> batch = new ArrayList<>(List.of("x", "y", "z"));
        producer.putMulti(() -> batch.isEmpty() ? null : batch.remove(0));
        assertThat(itemNodes("/q/multi")).hasSize(1);
        DistributedQueue<String> queue = resources.open(
                QueueBuilder.builder(client, consumer, STRINGS, "/q/multi").buildQueue());
        queue.start();
        await().until(() -> consumer.consumed.size() == 3);
        assertThat(consumer.consumed).containsExactly("x", "y", "z");
    }

    @Test
    void aBoundedQueueMakesPutsWaitAndATimedPutReturnsFalse() throws Exception {
        DistributedQueue<String> queue = resources.open(
                QueueBuilder.builder(client, null, STRINGS, "/q/bounded").maxItems(2).buildQueue());
        queue.start();
        queue.put("1");
        assertThat(queue.put("2", 1, TimeUnit.SECONDS)).isTrue();
        long start = System.nanoTime();
        assertThat(queue.put("3", 300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
        assertThat(itemNodes("/q/bounded")).hasSize(2);

        // A consumer makes room: a waiting put goes through.
        Queues.Recording consumer = new Queues.Recording();
        ExecutorService putter = Executors.newSingleThreadExecutor();
        try {
            var waiting = putter.submit(() -> queue.put("3", 20, TimeUnit.SECONDS));
            DistributedQueue<String> taker = resources.open(
                    QueueBuilder.builder(client, consumer, STRINGS, "/q/bounded").buildQueue());
            taker.start();
            assertThat(waiting.get(20, TimeUnit.SECONDS)).isTrue();
            await().until(() -> consumer.consumed.size() == 3);
            assertThat(consumer.consumed).containsExactly("1", "2", "3");
        } finally {
            putter.shutdownNow();
        }
    }

    @Test
    void putListenersAndAsyncPutsReportCompletion() throws Exception {
        DistributedQueue<String> queue = resources.open(
                QueueBuilder.builder(client, null, STRINGS, "/q/listen").buildQueue());
        List<String> done = new CopyOnWriteArrayList<>();
        queue.getPutListenerContainer().addListener(new QueuePutListener<>() {
            @Override
            public void putCompleted(String item) {
                done.add(item);
            }

            @Override
            public void putMultiCompleted(MultiItem<String> items) {
                done.add("multi");
            }
        });
        queue.start();
        queue.put("a");
        queue.putAsync("b").get(10, TimeUnit.SECONDS);
        queue.putMulti(() -> null);
        assertThat(queue.flushPuts(10, TimeUnit.SECONDS)).isTrue();
        await().until(() -> done.size() == 3);
        assertThat(done).containsExactlyInAnyOrder("a", "b", "multi");
        assertThat(itemNodes("/q/listen")).hasSize(3);
    }

    @Test
    void aPutWhoseReplyIsLostIsNeitherDoubledNorLost() throws Exception {
        DistributedQueue<String> queue = resources.open(
                QueueBuilder.builder(client, null, STRINGS, "/q/cut").putInBackground(false).buildQueue());
        queue.start();
        queue.put("before");
        zk.server().dropConnectionOnNextCreate("/q/cut/queue-");
        queue.put("cut");          // applied, but its answer never came: found applied by the marker's version
        queue.put("after");
        zk.server().dropConnectionOnNextCreate("/q/cut/queue-");
        for (int i = 0; i < 20; i++) {
            queue.putAsync("pipelined-" + i); // in flight together when the connection drops
        }
        assertThat(queue.flushPuts(20, TimeUnit.SECONDS)).isTrue();
        List<String> data = new ArrayList<>();
        for (String name : itemNodes("/q/cut")) {
            data.add(ItemCodec.decode(client.getData().forPath("/q/cut/" + name), STRINGS).get(0));
        }
        // In the order of the calls, also those sent again after the connection came back.
        List<String> expected = new ArrayList<>(List.of("before", "cut", "after"));
        IntStream.range(0, 20).forEach(i -> expected.add("pipelined-" + i));
        assertThat(data).containsExactlyElementsOf(expected);
    }

    @Test
    void badArgumentsFailAtTheCallSite() throws Exception {
        assertThatThrownBy(() -> QueueBuilder.builder(null, null, STRINGS, "/q/x"))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("client");
        assertThatThrownBy(() -> QueueBuilder.builder(client, null, null, "/q/x"))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("serializer");
        assertThatThrownBy(() -> QueueBuilder.builder(client, null, STRINGS, "q/x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("q/x");
        QueueBuilder<String> builder = QueueBuilder.builder(client, null, STRINGS, "/q/x");
        assertThatThrownBy(() -> builder.maxItems(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxItems").hasMessageContaining("0");
        assertThatThrownBy(() -> builder.lockPath("/q/x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.lockPath("bad")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.executor(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("executor");
        assertThatThrownBy(() -> builder.finalFlushTime(-1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.buildPriorityQueue(-1)).isInstanceOf(IllegalArgumentException.class);

        DistributedQueue<String> queue = resources.open(builder.buildQueue());
        assertThatThrownBy(() -> queue.put("early")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("start()");
        queue.start();
        assertThatThrownBy(queue::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> queue.put(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("item");
        assertThatThrownBy(() -> queue.put("x", -1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.putMulti(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> queue.setErrorMode(ErrorMode.DELETE)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lock path");
        queue.close();
        assertThatThrownBy(() -> queue.put("late")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(queue::start).isInstanceOf(IllegalStateException.class);
        queue.close(); // idempotent
    }

    @Test
    void closeLeavesNoWatchNodeOrListener() throws Exception {
        int listenersBefore = client.getConnectionStateListenable() instanceof dev.baton.internal.ListenerContainer<?> c
                ? c.size() : -1;
        Queues.Recording consumer = new Queues.Recording();
        DistributedQueue<String> queue = QueueBuilder.builder(client, consumer, STRINGS, "/q/close")
                .lockPath("/q/close-locks").buildQueue();
        queue.start();
        queue.put("a");
        await().until(() -> consumer.consumed.size() == 1);
        queue.close();
        // The client holds no watch of the queue's path any more (and so the server holds none for it).
        assertThatThrownBy(() -> client.getZooKeeper().removeAllWatches("/q/close", Watcher.WatcherType.Any,
                false)).isInstanceOf(KeeperException.NoWatcherException.class);
        assertThat(client.getChildren().forPath("/q/close")).isEmpty(); // item consumed
        assertThat(client.getChildren().forPath(Producer.markerDirectory("/q/close"))).isEmpty(); // marker gone
        assertThat(client.getChildren().forPath("/q/close-locks")).isEmpty();
        if (listenersBefore >= 0) {
            assertThat(((dev.baton.internal.ListenerContainer<?>) client.getConnectionStateListenable()).size())
                    .isEqualTo(listenersBefore);
        }
    }

    @Test
    void aThousandIdleConsumersAddNoThread() throws Exception {
        Set<String> before = threadNames();
        List<DistributedQueue<String>> idle = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            DistributedQueue<String> q = QueueBuilder.builder(client, new Queues.Recording(), STRINGS,
                    "/q/idle/" + i).buildQueue();
            q.start();
            idle.add(q);
        }
        await().until(() -> idle.stream().allMatch(q -> q.getLastMessageCount() == 0));
        Set<String> added = threadNames();
        added.removeAll(before);
        assertThat(added).filteredOn(n -> !n.startsWith("awaitility")).isEmpty(); // the test's own poller
        idle.forEach(DistributedQueue::close);
    }

    private static Set<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .collect(Collectors.toSet());
    }

    private List<String> itemNodes(String path) throws Exception {
        return client.getChildren().forPath(path).stream().filter(n -> n.startsWith("queue-")).sorted().toList();
    }
}
