package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.retry.RetryOneTime;
import dev.baton.state.ConnectionState;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Ensemble tracking on a real 3-server ensemble (separate JVMs, dynamic config on, no proxies). */
@Timeout(120)
@Tag("slow")
class EnsembleTrackingTest {
    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(false)
            .ensemble(e -> e.reconfigEnabled(true)).build();

    @Test
    void clientGivenOneServerLearnsTheEnsembleAndSurvivesThatServersDeath() throws Exception {
        int first = zk.ensemble().serverIds().iterator().next();
        EnsembleProvider provider = new FixedEnsembleProvider(zk.ensemble().connectString(first));
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        try (BatonClient client = Baton.builder().ensembleProvider(provider).sessionTimeout(Duration.ofSeconds(10))
                .retryPolicy(new RetryOneTime(10)).build()) {
            client.getConnectionStateListenable().addListener((c, s) -> states.add(s));
            client.start();
            assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
            // The tracker reads /zookeeper/config and hands the whole server list to the provider.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> provider.getConnectionString().split(",").length == 3);
            for (int id : zk.ensemble().serverIds()) {
                assertThat(provider.getConnectionString()).contains(":" + zk.ensemble().clientPort(id));
            }

            zk.ensemble().kill(first);
            // Without tracking the handle would only know the dead server; with it, it moves to another.
            await().atMost(Duration.ofSeconds(30)).until(() -> states.contains(ConnectionState.RECONNECTED));
            assertThat(states).doesNotContain(ConnectionState.LOST);
            assertThat(client.getChildren().forPath("/")).isNotNull();
        }
    }
}
