package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Runs fixture test classes through the JUnit engine and checks that the ensemble extension leaves nothing
 * behind (no kit process in the process table, no kit temporary directory), resets a class-wide ensemble
 * between tests, and fails a test whose after-each check fails.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@Tag("slow")
class ZooKeeperEnsembleExtensionTest {

    static final List<ZooKeeperEnsemble> SEEN = new CopyOnWriteArrayList<>();
    static final List<Long> DRIVER_PIDS = new CopyOnWriteArrayList<>();

    private static volatile boolean launching;

    static boolean launching() {
        return launching;
    }

    @AfterEach
    void clear() {
        SEEN.clear();
        DRIVER_PIDS.clear();
    }

    @Test
    void classWideEnsembleIsResetBetweenTestsAndEverythingIsGoneAfterTheClassDespiteAFailure() {
        EngineExecutionResults results = run(StaticFixture.class);

        results.testEvents().assertStatistics(stats -> stats.started(2).succeeded(1).failed(1));
        assertThat(SEEN).hasSize(2);
        assertThat(SEEN.get(1)).isSameAs(SEEN.get(0));
        assertNothingLeft();
        Path kept = Path.of("target", "baton-kit-logs", StaticFixture.class.getName(), "breaksThingsAndFails");
        assertThat(kept.resolve("server-1.log")).exists();
        assertThat(kept).isDirectoryContaining(p -> p.getFileName().toString().startsWith("driver-"));
    }

    @Test
    void perTestEnsemblesAreClosedAndAFailingCheckFailsTheTest() {
        EngineExecutionResults results = run(PerTestFixture.class);

        results.testEvents().assertStatistics(stats -> stats.started(1).failed(1));
        results.testEvents().assertThatEvents().haveExactly(1,
                event(test("violatesTheCheck"), finishedWithFailure(message(m -> m.contains("history violation")))));
        assertThat(SEEN).hasSize(1);
        assertNothingLeft();
    }

    @Test
    void ensembleRejectsMisuse() {
        assertThatThrownBy(() -> ZooKeeperEnsemble.builder().peerProxies(true).reconfigEnabled(true).build())
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ZooKeeperEnsemble.builder().servers(3).servers(5))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ZooKeeperEnsemble.builder().servers(0))
                .isInstanceOf(IllegalArgumentException.class);
        ZooKeeperEnsemble unstarted = ZooKeeperEnsemble.builder().build();
        assertThatThrownBy(unstarted::connectString).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> unstarted.kill(1)).isInstanceOf(IllegalStateException.class);
        unstarted.close();
        unstarted.close();
        assertThat(unstarted.directory()).doesNotExist();
        assertThatThrownBy(unstarted::start).isInstanceOf(IllegalStateException.class);
    }

    private static void assertNothingLeft() {
        for (ZooKeeperEnsemble e : SEEN) {
            assertThat(e.isClosed()).isTrue();
            assertThat(e.directory()).doesNotExist();
        }
        assertThat(KitResources.liveProcesses()).isEmpty();
        assertThat(KitResources.liveTemporaryDirectories()).isEmpty();
        assertThat(DRIVER_PIDS).allSatisfy(pid -> assertThat(ProcessHandle.of(pid)).isEmpty());
    }

    private static EngineExecutionResults run(Class<?> fixture) {
        launching = true;
        try {
            return EngineTestKit.engine("junit-jupiter").selectors(selectClass(fixture)).execute();
        } finally {
            launching = false;
        }
    }

    @EnabledIf("dev.baton.testing.ZooKeeperEnsembleExtensionTest#launching")
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class StaticFixture {

        @RegisterExtension
        static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

        @Test
        @Order(1)
        void breaksThingsAndFails() {
            ZooKeeperEnsemble e = zk.ensemble();
            SEEN.add(e);
            DriverProcess driver = zk.startDriver(DriverProcess.builder(ZooKeeperClientDriver.class));
            DRIVER_PIDS.add(driver.pid());
            zk.newClientLink().partition(TcpProxy.Mode.BLACKHOLE);
            e.isolate(1);
            e.partitionClient(2, TcpProxy.Mode.DROP);
            e.pause(2);
            e.kill(3);
            throw new AssertionError("deliberate failure");
        }

        @Test
        @Order(2)
        void findsAHealthyQuorum() {
            ZooKeeperEnsemble e = zk.ensemble();
            SEEN.add(e);
            for (int id : e.serverIds()) {
                assertThat(e.isServing(id)).as("server %d serves", id).isTrue();
                assertThat(e.clientProxy(id).partitionMode()).isEmpty();
            }
            assertThat(DRIVER_PIDS).allSatisfy(pid -> assertThat(ProcessHandle.of(pid)).isEmpty());
            try (WatchedClient client = new WatchedClient(e.connectString(), Duration.ofSeconds(20))) {
                assertThat(client.zk().getState().isConnected()).isTrue();
            }
        }
    }

    @EnabledIf("dev.baton.testing.ZooKeeperEnsembleExtensionTest#launching")
    static class PerTestFixture {

        @RegisterExtension
        ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(1).clientProxies(true).build()
                .afterEachCheck(() -> {
                    throw new AssertionError("history violation: two holders at t=42");
                });

        @Test
        void violatesTheCheck() throws Exception {
            SEEN.add(zk.ensemble());
            DRIVER_PIDS.add(zk.startDriver(DriverProcess.builder(ZooKeeperClientDriver.class)).pid());
            assertThat(Files.exists(zk.ensemble().directory())).isTrue();
        }
    }
}
