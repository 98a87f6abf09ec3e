package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Servers of every release line the kit has a module for, standalone and as a quorum. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Tag("slow")
class ServerVersionsTest {

    @ParameterizedTest
    @ValueSource(strings = {"3.5", "3.6", "3.7", "3.8", "3.9"})
    void aStandaloneServerOfEachLineServesAndSaysItsVersion(String line) throws Exception {
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().servers(1).serverVersion(line).build()
                .start()) {
            assertThat(ensemble.serverVersion()).startsWith(line + ".");
            assertThat(FourLetterWords.send(ensemble.clientPort(1), "srvr", 5_000)).get().asString()
                    .contains("Zookeeper version: " + ensemble.serverVersion());
            try (TestClient client = new TestClient(ensemble.connectString(), Duration.ofSeconds(10))) {
                client.zk().create("/v", line.getBytes(StandardCharsets.UTF_8), Ids.OPEN_ACL_UNSAFE,
                        CreateMode.PERSISTENT);
                assertThat(new String(client.zk().getData("/v", false, null), StandardCharsets.UTF_8))
                        .isEqualTo(line);
            }
        }
    }

    @Test
    void aQuorumOfAnOlderLineElectsALeaderAndReplicates() throws Exception {
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().servers(3).serverVersion("3.8.6").build()
                .start()) {
            int leader = ensemble.awaitLeader(Duration.ofSeconds(60));
            int follower = leader == 1 ? 2 : 1;
            try (TestClient writer = new TestClient("127.0.0.1:" + ensemble.clientPort(leader));
                 TestClient reader = new TestClient("127.0.0.1:" + ensemble.clientPort(follower))) {
                writer.zk().create("/replicated", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                reader.zk().sync("/", (rc, path, ctx) -> { }, null);
                org.awaitility.Awaitility.await().until(() -> reader.zk().exists("/replicated", false) != null);
            }
        }
    }

    @Test
    void aLineWithoutAModuleOrAVersionItDoesNotHoldIsRefusedAtOnce() {
        assertThatThrownBy(() -> ZooKeeperEnsemble.builder().serverVersion("3.4"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dev.baton:baton-zookeeper-server-3.4");
        assertThatThrownBy(() -> ZooKeeperEnsemble.builder().serverVersion("3.8.1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3.8.6");
        assertThatThrownBy(() -> ZooKeeperEnsemble.builder().serverVersion("three"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'three'");
        assertThatThrownBy(() -> ZooKeeperEnsemble.builder().classpath("x").serverVersion("3.8"))
                .isInstanceOf(IllegalStateException.class);
    }
}
