package dev.baton.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.retry.RetryPolicy;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What one recipe test opens: started, connected clients of the test's server (Baton's and, for interop tests,
 * Apache Curator's) and the recipes on them, all closed after the test in the reverse order of opening (a recipe
 * before the client it uses). Registered as an instance field after the server's extension, so it closes everything
 * before the server goes:
 *
 * <pre>{@code
 * @RegisterExtension
 * static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
 * @RegisterExtension
 * final TestResources resources = new TestResources(zk);
 * }</pre>
 */
public final class TestResources implements AfterEachCallback {
    private final Supplier<String> connectString;
    private final List<AutoCloseable> open = new ArrayList<>();

    /**
     * The number of children of a node, 0 if it does not exist: also when a container empties and the server removes
     * it between the two reads, which an "exists, then children" check does not survive.
     */
    public static int childCount(BatonClient client, String path) throws Exception {
        try {
            return client.getChildren().forPath(path).size();
        } catch (KeeperException.NoNodeException e) {
            return 0;
        }
    }

    /** @param zk the server the clients connect to */
    public TestResources(EmbeddedZooKeeperExtension zk) {
        this(zk::connectString);
    }

    /** @param connectString where the clients connect, asked each time one is opened */
    public TestResources(Supplier<String> connectString) {
        this.connectString = connectString;
    }

    /**
     * A started client, connected (10 s session, 5 s connection timeout, one retry after 10 ms), closed after the
     * test.
     */
    public BatonClient client() throws InterruptedException {
        return client(true, Duration.ofSeconds(5), new RetryOneTime(10));
    }

    /**
     * As {@link #client()}, without ensemble tracking: for tests that count the server's watches, which the
     * tracker's own watch on {@code /zookeeper/config}, set just after connecting, would race.
     */
    public BatonClient untrackedClient() throws InterruptedException {
        return client(false, Duration.ofSeconds(5), new RetryOneTime(10));
    }

    /**
     * A started client, connected (10 s session), closed after the test.
     *
     * @param ensembleTracker whether it follows the ensemble's configuration
     * @param connectionTimeout how long its operations wait for a connection
     * @param retryPolicy how its operations retry
     */
    public BatonClient client(boolean ensembleTracker, Duration connectionTimeout, RetryPolicy retryPolicy)
            throws InterruptedException {
        BatonClient client = open(Baton.builder().connectString(connectString.get())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(connectionTimeout)
                .retryPolicy(retryPolicy).ensembleTracker(ensembleTracker).build());
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    /** A started Apache Curator client of the same server, connected (one retry after 10 ms), closed after the test. */
    public CuratorFramework curator() throws InterruptedException {
        CuratorFramework curator = open(CuratorFrameworkFactory.newClient(connectString.get(),
                new org.apache.curator.retry.RetryOneTime(10)));
        curator.start();
        assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return curator;
    }

    /** Closes {@code resource} after the test, before everything opened earlier. Safe from any thread. */
    public <T extends AutoCloseable> T open(T resource) {
        synchronized (open) {
            open.add(resource);
        }
        return resource;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        List<AutoCloseable> opened;
        synchronized (open) {
            opened = new ArrayList<>(open);
            open.clear();
        }
        Exception failure = null;
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
