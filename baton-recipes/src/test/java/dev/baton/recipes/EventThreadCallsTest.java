package dev.baton.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.recipes.atomic.AtomicValue;
import dev.baton.recipes.atomic.DistributedAtomicLong;
import dev.baton.BatonClient;
import dev.baton.recipes.barriers.DistributedBarrier;
import dev.baton.recipes.barriers.DistributedDoubleBarrier;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.recipes.locks.InterProcessSemaphoreV2;
import dev.baton.recipes.queue.DistributedQueue;
import dev.baton.recipes.queue.QueueBuilder;
import dev.baton.recipes.queue.QueueSerializer;
import dev.baton.recipes.queue.SimpleDistributedQueue;
import dev.baton.retry.RetryNTimes;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SPEC §5: a blocking recipe call made on ZooKeeper's event thread (inside a watcher or a callback) could never
 * complete, so it fails at once with {@link IllegalStateException} saying so, and leaves nothing behind.
 */
@Timeout(120)
class EventThreadCallsTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private BatonClient client;

    /** A call that may throw anything. */
    interface Call {
        void run() throws Exception;
    }

    @BeforeEach
    void connect() throws InterruptedException {
        client = Baton.builder().connectString(zk.connectString()).sessionTimeout(Duration.ofSeconds(10))
                .retryPolicy(new RetryOneTime(10)).build();
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void close() {
        client.close();
    }

    /**
     * Runs the call inside a background callback on ZooKeeper's event thread; returns what it threw. (A callback
     * whose request was retried after a connection hiccup may come on the client's scheduler thread instead: then
     * it is sent again once the client is connected; a loaded machine can take several hiccups in a row.)
     */
    private Throwable onEventThread(Call call) throws Exception {
        for (int attempt = 0; attempt < 20; attempt++) {
            assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).as("connected").isTrue();
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            client.checkExists().inBackground((c, event) -> {
                if (!client.isEventThread()) {
                    thrown.complete(NOT_ON_EVENT_THREAD);
                    return;
                }
                try {
                    call.run();
                    thrown.complete(null);
                } catch (Throwable t) {
                    thrown.complete(t);
                }
            }).forPath("/");
            Throwable result = thrown.get(30, TimeUnit.SECONDS);
            if (result != NOT_ON_EVENT_THREAD) {
                return result;
            }
        }
        throw new AssertionError("no callback came on ZooKeeper's event thread");
    }

    private static final Throwable NOT_ON_EVENT_THREAD = new Throwable("not on the event thread");

    /** Children of the path; 0 if it does not exist. */
    private int nodesUnder(String path) throws Exception {
        return TestResources.childCount(client, path);
    }

    private static void assertRefused(Throwable thrown) {
        assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessageContaining("event thread");
    }

    @Test
    void aLatchThatDoesNotLeadCannotBeAwaitedThere() throws Exception {
        try (LeaderLatch first = new LeaderLatch(client, "/et/latch", "first");
                LeaderLatch second = new LeaderLatch(client, "/et/latch", "second")) {
            first.start();
            assertThat(first.await(20, TimeUnit.SECONDS)).isTrue();
            second.start();

            assertRefused(onEventThread(second::await));
            assertRefused(onEventThread(() -> second.await(5, TimeUnit.SECONDS)));
            assertThat(onEventThread(first::await)).isNull(); // leads already: nothing to wait for
        }
    }

    @Test
    void aSetBarrierCannotBeWaitedOnThereAndLeavesNoWatch() throws Exception {
        DistributedBarrier barrier = new DistributedBarrier(client, "/et/barrier");
        assertThat(onEventThread(barrier::waitOnBarrier)).isNull(); // not set: answered at once
        barrier.setBarrier();

        assertRefused(onEventThread(barrier::waitOnBarrier));
        await().atMost(Duration.ofSeconds(20)).until(() -> !zk.server().watchedPaths().contains("/et/barrier"));
        barrier.removeBarrier();
    }

    @Test
    void aDoubleBarrierCannotBeEnteredThereAndNoMemberIsLeft() throws Exception {
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, "/et/double", 2);

        assertRefused(onEventThread(barrier::enter));
        assertRefused(onEventThread(() -> barrier.enter(1, TimeUnit.SECONDS)));
        assertThat(nodesUnder("/et/double")).isZero();
        assertThat(barrier.enterAsync().isDone()).isFalse(); // the instance is still free for a call
    }

    @Test
    void locksAndLeasesCannotBeWaitedForThere() throws Exception {
        InterProcessMutex mutex = new InterProcessMutex(client, "/et/mutex");
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, "/et/semaphore", 1);

        assertRefused(onEventThread(mutex::acquire));
        assertRefused(onEventThread(semaphore::acquire));
        assertThat(nodesUnder("/et/mutex")).isZero();
        // a refused acquisition may have sent its create already: it is given up, and its node deleted
        await().atMost(Duration.ofSeconds(20)).until(() -> nodesUnder("/et/semaphore") == 0);
    }

    @Test
    void queuesCannotBeWaitedOnThere() throws Exception {
        SimpleDistributedQueue simple = new SimpleDistributedQueue(client, "/et/simple");
        assertThat(onEventThread(simple::poll)).isNull(); // answered by a read, not a wait
        assertRefused(onEventThread(simple::take));
        assertRefused(onEventThread(() -> simple.poll(5, TimeUnit.SECONDS)));

        QueueSerializer<String> strings = new QueueSerializer<>() {
            @Override
            public byte[] serialize(String item) {
                return item.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String deserialize(byte[] bytes) {
                return new String(bytes, StandardCharsets.UTF_8);
            }
        };
        try (DistributedQueue<String> queue = QueueBuilder.builder(client, null, strings, "/et/queue")
                .putInBackground(false).buildQueue()) {
            queue.start();
            assertRefused(onEventThread(() -> queue.put("x")));
            assertThat(client.getChildren().forPath("/et/queue")).isEmpty();
        }
    }

    @Test
    void anAtomicCounterThatNeedsNoWaitWorksThere() throws Exception {
        DistributedAtomicLong counter = new DistributedAtomicLong(client, "/et/counter", new RetryNTimes(3, 0));
        AtomicReference<AtomicValue<Long>> result = new AtomicReference<>();

        assertThat(onEventThread(() -> result.set(counter.increment()))).isNull();
        assertThat(result.get().succeeded()).isTrue();
        assertThat(counter.get().postValue()).isEqualTo(1L);
    }
}
