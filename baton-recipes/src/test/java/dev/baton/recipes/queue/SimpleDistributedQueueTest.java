package dev.baton.recipes.queue;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
class SimpleDistributedQueueTest {
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
    void behavesLikeAJavaUtilQueue() throws Exception {
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/sq/basic");
        assertThat(queue.peek()).isNull();
        assertThat(queue.poll()).isNull();
        assertThatThrownBy(queue::element).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(queue::remove).isInstanceOf(NoSuchElementException.class);

        assertThat(queue.offer(b("1"))).isTrue();
        assertThat(queue.offer(b("2"))).isTrue();
        assertThat(queue.offer(b("3"))).isTrue();
        assertThat(client.getChildren().forPath("/sq/basic")).allMatch(n -> n.startsWith("qn-"));
        assertThat(s(queue.element())).isEqualTo("1");
        assertThat(s(queue.peek())).isEqualTo("1");
        assertThat(s(queue.remove())).isEqualTo("1");
        assertThat(s(queue.poll())).isEqualTo("2");
        assertThat(s(queue.take())).isEqualTo("3");
        assertThat(queue.poll()).isNull();

        assertThatThrownBy(() -> queue.offer(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> queue.poll(-1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SimpleDistributedQueue(client, "no-slash"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SimpleDistributedQueue(null, "/x")).isInstanceOf(NullPointerException.class);
    }

    @Test
    void pollWithATimeoutWaitsForAnItemOrReturnsNull() throws Exception {
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/sq/timed");
        long start = System.nanoTime();
        assertThat(queue.poll(300, TimeUnit.MILLISECONDS)).isNull();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));

        SimpleDistributedQueue other = new SimpleDistributedQueue(resources.untrackedClient(), "/sq/timed");
        CompletableFuture<byte[]> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return queue.poll(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        other.offer(b("late"));
        assertThat(s(waiting.get(20, TimeUnit.SECONDS))).isEqualTo("late");
        // A wait that ended leaves no watch behind.
        assertThatThrownBy(() -> client.getZooKeeper().removeAllWatches("/sq/timed", Watcher.WatcherType.Any,
                false)).isInstanceOf(KeeperException.NoWatcherException.class);
    }

    @Test
    void takeAsyncHoldsNoThreadAndEachItemGoesToOneTaker() throws Exception {
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/sq/async");
        List<CompletableFuture<byte[]>> takes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            takes.add(queue.takeAsync());
        }
        assertThat(takes).noneMatch(CompletableFuture::isDone);
        SimpleDistributedQueue producer = new SimpleDistributedQueue(resources.untrackedClient(), "/sq/async");
        for (int i = 0; i < 20; i++) {
            producer.offer(b("item-" + i));
        }
        List<String> got = new ArrayList<>();
        for (CompletableFuture<byte[]> take : takes) {
            got.add(s(take.get(20, TimeUnit.SECONDS)));
        }
        assertThat(got).hasSize(20).doesNotHaveDuplicates();
        assertThat(queue.poll()).isNull();
    }

    @Test
    void aTakeWaitingWhenTheContainerIsReapedStillGetsTheNextItem() throws Exception {
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/sq/reaped");
        queue.offer(b("x"));
        assertThat(s(queue.take())).isEqualTo("x");
        CompletableFuture<byte[]> waiting = queue.takeAsync();
        client.delete().forPath("/sq/reaped"); // what the container reaper does to an empty container
        new SimpleDistributedQueue(resources.untrackedClient(), "/sq/reaped").offer(b("y"));
        assertThat(s(waiting.get(20, TimeUnit.SECONDS))).isEqualTo("y");
    }

    @Test
    void concurrentTakersGetEveryItemOnceAndEachTakerInSequenceOrder() throws Exception {
        int items = 300;
        long watchesBefore = zk.server().watchCount();
        SimpleDistributedQueue producer = new SimpleDistributedQueue(resources.untrackedClient(), "/sq/many");
        List<SimpleDistributedQueue> consumers = List.of(new SimpleDistributedQueue(client, "/sq/many"),
                new SimpleDistributedQueue(resources.untrackedClient(), "/sq/many"));
        AtomicInteger delivered = new AtomicInteger();
        List<List<String>> perTaker = new ArrayList<>();
        ExecutorService pool = Executors.newCachedThreadPool();
        List<Future<?>> takers = new ArrayList<>();
        try {
            for (int t = 0; t < 6; t++) {
                SimpleDistributedQueue queue = consumers.get(t % 2);
                boolean timed = t % 3 == 0; // some takers poll with a timeout, the others take
                List<String> got = new ArrayList<>();
                perTaker.add(got);
                takers.add(pool.submit(() -> {
                    while (delivered.get() < items) {
                        byte[] item = timed ? queue.poll(50, TimeUnit.MILLISECONDS) : queue.take();
                        if (item != null) {
                            got.add(s(item));
                            delivered.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (int i = 0; i < items; i++) {
                producer.offer(b(String.format("item-%05d", i)));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered.get() == items);
        } finally {
            pool.shutdownNow(); // interrupts the takes still waiting: they give up
            assertThat(pool.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
        }
        List<String> all = new ArrayList<>();
        for (List<String> got : perTaker) {
            assertThat(got).as("one taker's items").isSortedAccordingTo(String::compareTo).doesNotHaveDuplicates();
            all.addAll(got);
        }
        assertThat(all).hasSize(items).doesNotHaveDuplicates();
        // Nothing left: the container is empty (or already reaped as such).
        assertThat(client.checkExists().forPath("/sq/many") == null ? List.of()
                : client.getChildren().forPath("/sq/many")).isEmpty();
        // The takes given up set no watch again: once one more item fires what the server still holds (ZooKeeper
        // removes a single watcher in the client only), a poll takes it and no watch is left.
        producer.offer(b("last"));
        assertThat(s(consumers.get(1).poll(20, TimeUnit.SECONDS))).isEqualTo("last");
        await().untilAsserted(() -> assertThat(zk.server().watchCount()).isEqualTo(watchesBefore));
    }

    @Test
    void waitingTakesShareOneListingAndGetTheItemsInOrder() throws Exception {
        int items = 40;
        SimpleDistributedQueue producer = new SimpleDistributedQueue(resources.untrackedClient(), "/sq/shared");
        for (int i = 0; i < items; i++) {
            producer.offer(b(String.format("item-%05d", i)));
        }
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/sq/shared");
        Map<String, Long> before = zk.server().requestCounts();
        List<CompletableFuture<byte[]>> takes = new ArrayList<>();
        for (int i = 0; i < items; i++) {
            takes.add(queue.takeAsync());
        }
        List<String> got = new ArrayList<>();
        for (CompletableFuture<byte[]> take : takes) {
            got.add(s(take.get(20, TimeUnit.SECONDS)));
        }
        Map<String, Long> after = zk.server().requestCounts();
        // Handed out in sequence order to the takes in the order they came.
        assertThat(got).hasSize(items).isSortedAccordingTo(String::compareTo).doesNotHaveDuplicates();
        // One listing served every take, each item one getData and one delete (a one-operation multi, never
        // retried: see Takes): no take listed for itself, and
        // no claim raced another take of the same queue.
        assertThat(sent(before, after, "getChildren")).isEqualTo(1);
        assertThat(sent(before, after, "getData")).isEqualTo(items);
        assertThat(sent(before, after, "multi")).isEqualTo(items);
    }

    @Test
    void takingOneAfterAnotherListsOnceAndClaimsEachItemOnce() throws Exception {
        int items = 50;
        SimpleDistributedQueue producer = new SimpleDistributedQueue(resources.untrackedClient(), "/sq/serial");
        for (int i = 0; i < items; i++) {
            producer.offer(b(String.format("item-%05d", i)));
        }
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/sq/serial");
        Map<String, Long> before = zk.server().requestCounts();
        for (int i = 0; i < items; i++) {
            assertThat(s(i % 2 == 0 ? queue.take() : queue.poll())).isEqualTo(String.format("item-%05d", i));
        }
        Map<String, Long> after = zk.server().requestCounts();
        // A take answered from the remembered listing sends its item's getData and delete and nothing else: no
        // second claim of the item it took, no listing, no removal of a watch it never set.
        assertThat(sent(before, after, "getChildren")).isEqualTo(1);
        assertThat(sent(before, after, "getData")).isEqualTo(items);
        assertThat(sent(before, after, "multi")).isEqualTo(items);
        assertThat(sent(before, after, "checkWatches")).isLessThanOrEqualTo(1);
    }

    @Test
    void aPollSeesEveryItemOfferedBeforeItEvenWithATakeWaiting() throws Exception {
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/sq/seen");
        SimpleDistributedQueue producer = new SimpleDistributedQueue(resources.untrackedClient(), "/sq/seen");
        for (int i = 0; i < 50; i++) {
            // The waiting take's listing may still be in flight when the poll comes: the poll must not take that
            // listing's answer, from before the offers, for its own.
            CompletableFuture<byte[]> waiting = queue.takeAsync();
            producer.offer(b("a" + i));
            producer.offer(b("b" + i));
            byte[] polled = queue.poll();
            assertThat(polled).as("poll %d", i).isNotNull();
            assertThat(List.of(s(polled), s(waiting.get(20, TimeUnit.SECONDS))))
                    .containsExactlyInAnyOrder("a" + i, "b" + i);
        }
    }

    @Test
    void afterARaceLostAClaimReadsBeforeItDeletes() throws Exception {
        List<String> names = offer("/sq/race", "a", "b", "c", "d", "e");
        BatonClient rival = resources.untrackedClient();
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/sq/race");
        assertThat(s(queue.poll())).isEqualTo("a"); // lists: b to e are remembered
        rival.delete().forPath("/sq/race/" + names.get(1)); // another consumer takes b
        assertThat(s(queue.poll())).isEqualTo("c"); // b's claim is a race lost
        rival.delete().forPath("/sq/race/" + names.get(3)); // and d

        Map<String, Long> before = zk.server().requestCounts();
        assertThat(s(queue.poll())).isEqualTo("e");
        Map<String, Long> after = zk.server().requestCounts();
        // Since the lost race, claims take turns with the rival and read first: d is left to the rival; e's read,
        // its delete, then a read of d behind it (gone), and no delete of d.
        assertThat(sent(before, after, "getData")).isEqualTo(2);
        assertThat(sent(before, after, "multi")).isEqualTo(1);
        assertThat(sent(before, after, "getChildren")).isZero();
    }

    @Test
    void takingTurnsWithARivalNeverLeavesAnEarlierItemBehind() throws Exception {
        List<String> names = offer("/sq/turns", "a", "b", "c", "d", "e", "f", "g");
        BatonClient rival = resources.untrackedClient();
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/sq/turns");
        assertThat(s(queue.poll())).isEqualTo("a"); // lists: b to g are remembered
        rival.delete().forPath("/sq/turns/" + names.get(1)); // the rival takes b
        assertThat(s(queue.poll())).isEqualTo("c"); // b's claim is a race lost: from now on, turns

        // The next claim leaves d to the rival and takes e; the rival does not take d, so d is taken too and
        // handed out first, and e waits for the next take without a request.
        assertThat(s(queue.poll())).isEqualTo("d");
        Map<String, Long> before = zk.server().requestCounts();
        assertThat(s(queue.poll())).isEqualTo("e");
        Map<String, Long> after = zk.server().requestCounts();
        assertThat(sent(before, after, "getData") + sent(before, after, "multi")).isZero();

        // Left to the rival, which takes it this time: f goes, g comes.
        rival.delete().forPath("/sq/turns/" + names.get(5));
        assertThat(s(queue.poll())).isEqualTo("g");
        assertThat(queue.poll()).isNull();
    }

    @Test
    void anItemTakenAheadOfTheTakesGoesBackWhenNoTakeComes() throws Exception {
        List<String> names = offer("/sq/held", "a", "b", "c", "d", "e");
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/sq/held");
        assertThat(s(queue.poll())).isEqualTo("a");
        resources.untrackedClient().delete().forPath("/sq/held/" + names.get(1));
        assertThat(s(queue.poll())).isEqualTo("c");
        assertThat(s(queue.poll())).isEqualTo("d"); // e was taken with it
        // No take comes for e: it goes back to the end of the queue, as a new node, rather than being lost (the
        // container, empty meanwhile, may have been reaped and made again).
        await().atMost(Duration.ofSeconds(20)).ignoreException(KeeperException.NoNodeException.class)
                .untilAsserted(() -> {
            List<String> left = client.getChildren().forPath("/sq/held");
            assertThat(left).hasSize(1).doesNotContain(names.get(4));
            assertThat(s(client.getData().forPath("/sq/held/" + left.get(0)))).isEqualTo("e");
        });
        assertThat(s(queue.poll())).isEqualTo("e");
    }

    /** Offers the items in order, from another client; returns their node names, in order. */
    private List<String> offer(String path, String... items) throws Exception {
        SimpleDistributedQueue producer = new SimpleDistributedQueue(resources.untrackedClient(), path);
        for (String item : items) {
            producer.offer(b(item));
        }
        List<String> names = new ArrayList<>(client.getChildren().forPath(path));
        names.sort(String::compareTo);
        return names;
    }

    private static long sent(Map<String, Long> before, Map<String, Long> after, String type) {
        return after.getOrDefault(type, 0L) - before.getOrDefault(type, 0L);
    }

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, UTF_8);
    }
}
