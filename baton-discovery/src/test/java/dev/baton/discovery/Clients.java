package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryNTimes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;

/** Started, connected Baton and Curator clients for one test, closed together; and server-side counts. */
final class Clients implements AutoCloseable {

    private final String connectString;
    private final List<AutoCloseable> open = new ArrayList<>();

    Clients(String connectString) {
        this.connectString = connectString;
    }

    BatonClient baton() throws InterruptedException {
        return baton(Duration.ofSeconds(10));
    }

    BatonClient baton(Duration sessionTimeout) throws InterruptedException {
        BatonClient client = unstarted(connectString, sessionTimeout);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    /** A client not started yet; closed with the others. */
    BatonClient unstarted(String connect, Duration sessionTimeout) {
        BatonClient client = Baton.builder().connectString(connect).sessionTimeout(sessionTimeout)
                .connectionTimeout(Duration.ofSeconds(3)).retryPolicy(new RetryNTimes(3, 100))
                .ensembleTracker(false).build();
        open.add(client);
        return client;
    }

    CuratorFramework curator() throws InterruptedException {
        return curator(connectString, Duration.ofSeconds(10));
    }

    CuratorFramework curator(String connect, Duration sessionTimeout) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(connect)
                .sessionTimeoutMs((int) sessionTimeout.toMillis()).connectionTimeoutMs(3000)
                .retryPolicy(new org.apache.curator.retry.RetryNTimes(3, 100)).ensembleTracker(false).build();
        open.add(client);
        // Curator tells its listeners CONNECTED on a thread of its own, some time after blockUntilConnected
        // returns; a Curator ServiceDiscovery started before then hears it and registers its instances over again
        // (delete, then create): a test that reads one just then would find none. Wait until it has been told.
        CountDownLatch told = new CountDownLatch(1);
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state == org.apache.curator.framework.state.ConnectionState.CONNECTED) {
                told.countDown();
            }
        });
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    /** Closes {@code closeable} with the clients (before them: added later, closed first). */
    <T extends AutoCloseable> T add(T closeable) {
        open.add(closeable);
        return closeable;
    }

    @Override
    public void close() {
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                // closing what a failed test left: nothing more to do
            }
        }
        open.clear();
    }

}
