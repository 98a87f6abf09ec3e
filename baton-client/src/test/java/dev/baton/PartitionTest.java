package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.retry.RetryOneTime;
import dev.baton.state.ConnectionState;
import dev.baton.testing.ClientLink;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A client cut off from a real 3-server ensemble (separate JVMs) by its own proxies. */
@Timeout(120)
@Tag("slow")
class PartitionTest {
    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

    @Test
    void clientPartitionedLongerThanItsSessionGetsSuspendedThenLostThenANewSession() throws Exception {
        ClientLink link = zk.register(zk.newClientLink());
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        try (BatonClient client = Baton.builder().connectString(link.connectString())
                .sessionTimeout(Duration.ofSeconds(3)).retryPolicy(new RetryOneTime(10))
                .ensembleTracker(false).build();
                BatonClient observer = Baton.newClient(zk.connectString(), new RetryOneTime(10))) {
            client.getConnectionStateListenable().addListener((c, s) -> states.add(s));
            client.start();
            observer.start();
            assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
            client.create().withMode(CreateMode.EPHEMERAL).forPath("/partitioned");
            long session = client.getZooKeeper().getSessionId();

            // Black hole: no error, no reset; the client notices only by its own timeouts.
            link.partition(TcpProxy.Mode.BLACKHOLE);
            await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.LOST));
            assertThat(states).containsExactly(ConnectionState.CONNECTED, ConnectionState.SUSPENDED,
                    ConnectionState.LOST);
            // The servers expired the session too: its ephemeral node is gone for everyone else.
            assertThat(observer.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> observer.checkExists().forPath("/partitioned") == null);

            link.heal();
            await().atMost(Duration.ofSeconds(30)).until(() -> states.contains(ConnectionState.RECONNECTED));
            assertThat(states).containsExactly(ConnectionState.CONNECTED, ConnectionState.SUSPENDED,
                    ConnectionState.LOST, ConnectionState.RECONNECTED);
            assertThat(client.getZooKeeper().getSessionId()).isNotEqualTo(session);
            assertThat(client.getChildren().forPath("/")).isNotNull();
        }
    }
}
