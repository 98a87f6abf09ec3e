package dev.baton.recipes.barriers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryNTimes;
import dev.baton.retry.RetryPolicy;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Started, connected clients for one test, closed together. */
final class Clients implements AutoCloseable {
    private final EmbeddedZooKeeperExtension zk;
    private final List<BatonClient> open = new ArrayList<>();

    Clients(EmbeddedZooKeeperExtension zk) {
        this.zk = zk;
    }

    BatonClient newClient() throws InterruptedException {
        return newClient(Duration.ofSeconds(5), new RetryNTimes(3, 100));
    }

    /**
     * A client without ensemble tracking: the tracker's own watch on {@code /zookeeper/config}, set just after
     * connecting, would otherwise race the tests that count the server's watches.
     */
    BatonClient newClient(Duration connectionTimeout, RetryPolicy retryPolicy) throws InterruptedException {
        BatonClient client = Baton.builder().connectString(zk.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(connectionTimeout)
                .retryPolicy(retryPolicy).ensembleTracker(false).build();
        open.add(client);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    @Override
    public void close() {
        open.forEach(BatonClient::close);
    }
}
