package dev.baton.recipes.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.ClientLink;
import dev.baton.testing.History;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.client.ZKClientConfig;

/** Clients for recipe fault tests: each behind its own {@link ClientLink}, its connection states in a history. */
public final class FaultClients {
    private static final Pattern REMOTE_PORT = Pattern.compile("remoteserver:[^ ]*:(\\d+)");

    private FaultClients() {
    }

    /**
     * Opens a connected client through {@code link}, recording CONNECTED/DISCONNECTED for its states. Ensemble
     * tracking is off: it would move the client from the link's proxies to the servers' own ports.
     *
     * @param link the client's own proxies
     * @param sessionTimeout the session timeout
     * @param recorder where the connection states go
     * @return the started, connected client
     * @throws InterruptedException if interrupted while connecting
     */
    public static BatonClient open(ClientLink link, Duration sessionTimeout, History.Recorder recorder)
            throws InterruptedException {
        return open(link, sessionTimeout, recorder, null);
    }

    /**
     * As {@link #open(ClientLink, Duration, History.Recorder)}, with ZooKeeper client settings (TLS).
     *
     * @param link the client's own proxies
     * @param sessionTimeout the session timeout
     * @param recorder where the connection states go
     * @param config the ZooKeeper client settings, or null for none
     * @return the started, connected client
     * @throws InterruptedException if interrupted while connecting
     */
    public static BatonClient open(ClientLink link, Duration sessionTimeout, History.Recorder recorder,
            ZKClientConfig config) throws InterruptedException {
        Baton.Builder builder = Baton.builder().connectString(link.connectString()).sessionTimeout(sessionTimeout)
                .retryPolicy(new RetryOneTime(10)).ensembleTracker(false);
        if (config != null) {
            builder.zkClientConfig(config);
        }
        BatonClient client = builder.build();
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state.isConnected()) {
                recorder.connected(state.name());
            } else {
                recorder.disconnected(state.name());
            }
        });
        boolean connected = false;
        try {
            client.start();
            connected = client.blockUntilConnected(30, TimeUnit.SECONDS);
        } finally {
            if (!connected) {
                client.close(); // not left running when the test fails here
            }
        }
        assertThat(connected).as("connected through %s", link).isTrue();
        return client;
    }

    /**
     * @param client a connected client opened through {@code link}
     * @param link its proxies
     * @return the id of the server the client is connected to
     */
    public static int serverId(BatonClient client, ClientLink link) {
        Matcher m = REMOTE_PORT.matcher(client.getZooKeeper().toString());
        assertThat(m.find()).as("connected: %s", client.getZooKeeper()).isTrue();
        int port = Integer.parseInt(m.group(1));
        return link.serverIds().stream().filter(id -> link.proxy(id).port() == port).findFirst().orElseThrow();
    }
}
