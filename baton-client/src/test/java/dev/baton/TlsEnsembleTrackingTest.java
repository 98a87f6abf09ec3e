package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.retry.RetryOneTime;
import dev.baton.state.ConnectionState;
import dev.baton.testing.ServerSecurity;
import dev.baton.testing.TlsCertificates;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Ensemble tracking on a TLS ensemble (separate JVMs, dynamic config on): {@code /zookeeper/config} lists only
 * the plaintext client ports, so a TLS client must stay on the ports it was given instead of following it.
 */
@Timeout(120)
class TlsEnsembleTrackingTest {
    private static final TlsCertificates CERTS = TlsCertificates.create();
    private static final Pattern REMOTE_PORT = Pattern.compile("remoteserver:[^ ]*:(\\d+)");

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(false)
            .ensemble(e -> e.reconfigEnabled(true).security(ServerSecurity.builder().tls(CERTS).build())).build();

    @AfterAll
    static void deleteCertificates() {
        CERTS.close();
    }

    @Test
    void aTlsClientIsNotMovedToThePlaintextPortsTheConfigLists() throws Exception {
        EnsembleProvider provider = new FixedEnsembleProvider(zk.ensemble().connectString());
        String given = provider.getConnectionString();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        try (BatonClient client = Baton.builder().ensembleProvider(provider).sessionTimeout(Duration.ofSeconds(10))
                .retryPolicy(new RetryOneTime(10)).zkClientConfig(CERTS.clientConfig("tracker")).build()) {
            client.getConnectionStateListenable().addListener((c, s) -> states.add(s));
            client.start();
            assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
            client.create().forPath("/tracked");

            // Followed, the config would have moved the session to a port that speaks no TLS right after it
            // connected: it would never connect again. Kept, the session survives its server's death.
            zk.ensemble().kill(servingId(client));
            await().atMost(Duration.ofSeconds(30)).until(() -> states.contains(ConnectionState.RECONNECTED));
            assertThat(states).doesNotContain(ConnectionState.LOST);
            assertThat(client.checkExists().forPath("/tracked")).isNotNull();
            assertThat(provider.getConnectionString()).isEqualTo(given);
        }
    }

    /** The id of the server the client's session is on, by the remote port its handle reports. */
    private static int servingId(BatonClient client) {
        Matcher m = REMOTE_PORT.matcher(client.getZooKeeper().toString());
        assertThat(m.find()).as("connected: %s", client.getZooKeeper()).isTrue();
        int port = Integer.parseInt(m.group(1));
        return zk.ensemble().serverIds().stream().filter(id -> zk.ensemble().clientPort(id) == port).findFirst()
                .orElseThrow(() -> new AssertionError("no server serves port " + port));
    }
}
