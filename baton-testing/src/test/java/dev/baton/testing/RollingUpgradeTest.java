package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rolling upgrade of a 3-server quorum from ZooKeeper 3.8 to 3.9, one server at a time and the leader last, as
 * an operator does it: each server comes back on the new release with the snapshots and transaction logs the old
 * one wrote, joins the quorum, and the quorum serves throughout.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
@Tag("slow")
class RollingUpgradeTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void eachServerRestartedOn39JoinsThe38QuorumWithItsDataAndTheQuorumServesThroughout() throws Exception {
        // A snapshot every few transactions, so the upgraded servers read 3.8 snapshots as well as logs.
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().servers(3).serverVersion("3.8")
                .serverConfig("snapCount", "20").build().start();
             WatchedClient client = new WatchedClient(ensemble.connectString(), Duration.ofSeconds(20))) {
            assertThat(ensemble.serverVersion()).startsWith("3.8.");
            List<String> written = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                written.add(client.zk().create("/before-" + i, ("v" + i).getBytes(StandardCharsets.UTF_8),
                        Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            }
            int leader = ensemble.awaitLeader(WAIT);
            List<Integer> order = new ArrayList<>(ensemble.serverIds());
            order.remove(Integer.valueOf(leader));
            order.add(leader);

            for (int id : order) {
                ensemble.restart(id, "3.9");

                assertThat(ensemble.serverVersion(id)).startsWith("3.9.");
                assertThat(ensemble.reportedVersion(id)).hasValue(ensemble.serverVersion(id));
                assertThat(ensemble.fourLetterWord(id, "srvr")).get().asString()
                        .contains("Zookeeper version: " + ensemble.serverVersion(id));
                ensemble.awaitAllServing(WAIT);
                // The quorum serves: a write through any server, read back from the upgraded one alone.
                written.add(createRetryingConnectionLoss(client, "/after-" + id));
                try (TestClient direct = new TestClient(ensemble.connectString(id))) {
                    direct.zk().sync("/", (rc, path, ctx) -> { }, null);
                    await().atMost(WAIT).until(() -> direct.zk().exists("/after-" + id, false) != null);
                    for (String path : written) {
                        assertThat(direct.zk().exists(path, false)).as("%s on server %d", path, id).isNotNull();
                    }
                    assertThat(new String(direct.zk().getData("/before-59", false, null), StandardCharsets.UTF_8))
                            .isEqualTo("v59");
                }
                if (id != leader) {
                    assertThatThrownBy(ensemble::serverVersion).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("different releases");
                }
            }

            assertThat(ensemble.serverVersion()).startsWith("3.9.");
            for (int id : ensemble.serverIds()) {
                assertThat(ensemble.reportedVersion(id)).hasValue(ensemble.serverVersion());
            }
            // Never a lost session: only disconnections while its server restarted.
            assertThat(client.states()).doesNotContain(KeeperState.Expired);
            assertThat(client.zk().getChildren("/", false)).hasSize(written.size() + 1); // and /zookeeper
        }
    }

    /**
     * Creates {@code path}; the plain client does not retry, and a connection loss (the client's server is the one
     * restarted) is not a quorum that stopped serving. A retried create that finds the node made it the first time.
     */
    private static String createRetryingConnectionLoss(WatchedClient client, String path) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                return client.zk().create(path, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.ConnectionLossException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                await().atMost(WAIT).pollDelay(Duration.ofMillis(50)).until(() -> client.zk().getState()
                        .isConnected());
            } catch (KeeperException.NodeExistsException e) {
                return path;
            }
        }
    }

    @Test
    void aLineNotOnTheClassPathOrAServerNotInTheEnsembleIsRefusedNamingWhatIsKnown() {
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().servers(3).serverVersion("3.8").build()) {
            assertThatThrownBy(() -> ensemble.restart(1, "4.2")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("baton-zookeeper-server-4.2")
                    .hasMessageContaining("on this class path: 3.5, 3.6, 3.7, 3.8, 3.9");
            assertThatThrownBy(() -> ensemble.restart(1, "3.9.1")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("3.9.5");
            assertThatThrownBy(() -> ensemble.restart(7, "3.9")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no server 7");
            assertThatThrownBy(() -> ensemble.restart(1, "3.9")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("new");
            assertThat(ensemble.serverVersions()).hasSize(3).allSatisfy((id, v) -> assertThat(v).isEqualTo("3.8.6"));
        }
    }
}
