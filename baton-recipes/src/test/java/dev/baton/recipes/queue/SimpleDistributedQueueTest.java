package dev.baton.recipes.queue;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, UTF_8);
    }
}
