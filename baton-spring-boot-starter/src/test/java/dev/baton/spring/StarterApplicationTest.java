package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** A whole Boot application with Actuator's health and metrics, on an embedded ZooKeeper. */
@SpringBootTest(properties = {"baton.session-timeout=20s", "baton.connection-timeout=1s",
        "baton.wait-for-connection=10s", "baton.leader.path=/app/leader", "baton.leader.id=app-1",
        "management.endpoint.health.show-details=always"})
@Timeout(120)
class StarterApplicationTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @DynamicPropertySource
    static void zooKeeper(DynamicPropertyRegistry properties) {
        properties.add("baton.connect-string", zk::connectString);
    }

    /** Auto-configuration and one bean, without a component scan (it would pick up other tests' beans). */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(LeaderGatedWork.class)
    static class App {
    }

    @Autowired
    BatonClient client;
    @Autowired
    BatonLeadership leadership;
    @Autowired
    BatonLockRegistry locks;
    @Autowired
    MeterRegistry registry;
    @Autowired
    HealthEndpoint health;
    @Autowired
    LeaderGatedWork.Worker worker;

    private Status batonHealth() {
        return health.healthForPath("baton").getStatus();
    }

    private long operations(String operation, String result) {
        var timer = registry.find("baton.operations").tag("operation", operation).tag("result", result).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void metersShowAScriptedWorkload() throws Exception {
        await().until(() -> client.isConnected() && leadership.isLeader());
        long createsBefore = operations("create", "ok");
        long missesBefore = operations("get_data", "NONODE");

        client.create().orSetData().forPath("/app/data", new byte[] {1});
        assertThatThrownBy(() -> client.getData().forPath("/app/none"))
                .isInstanceOf(KeeperException.NoNodeException.class);
        assertThat(operations("create", "ok")).isEqualTo(createsBefore + 1);
        assertThat(operations("get_data", "NONODE")).isEqualTo(missesBefore + 1);
        Lock lock = locks.obtain("report");
        assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(registry.get("baton.lock.held").tag("path", "/baton/locks/report").longTaskTimer()
                .activeTasks()).isEqualTo(1);
        lock.unlock();

        assertThat(registry.get("baton.lock.acquire").tag("path", "/baton/locks/report").tag("result", "acquired")
                .timer().count()).isEqualTo(1);
        assertThat(registry.get("baton.lock.held").tag("path", "/baton/locks/report").longTaskTimer()
                .activeTasks()).isZero();
        assertThat(registry.get("baton.leader").tag("path", "/app/leader").gauge().value()).isEqualTo(1);
        assertThat(registry.get("baton.connection.state").tag("state", client.getConnectionState().name()).gauge()
                .value()).as("the gauge of the current state").isEqualTo(1);
        assertThat(health.healthForPath("baton")).isInstanceOfSatisfying(IndicatedHealthDescriptor.class,
                h -> assertThat(h.getDetails()).containsEntry("state", client.getConnectionState().name())
                        .containsEntry("connectString", zk.connectString()).containsEntry("leader", true)
                        .containsKey("sessionId"));
    }

    @Test
    void healthGoesDownWhenTheServerStopsAndUpWhenItReturns() {
        try {
            await().until(() -> batonHealth().equals(Status.UP));
            zk.server().stop();
            await().atMost(Duration.ofSeconds(20)).until(() -> batonHealth().equals(Status.DOWN));
            assertThat(health.healthForPath("baton")).isInstanceOfSatisfying(IndicatedHealthDescriptor.class,
                    h -> assertThat(h.getDetails()).containsEntry("state", "SUSPENDED"));
            assertThat(leadership.isLeader()).as("a suspended leader steps down").isFalse();
            await().untilAsserted(() -> assertThat(worker.isRunning()).as("and stops its gated work").isFalse());

            zk.server().restart();
            await().atMost(Duration.ofSeconds(30)).until(() -> batonHealth().equals(Status.UP));
            await().atMost(Duration.ofSeconds(30)).until(() -> leadership.isLeader() && worker.isRunning());
            assertThat(registry.get("baton.connection.transitions").tag("state", "SUSPENDED").counter().count())
                    .isGreaterThanOrEqualTo(1);
            assertThat(registry.get("baton.connection.transitions").tag("state", "RECONNECTED").counter().count())
                    .isGreaterThanOrEqualTo(1);
        } finally {
            zk.ensureRunning();
        }
    }
}
