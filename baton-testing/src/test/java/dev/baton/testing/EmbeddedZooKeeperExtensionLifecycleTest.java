package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Runs fixture test classes through the JUnit engine and checks what the extension leaves behind: servers are
 * closed and their directories deleted even when tests or {@code @BeforeAll} methods fail.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EmbeddedZooKeeperExtensionLifecycleTest {

    /** Servers the fixtures saw, in order. */
    static final List<EmbeddedZooKeeper> SEEN = new CopyOnWriteArrayList<>();

    /** The fixtures run only when this test launches them, not when the build discovers them. */
    private static volatile boolean launching;

    static boolean launching() {
        return launching;
    }

    @AfterEach
    void clear() {
        SEEN.clear();
    }

    @Test
    void staticModeSharesOneServerWithNestedClassesAndClosesItDespiteAFailure() {
        EngineExecutionResults results = run(StaticFixture.class);

        results.testEvents().assertStatistics(stats -> stats.started(3).succeeded(2).failed(1));
        assertThat(SEEN).hasSize(3);
        assertThat(SEEN).allSatisfy(s -> assertThat(s).isSameAs(SEEN.get(0)));
        assertClosed(SEEN.get(0));
    }

    @Test
    void staticModeClosesTheServerWhenBeforeAllFails() {
        EngineExecutionResults results = run(FailingBeforeAllFixture.class);

        results.containerEvents().assertStatistics(stats -> stats.failed(1));
        assertThat(SEEN).hasSize(1);
        assertClosed(SEEN.get(0));
    }

    @Test
    void perTestModeClosesEachServerDespiteAFailure() {
        EngineExecutionResults results = run(PerTestFixture.class);

        results.testEvents().assertStatistics(stats -> stats.started(2).succeeded(1).failed(1));
        assertThat(SEEN).hasSize(2).doesNotHaveDuplicates();
        SEEN.forEach(EmbeddedZooKeeperExtensionLifecycleTest::assertClosed);
    }

    private static EngineExecutionResults run(Class<?> fixture) {
        launching = true;
        try {
            return EngineTestKit.engine("junit-jupiter").selectors(selectClass(fixture)).execute();
        } finally {
            launching = false;
        }
    }

    private static void assertClosed(EmbeddedZooKeeper server) {
        assertThat(server.isRunning()).isFalse();
        assertThat(server.dataDirectory()).doesNotExist();
    }

    @EnabledIf("dev.baton.testing.EmbeddedZooKeeperExtensionLifecycleTest#launching")
    static class StaticFixture {

        @RegisterExtension
        static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

        @Test
        void passes() {
            SEEN.add(zk.server());
        }

        @Test
        void fails() {
            SEEN.add(zk.server());
            throw new AssertionError("deliberate failure");
        }

        @Nested
        class Inner {

            @Test
            void passes() {
                SEEN.add(zk.server());
            }
        }
    }

    @EnabledIf("dev.baton.testing.EmbeddedZooKeeperExtensionLifecycleTest#launching")
    static class FailingBeforeAllFixture {

        @RegisterExtension
        static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

        @BeforeAll
        static void setUp() {
            SEEN.add(zk.server());
            throw new IllegalStateException("deliberate failure");
        }

        @Test
        void neverRuns() {
            throw new AssertionError("not reached");
        }
    }

    @EnabledIf("dev.baton.testing.EmbeddedZooKeeperExtensionLifecycleTest#launching")
    static class PerTestFixture {

        @RegisterExtension
        EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

        @Test
        void passes() {
            SEEN.add(zk.server());
        }

        @Test
        void fails() {
            SEEN.add(zk.server());
            throw new AssertionError("deliberate failure");
        }
    }
}
