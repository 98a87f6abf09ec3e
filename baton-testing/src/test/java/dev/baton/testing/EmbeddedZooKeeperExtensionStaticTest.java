package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The extension on a static field: one server for the class, restarted after a test that stopped it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@TestMethodOrder(OrderAnnotation.class)
class EmbeddedZooKeeperExtensionStaticTest {

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static EmbeddedZooKeeper first;
    private static int firstPort;
    private static Path firstDir;

    @Test
    @Order(1)
    void serverIsRunningAndAccessorsAgree() throws Exception {
        first = zk.server();
        firstPort = zk.port();
        firstDir = first.dataDirectory();
        assertThat(first.isRunning()).isTrue();
        assertThat(zk.connectString()).isEqualTo("127.0.0.1:" + firstPort).isEqualTo(first.connectString());

        try (TestClient client = new TestClient(zk.connectString())) {
            client.zk().create("/from-test-1", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }
    }

    @Test
    @Order(2)
    void aTestMayStopTheServer() {
        assertThat(zk.server()).isSameAs(first);
        zk.server().stop();
        assertThat(zk.server().isRunning()).isFalse();
    }

    @Test
    @Order(3)
    void theNextTestFindsTheSameServerRunningWithItsData() throws Exception {
        assertThat(zk.server()).isSameAs(first);
        assertThat(zk.server().isRunning()).isTrue();
        assertThat(zk.port()).isEqualTo(firstPort);
        assertThat(zk.server().dataDirectory()).isEqualTo(firstDir).isDirectory();
        try (TestClient client = new TestClient(zk.connectString())) {
            assertThat(client.zk().exists("/from-test-1", false)).isNotNull();
        }
    }

    @Test
    @Order(4)
    void aTestMayEvenCloseTheServer() {
        zk.server().close();
    }

    @Test
    @Order(5)
    void thenAFreshServerTakesItsPlace() {
        assertThat(zk.server()).isNotSameAs(first);
        assertThat(zk.server().isRunning()).isTrue();
        assertThat(firstDir).doesNotExist();
    }

    @Nested
    class NestedTests {

        @Test
        void canUseTheEnclosingClassesServer() {
            // That it is shared, not restarted or closed, is checked in EmbeddedZooKeeperExtensionLifecycleTest.
            assertThat(zk.server().isRunning()).isTrue();
        }
    }
}
