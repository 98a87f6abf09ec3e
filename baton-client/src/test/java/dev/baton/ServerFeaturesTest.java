package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.state.ConnectionState;
import dev.baton.testing.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Calls that need a newer server than the one connected fail at once with a message that names the feature, what
 * it needs and the server's version, and leave nothing behind: no watch, no node, no dropped connection.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerFeaturesTest {

    @Test
    void aPersistentWatchOnZooKeeper35FailsAtOnceNamingTheVersionsAndSendsNothing() throws Exception {
        try (ZooKeeperEnsemble server = ZooKeeperEnsemble.builder().servers(1).serverVersion("3.5").build().start();
             BatonClient client = TestClients.started(server.connectString())) {
            assertThat(client.serverVersion()).contains("3.5.10");
            List<ConnectionState> states = new CopyOnWriteArrayList<>();
            client.getConnectionStateListenable().addListener((c, s) -> states.add(s));
            TestClients.RecordingWatcher watcher = new TestClients.RecordingWatcher();
            String expected = "persistent and recursive watches (addWatch) need ZooKeeper 3.6.0 or newer; the server"
                    + " at 127.0.0.1:" + server.clientPort(1) + " runs ZooKeeper 3.5.10";

            assertThatThrownBy(() -> client.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE)
                    .usingWatcher(watcher).forPath("/w"))
                    .isInstanceOf(UnsupportedServerFeatureException.class)
                    .isInstanceOf(KeeperException.UnimplementedException.class)
                    .hasMessage(expected);
            assertThatThrownBy(() -> client.watchers().add().usingWatcher(watcher).forPathAsync("/w").join())
                    .isInstanceOf(CompletionException.class).cause().hasMessage(expected)
                    .satisfies(e -> {
                        UnsupportedServerFeatureException u = (UnsupportedServerFeatureException) e;
                        assertThat(u.feature()).isEqualTo(ServerFeature.PERSISTENT_WATCHES);
                        assertThat(u.serverVersion()).contains("3.5.10");
                    });

            // Nothing was sent: the 3.5 server would have closed the connection after its Unimplemented answer.
            client.create().forPath("/w");
            client.setData().forPath("/w", new byte[] {1});
            assertThat(client.getData().forPath("/w")).containsExactly(1);
            assertThat(states).isEmpty();
            assertThat(watcher.changes()).isEmpty();
        }
    }

    @Test
    void aTtlNodeOnAServerWithoutExtendedTypesIsRefusedNamingTheSetting() throws Exception {
        try (ZooKeeperEnsemble server = ZooKeeperEnsemble.builder().servers(1).serverVersion("3.9")
                .jvmArgs("-Dzookeeper.extendedTypesEnabled=false").build().start();
             BatonClient client = TestClients.started(server.connectString())) {
            assertThatThrownBy(() -> client.create().withMode(CreateMode.PERSISTENT_WITH_TTL).withTtl(5_000)
                    .forPath("/ttl"))
                    .isInstanceOf(UnsupportedServerFeatureException.class)
                    .hasMessage("TTL nodes need ZooKeeper 3.5.3 or newer, started with "
                            + "zookeeper.extendedTypesEnabled=true; the server at 127.0.0.1:" + server.clientPort(1)
                            + " (ZooKeeper " + server.serverVersion() + ") does not have them enabled");
            assertThat(client.checkExists().forPath("/ttl")).isNull();
        }
    }
}
