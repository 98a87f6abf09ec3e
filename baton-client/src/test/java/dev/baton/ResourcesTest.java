package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.retry.RetryOneTime;
import dev.baton.retry.RetryPolicy;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
class ResourcesTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /** Live threads, less those the embedded server and Awaitility start on demand while the test runs. */
    private static Set<Thread> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> !t.getName().startsWith("NIOWorkerThread-") && !t.getName().startsWith("awaitility"))
                .collect(Collectors.toSet());
    }

    private static Set<String> names(Set<Thread> threads) {
        return threads.stream().map(Thread::getName).collect(Collectors.toSet());
    }

    @Test
    void startedClientAddsAtMostTwoThreadsToZooKeepersOwnAndCloseStopsThemAll() throws Exception {
        Set<Thread> before = liveThreads();
        BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10));
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        // Exercise every thread the client may start: listener dispatch, background work, retries.
        client.getConnectionStateListenable().addListener((c, s) -> { });
        client.create().withMode(CreateMode.EPHEMERAL).forPathAsync("/resources").get(10, TimeUnit.SECONDS);
        client.getData().inBackground((c, e) -> { }).forPath("/resources");
        client.checkExists().forPath("/resources");
        CompletableFuture<Void> ran = new CompletableFuture<>();
        client.schedule(() -> ran.complete(null), Duration.ofMillis(1));
        ran.get(10, TimeUnit.SECONDS);

        Set<Thread> added = liveThreads();
        added.removeAll(before);
        Set<String> addedNames = names(added);
        Set<String> zooKeepers = addedNames.stream()
                .filter(n -> n.endsWith("-SendThread(" + zk.connectString() + ")") || n.endsWith("-EventThread"))
                .collect(Collectors.toSet());
        Set<String> ours = addedNames.stream().filter(n -> !zooKeepers.contains(n)).collect(Collectors.toSet());
        assertThat(zooKeepers).as("ZooKeeper's own threads").hasSize(2);
        assertThat(ours).as("threads the client added to ZooKeeper's").hasSizeLessThanOrEqualTo(2)
                .allMatch(n -> n.startsWith("baton-"));

        client.close();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Set<Thread> left = liveThreads();
            left.removeAll(before);
            assertThat(names(left)).as("threads left after close").isEmpty();
        });
    }

    @Test
    void scheduleRunsOnTheClientsSchedulerAndCancelsAndChecksItsArguments() throws Exception {
        BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10));
        assertThatThrownBy(() -> client.schedule(() -> { }, Duration.ZERO))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not started");
        client.start();
        try {
            CompletableFuture<String> ranOn = new CompletableFuture<>();
            long start = System.nanoTime();
            client.schedule(() -> ranOn.complete(Thread.currentThread().getName()), Duration.ofMillis(50));
            assertThat(ranOn.get(10, TimeUnit.SECONDS)).startsWith("baton-scheduler-");
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));

            CompletableFuture<Void> cancelled = new CompletableFuture<>();
            ScheduledFuture<?> task = client.schedule(() -> cancelled.complete(null), Duration.ofMillis(200));
            assertThat(task.cancel(false)).isTrue();
            CompletableFuture<Void> later = new CompletableFuture<>();
            client.schedule(() -> later.complete(null), Duration.ofMillis(400));
            later.get(10, TimeUnit.SECONDS);
            assertThat(cancelled).isNotDone();
            // Delays beyond what nanoseconds can count mean "never", not an overflow into the past.
            client.schedule(() -> cancelled.complete(null), Duration.ofSeconds(Long.MAX_VALUE)).cancel(false);

            assertThatThrownBy(() -> client.schedule(null, Duration.ZERO)).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("task");
            assertThatThrownBy(() -> client.schedule(() -> { }, null)).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("delay");
            assertThatThrownBy(() -> client.schedule(() -> { }, Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delay").hasMessageContaining("-");
        } finally {
            client.close();
        }
        assertThatThrownBy(() -> client.schedule(() -> { }, Duration.ZERO))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void anAsynchronousCallPausingBetweenRetriesFailsWhenTheClientCloses() throws Exception {
        CountDownLatch pausing = new CountDownLatch(1);
        RetryPolicy longPause = (retryCount, elapsed) -> {
            pausing.countDown();
            return retryCount == 0 ? Optional.of(Duration.ofMinutes(5)) : Optional.empty();
        };
        // Nothing listens on port 1 of the loopback address: the first attempt fails, then the call pauses.
        BatonClient client = Baton.builder().connectString("127.0.0.1:1").connectionTimeout(Duration.ofMillis(300))
                .retryPolicy(longPause).build();
        client.start();
        CompletableFuture<byte[]> read = client.getData().forPathAsync("/x");
        assertThat(pausing.await(30, TimeUnit.SECONDS)).isTrue();
        client.close();
        // Before the fix, closing dropped the pause's task and the caller's future never completed.
        assertThatThrownBy(() -> read.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasMessageContaining("closed");
    }

    @Test
    void closingAClientThatNeverConnectedLeavesNoThread() {
        Set<Thread> before = liveThreads();
        // Nothing listens on port 1 of the loopback address.
        BatonClient client = Baton.newClient("127.0.0.1:1", new RetryOneTime(10));
        client.start();
        client.close();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Set<Thread> left = liveThreads();
            left.removeAll(before);
            assertThat(names(left)).isEmpty();
        });
    }

    @Test
    void closingWhileAGivenUpSessionIsBeingClosedOnTheServerLeavesNoThread() throws Exception {
        Set<Thread> before = liveThreads();
        try (TcpProxy proxy = TcpProxy.start(zk.server().port())) {
            BatonClient client = Baton.builder().connectString(proxy.address()).sessionTimeout(Duration.ofSeconds(20))
                    .connectionTimeout(Duration.ofSeconds(2)).retryPolicy(new RetryOneTime(10))
                    .simulatedSessionExpirationPercent(5).ensembleTracker(false).build();
            CompletableFuture<Void> lost = new CompletableFuture<>();
            client.getConnectionStateListenable().addListener((c, state) -> {
                if (state == ConnectionState.LOST) {
                    lost.complete(null);
                }
            });
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            proxy.partition(TcpProxy.Mode.DROP); // the old session cannot be closed, nor a new one opened
            lost.get(20, TimeUnit.SECONDS);
            client.close();
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Set<Thread> left = liveThreads();
            left.removeAll(before);
            assertThat(names(left)).as("threads left after close").isEmpty();
        });
    }
}
