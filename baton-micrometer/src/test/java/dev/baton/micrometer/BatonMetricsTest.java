package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.locks.InterProcessLock;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.recipes.locks.InterProcessSemaphoreMutex;
import dev.baton.retry.RetryNTimes;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
class BatonMetricsTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static BatonClient client() {
        return Baton.builder().connectString(zk.connectString()).retryPolicy(new RetryNTimes(1, 10))
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofMillis(500)).build();
    }

    private static BatonClient started() throws InterruptedException {
        BatonClient client = client();
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    private static long operations(MeterRegistry registry, String operation, String result) {
        var timer = registry.find("baton.operations").tag("operation", operation).tag("result", result).timer();
        return timer == null ? 0 : timer.count();
    }

    private static double state(MeterRegistry registry, String state) {
        return registry.get("baton.connection.state").tag("state", state).gauge().value();
    }

    @Test
    void clientMetersAfterAScriptedWorkload() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (BatonClient client = client();
                BatonMetrics metrics = BatonMetrics.monitor(client, registry, Tags.of("app", "test"))) {
            assertThat(state(registry, "CONNECTED")).isZero();
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();

            client.create().creatingParentsIfNeeded().forPath("/script/a", new byte[] {1});
            client.getData().forPath("/script/a");
            client.getData().forPathAsync("/script/a").get(10, TimeUnit.SECONDS);
            assertThatThrownBy(() -> client.getData().forPath("/script/missing"))
                    .isInstanceOf(KeeperException.NoNodeException.class);
            client.checkExists().forPath("/script/missing");

            assertThat(operations(registry, "create", "ok")).isEqualTo(1);
            assertThat(operations(registry, "get_data", "ok")).isEqualTo(2);
            assertThat(operations(registry, "get_data", "NONODE")).isEqualTo(1);
            assertThat(operations(registry, "exists", "ok")).isEqualTo(1);
            assertThat(registry.get("baton.operations").tag("operation", "create").timer().totalTime(
                    TimeUnit.NANOSECONDS)).isPositive();
            assertThat(registry.get("baton.operations").tag("app", "test").timers()).hasSize(4);
            await().until(() -> state(registry, "CONNECTED") == 1);
            assertThat(registry.get("baton.connection.transitions").tag("state", "CONNECTED").counter().count())
                    .isEqualTo(1);

            // A session expired on the server: LOST, then a new session.
            zk.server().expireSession(client.getZooKeeper());
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> registry.get("baton.session.expirations").counter().count() == 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> state(registry, "RECONNECTED") == 1);
            assertThat(state(registry, "CONNECTED")).isZero();
            assertThat(registry.get("baton.connection.transitions").tag("state", "LOST").counter().count())
                    .isEqualTo(1);
        }
        assertThat(registry.getMeters()).as("close() removes the meters").isEmpty();
    }

    @Test
    void retriesAreCounted() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (BatonClient client = started(); BatonMetrics metrics = BatonMetrics.monitor(client, registry)) {
            zk.server().stop();
            await().atMost(Duration.ofSeconds(20)).until(() -> !client.isConnected());
            assertThatThrownBy(() -> client.getData().forPath("/x"))
                    .isInstanceOf(KeeperException.ConnectionLossException.class);

            assertThat(registry.get("baton.retries").tag("operation", "get_data").counter().count()).isEqualTo(1);
            assertThat(operations(registry, "get_data", "CONNECTIONLOSS")).isEqualTo(1);
            assertThat(state(registry, "SUSPENDED")).isEqualTo(1);
        } finally {
            zk.ensureRunning();
        }
    }

    @Test
    void lockMetersTimeAcquisitionsAndCountHolds() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (BatonClient a = started(); BatonClient b = started();
                BatonMetrics metrics = BatonMetrics.monitor(a, registry)) {
            InterProcessLock lock = metrics.lock(new InterProcessMutex(a, "/metered/lock"));
            InterProcessLock other = metrics.lock(new InterProcessMutex(b, "/metered/lock"));
            InterProcessLock anyThread = metrics.lock(new InterProcessSemaphoreMutex(b, "/metered/lock2"),
                    "/metered/lock");
            var held = registry.get("baton.lock.held").tag("path", "/metered/lock").longTaskTimer();

            lock.acquire();
            assertThat(held.activeTasks()).isEqualTo(1);
            assertThat(other.acquire(50, TimeUnit.MILLISECONDS)).isFalse();
            lock.release();
            assertThat(held.activeTasks()).isZero();
            assertThat(held.max(TimeUnit.NANOSECONDS)).isZero();

            // Acquired on one thread, released on another: the semaphore mutex allows it.
            assertThat(anyThread.acquire(5, TimeUnit.SECONDS)).isTrue();
            assertThat(held.activeTasks()).isEqualTo(1);
            CompletableFuture.runAsync(anyThread::release).get(10, TimeUnit.SECONDS);
            assertThat(held.activeTasks()).isZero();

            assertThat(registry.get("baton.lock.acquire").tag("result", "acquired").timer().count()).isEqualTo(2);
            assertThat(registry.get("baton.lock.acquire").tag("result", "timeout").timer().count()).isEqualTo(1);
            assertThat(registry.get("baton.lock.acquire").tag("result", "failed").timer().count()).isZero();
        }
    }

    @Test
    void leaderGaugeFollowsTheLatch() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (BatonClient client = started(); BatonMetrics metrics = BatonMetrics.monitor(client, registry)) {
            LeaderLatch latch = new LeaderLatch(client, "/metered/leader", "me");
            AutoCloseable registration = metrics.leader(latch);
            var gauge = registry.get("baton.leader").tag("path", "/metered/leader").gauge();
            assertThat(gauge.value()).isZero();

            latch.start();
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(gauge.value()).isEqualTo(1);
            latch.close();
            assertThat(gauge.value()).isZero();

            registration.close();
            assertThat(registry.find("baton.leader").gauge()).isNull();
        }
    }

    @Test
    void closedMetricsRecordNothingAndRefuseNewRecipes() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (BatonClient client = started()) {
            BatonMetrics metrics = BatonMetrics.monitor(client, registry);
            metrics.close();
            metrics.close();
            client.checkExists().forPath("/x");
            assertThat(registry.getMeters()).isEmpty();
            assertThatThrownBy(() -> metrics.leader("/p", () -> true)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> BatonMetrics.monitor(null, registry)).isInstanceOf(NullPointerException.class)
                    .hasMessage("client");
        }
    }
}
