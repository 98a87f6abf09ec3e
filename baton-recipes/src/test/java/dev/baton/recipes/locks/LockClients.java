package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/** The clients a lock test opens, all closed by {@link #close()}. */
final class LockClients implements AutoCloseable {
    private final EmbeddedZooKeeperExtension zk;
    private final List<AutoCloseable> opened = new ArrayList<>();

    LockClients(EmbeddedZooKeeperExtension zk) {
        this.zk = zk;
    }

    BatonClient baton() throws KeeperException, InterruptedException {
        BatonClient client = Baton.builder().connectString(zk.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).retryPolicy(new RetryOneTime(10)).build();
        opened.add(client);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        // A round trip behind the ensemble tracker's read on connect: its watch is set before a test counts them.
        client.checkExists().forPath("/");
        return client;
    }

    org.apache.curator.framework.CuratorFramework curator() throws InterruptedException {
        var curator = org.apache.curator.framework.CuratorFrameworkFactory.newClient(zk.connectString(),
                new org.apache.curator.retry.RetryOneTime(10));
        opened.add(curator);
        curator.start();
        assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return curator;
    }

    @Override
    public void close() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                // closing is best effort in tests
            }
        }
        opened.clear();
    }
}
