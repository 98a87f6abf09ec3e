package dev.baton.recipes.barriers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
@Tag("slow")
class DistributedBarrierTest {
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
    void waitersAreHeldUntilTheBarrierIsRemoved() throws Exception {
        DistributedBarrier coordinator = new DistributedBarrier(client, "/barrier/a");
        coordinator.setBarrier();
        coordinator.setBarrier(); // setting it again does nothing
        BatonClient other = resources.untrackedClient();
        DistributedBarrier waiter = new DistributedBarrier(other, "/barrier/a");
        CompletableFuture<Void> blocked = CompletableFuture.runAsync(() -> {
            try {
                waiter.waitOnBarrier();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        CompletableFuture<Boolean> timed = CompletableFuture.supplyAsync(() -> {
            try {
                return waiter.waitOnBarrier(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waiter.waitOnBarrier(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(blocked).isNotDone();
        assertThat(timed).isNotDone();

        coordinator.removeBarrier();
        blocked.get(10, TimeUnit.SECONDS);
        assertThat(timed.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(waiter.waitOnBarrier(0, TimeUnit.SECONDS)).isTrue(); // not set: at once
        coordinator.removeBarrier(); // removing it again does nothing
    }

    @Test
    void aTimedOutWaitRemovesItsWatch() throws Exception {
        DistributedBarrier barrier = new DistributedBarrier(client, "/barrier/watch");
        barrier.setBarrier();
        int before = zk.server().watchCount();
        assertThat(barrier.waitOnBarrier(100, TimeUnit.MILLISECONDS)).isFalse();
        await().untilAsserted(() -> assertThat(zk.server().watchCount()).isEqualTo(before));
        barrier.removeBarrier();
    }

    @Test
    void dataChangesAndConnectionEventsDoNotReleaseWaiters() throws Exception {
        DistributedBarrier barrier = new DistributedBarrier(client, "/barrier/changed");
        barrier.setBarrier();
        int before = zk.server().watchCount();
        CompletableFuture<Boolean> timed = CompletableFuture.supplyAsync(() -> {
            try {
                return barrier.waitOnBarrier(1500, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().until(() -> zk.server().watchCount() > before);
        client.setData().forPath("/barrier/changed", new byte[] {1});
        assertThat(timed.get(10, TimeUnit.SECONDS)).isFalse();
        barrier.removeBarrier();
    }

    @Test
    void asyncFormsSetRemoveAndWait() throws Exception {
        DistributedBarrier coordinator = new DistributedBarrier(client, "/barrier/async/a");
        assertThat(coordinator.setBarrierAsync().get(10, TimeUnit.SECONDS)).isNull();
        coordinator.setBarrierAsync().get(10, TimeUnit.SECONDS); // set already: nothing to do
        assertThat(client.checkExists().forPath("/barrier/async/a")).isNotNull();

        BatonClient other = resources.untrackedClient();
        DistributedBarrier waiter = new DistributedBarrier(other, "/barrier/async/a");
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            waits.add(waiter.waitOnBarrierAsync());
        }
        CompletableFuture<Boolean> blocked = CompletableFuture.supplyAsync(() -> {
            try {
                return waiter.waitOnBarrier(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().until(() -> dataWatchers(other, waiter.getPath()) == 21);
        assertThat(waits).noneMatch(CompletableFuture::isDone);
        assertThat(blocked).isNotDone();

        coordinator.removeBarrierAsync().get(10, TimeUnit.SECONDS);
        CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(blocked.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(client.checkExists().forPath("/barrier/async/a")).isNull();
        coordinator.removeBarrierAsync().get(10, TimeUnit.SECONDS); // not set: nothing to do
        assertThat(waiter.waitOnBarrierAsync().get(10, TimeUnit.SECONDS)).isNull(); // not set: after one read
        assertThat(dataWatchers(other, waiter.getPath())).isZero();
    }

    @Test
    void aThousandPendingAsyncWaitsHoldNoThreadAndCancellingRemovesTheirWatches() throws Exception {
        DistributedBarrier barrier = new DistributedBarrier(client, "/barrier/async/many");
        barrier.setBarrier();
        int serverWatchesBefore = zk.server().watchCount();
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            waits.add(barrier.waitOnBarrierAsync());
        }
        await().until(() -> dataWatchers(client, barrier.getPath()) == 1000);
        assertThat(zk.server().watchCount()).isEqualTo(serverWatchesBefore + 1); // one per client and path
        assertThat(ManagementFactory.getThreadMXBean().getThreadCount())
                .as("no thread per wait").isLessThanOrEqualTo(threadsBefore + 2);
        assertThat(waits).noneMatch(CompletableFuture::isDone);

        // Cancelled waits leave this client; the server's watch stays while one wait still needs it.
        for (CompletableFuture<Void> wait : waits.subList(1, 1000)) {
            assertThat(wait.cancel(false)).isTrue();
        }
        await().until(() -> dataWatchers(client, barrier.getPath()) == 1);
        assertThat(zk.server().watchCount()).isEqualTo(serverWatchesBefore + 1);
        assertThat(waits.get(0)).isNotDone();

        waits.get(0).cancel(false); // the last one: the server's watch goes too
        await().until(() -> dataWatchers(client, barrier.getPath()) == 0);
        await().until(() -> zk.server().watchCount() == serverWatchesBefore);

        // A wait given up by other means (a timeout on the future) cleans up the same way.
        CompletableFuture<Void> timed = barrier.waitOnBarrierAsync().orTimeout(100, TimeUnit.MILLISECONDS);
        assertThatThrownBy(() -> timed.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(TimeoutException.class);
        await().until(() -> dataWatchers(client, barrier.getPath()) == 0);
        await().until(() -> zk.server().watchCount() == serverWatchesBefore);
        barrier.removeBarrier();
    }

    @Test
    void aTimedOutBlockingWaitKeepsTheWatchAnAsyncWaitStillNeeds() throws Exception {
        DistributedBarrier barrier = new DistributedBarrier(client, "/barrier/async/shared");
        barrier.setBarrier();
        int before = zk.server().watchCount();
        CompletableFuture<Void> pending = barrier.waitOnBarrierAsync();
        await().until(() -> dataWatchers(client, barrier.getPath()) == 1);
        assertThat(barrier.waitOnBarrier(100, TimeUnit.MILLISECONDS)).isFalse();
        await().until(() -> dataWatchers(client, barrier.getPath()) == 1);
        assertThat(zk.server().watchCount()).isEqualTo(before + 1);
        barrier.removeBarrier();
        pending.get(10, TimeUnit.SECONDS);
        await().until(() -> zk.server().watchCount() == before);
    }

    @Test
    void dataChangesAndConnectionEventsDoNotCompleteAnAsyncWait() throws Exception {
        DistributedBarrier barrier = new DistributedBarrier(client, "/barrier/async/changed");
        barrier.setBarrier();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        client.getConnectionStateListenable().addListener((c, state) -> states.add(state));
        CompletableFuture<Void> wait = barrier.waitOnBarrierAsync();
        await().until(() -> dataWatchers(client, barrier.getPath()) == 1);
        long requests = zk.server().requestCount();
        client.setData().forPath(barrier.getPath(), new byte[] {1});
        // The watch fired and the wait read the node again, watching it again.
        await().until(() -> zk.server().requestCount() >= requests + 2 && dataWatchers(client, barrier.getPath()) == 1);
        assertThat(wait).isNotDone();

        zk.server().stop();
        await().until(() -> states.contains(ConnectionState.SUSPENDED));
        zk.server().restart();
        await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.RECONNECTED));
        await().until(() -> dataWatchers(client, barrier.getPath()) == 1);
        assertThat(wait).isNotDone();

        barrier.removeBarrier();
        wait.get(10, TimeUnit.SECONDS);
    }

    @Test
    void asyncFailuresCompleteTheFutureExceptionally() throws Exception {
        BatonClient closed = resources.untrackedClient();
        DistributedBarrier barrier = new DistributedBarrier(closed, "/barrier/async/closed");
        closed.close();
        for (CompletableFuture<Void> future : List.of(barrier.setBarrierAsync(), barrier.removeBarrierAsync(),
                barrier.waitOnBarrierAsync())) {
            assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(IllegalStateException.class);
        }
        // A failure is the cause itself, for stages that look at it.
        Throwable seen = barrier.setBarrierAsync().handle((v, e) -> e).get(10, TimeUnit.SECONDS);
        assertThat(seen).isInstanceOf(IllegalStateException.class);

        // The server refuses: the future fails with ZooKeeper's own exception, the blocking form throws it.
        client.create().withMode(CreateMode.EPHEMERAL).forPath("/barrier-ephemeral");
        DistributedBarrier underEphemeral = new DistributedBarrier(client, "/barrier-ephemeral/child");
        Throwable refused = underEphemeral.setBarrierAsync().handle((v, e) -> e).get(10, TimeUnit.SECONDS);
        assertThat(refused).isInstanceOf(KeeperException.NoChildrenForEphemeralsException.class);
        assertThatThrownBy(underEphemeral::setBarrier)
                .isInstanceOf(KeeperException.NoChildrenForEphemeralsException.class);
        client.delete().forPath("/barrier-ephemeral");
    }

    /** How many watchers the client's ZooKeeper handle holds for data watches on {@code path}. */
    private static int dataWatchers(BatonClient c, String path) throws Exception {
        ZooKeeper handle = c.getZooKeeper();
        Method manager = ZooKeeper.class.getDeclaredMethod("getWatchManager");
        manager.setAccessible(true);
        Object watchManager = manager.invoke(handle);
        Method dataWatches = watchManager.getClass().getDeclaredMethod("getDataWatches");
        dataWatches.setAccessible(true);
        @SuppressWarnings("unchecked")
        Map<String, Set<Watcher>> byPath = (Map<String, Set<Watcher>>) dataWatches.invoke(watchManager);
        synchronized (byPath) {
            Set<Watcher> watchers = byPath.get(path);
            return watchers == null ? 0 : watchers.size();
        }
    }

    @Test
    void badArgumentsFailAtOnce() {
        assertThatThrownBy(() -> new DistributedBarrier(null, "/x")).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new DistributedBarrier(client, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("barrierPath");
        assertThatThrownBy(() -> new DistributedBarrier(client, "x/")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("x/");
        DistributedBarrier barrier = new DistributedBarrier(client, "/barrier/args");
        assertThatThrownBy(() -> barrier.waitOnBarrier(-1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> barrier.waitOnBarrier(1, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("unit");
    }
}
