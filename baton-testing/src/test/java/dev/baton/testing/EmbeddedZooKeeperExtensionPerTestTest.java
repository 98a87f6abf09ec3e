package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The extension on an instance field: a fresh server per test, closed after it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@TestMethodOrder(OrderAnnotation.class)
class EmbeddedZooKeeperExtensionPerTestTest {

    @RegisterExtension
    EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static EmbeddedZooKeeper previous;
    private static Path previousDir;

    @Test
    @Order(1)
    void firstTestGetsARunningServer() throws Exception {
        assertThat(zk.server().isRunning()).isTrue();
        try (TestClient client = new TestClient(zk.connectString())) {
            client.zk().create("/only-in-test-1", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }
        previous = zk.server();
        previousDir = previous.dataDirectory();
    }

    @Test
    @Order(2)
    void secondTestGetsAFreshServerAndTheFirstIsGone() throws Exception {
        assertThat(zk.server()).isNotSameAs(previous);
        assertThat(previous.isRunning()).isFalse();
        assertThat(previousDir).doesNotExist();
        try (TestClient client = new TestClient(zk.connectString())) {
            assertThat(client.zk().exists("/only-in-test-1", false)).isNull();
        }
    }
}
