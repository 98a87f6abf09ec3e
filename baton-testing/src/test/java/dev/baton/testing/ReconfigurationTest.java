package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Removing a server by dynamic reconfiguration and adding it back, on three separate-process servers. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@Tag("slow")
class ReconfigurationTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(false)
            .ensemble(e -> e.reconfigEnabled(true)).build();

    @Test
    void aRemovedServerLeavesTheConfigurationAndComesBackWithTheData() throws Exception {
        ZooKeeperEnsemble ensemble = zk.ensemble();
        int leader = ensemble.awaitLeader(WAIT);
        int removed = ensemble.serverIds().stream().filter(id -> id != leader).findFirst().orElseThrow();
        Set<Integer> others = ensemble.serverIds().stream().filter(id -> id != removed)
                .collect(java.util.stream.Collectors.toSet());
        try (TestClient client = new TestClient(ensemble.connectString())) {
            assertThat(ensemble.removeMember(removed)).containsExactlyInAnyOrderElementsOf(others);
            assertThat(ensemble.removedMembers()).containsExactly(removed);
            assertThat(config(client)).doesNotContain("server." + removed + "=");
            // The two left are a quorum of their own: writes go on.
            client.zk().create("/while-removed", "x".getBytes(StandardCharsets.UTF_8), Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);
            assertThatThrownBy(() -> ensemble.removeMember(removed)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not a member");

            assertThat(ensemble.addMember(removed)).containsExactlyInAnyOrderElementsOf(ensemble.serverIds());
            assertThat(ensemble.removedMembers()).isEmpty();
            assertThat(config(client)).contains("server." + removed + "=");
            assertThat(ensemble.isServing(removed)).isTrue();
        }
        // The server that came back serves what was written while it was out.
        try (TestClient direct = new TestClient(ensemble.connectString(removed))) {
            await().atMost(WAIT).until(() -> direct.zk().exists("/while-removed", false) != null);
        }
    }

    @Test
    void theLeaderCanBeRemovedAndAddedBack() throws Exception {
        // Removing the leader ends the leadership that commits the change: its answer may be lost with the
        // connection, and the kit must still see the change through.
        ZooKeeperEnsemble ensemble = zk.ensemble();
        int leader = ensemble.awaitLeader(WAIT);
        assertThat(ensemble.removeMember(leader)).doesNotContain(leader).hasSize(2);
        int next = ensemble.awaitNewLeader(leader, WAIT);
        assertThat(next).isNotEqualTo(leader);
        assertThat(ensemble.addMember(leader)).containsExactlyInAnyOrderElementsOf(ensemble.serverIds());
        assertThat(ensemble.removedMembers()).isEmpty();
        try (TestClient client = new TestClient(ensemble.connectString())) {
            assertThat(config(client)).contains("server." + leader + "=");
        }
    }

    private static String config(TestClient client) throws Exception {
        client.zk().sync("/zookeeper/config", (rc, path, ctx) -> { }, null);
        return new String(client.zk().getConfig(false, null), StandardCharsets.UTF_8);
    }
}
