package dev.baton.cli;

import dev.baton.testing.History;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.ensemble.EnsembleProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * A client process of a mixed {@code baton chaos} run ({@code --mix curator}): Apache Curator's client and recipes
 * on the same znodes as the Baton clients, driven by the same protocol as {@link ChaosClient} and running the same
 * workloads ({@link CuratorWorkloads}), so that the checkers judge the clients of both libraries as one system.
 *
 * <p>Curator is not on the {@code baton} command's own class path: {@link CuratorJars} finds its jars, and only the
 * JVMs of these client processes get them.
 */
public final class CuratorChaosClient {

    private CuratorChaosClient() {
    }

    /**
     * The process's entry point; the parent starts it through the kit's driver process.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        ChaosClient.run(new CuratorLibrary());
    }

    /** Curator's client, set up as a careful Curator user would: the same timeouts and retries as Baton's. */
    private static final class CuratorLibrary implements ChaosClient.Library<CuratorFramework> {
        @Override
        public CuratorFramework connect(String connectString, LinkAddresses links, Duration session,
                History.Recorder recorder) throws Exception {
            CuratorFramework client = CuratorFrameworkFactory.builder()
                    .ensembleProvider(new LinkedEnsemble(links.current(connectString)))
                    .sessionTimeoutMs((int) session.toMillis()).connectionTimeoutMs((int) session.toMillis())
                    .retryPolicy(new ExponentialBackoffRetry(50, 4, 500))
                    .ensembleTracker(links.follow())
                    .build();
            client.getConnectionStateListenable().addListener((c, state) -> {
                long sessionId = 0;
                try {
                    sessionId = c.getZookeeperClient().getZooKeeper().getSessionId();
                } catch (Exception closing) {
                    // closed meanwhile: the state without its session
                }
                ChaosClient.recordConnection(recorder, state.name(), state.isConnected(), sessionId);
            });
            client.start();
            if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
                client.close();
                throw new IllegalStateException("not connected to " + connectString);
            }
            try {
                client.create().creatingParentsIfNeeded().forPath(ChaosWorkloads.ROOT);
            } catch (KeeperException.NodeExistsException made) {
                // another client made it
            }
            return client;
        }

        @Override
        public ChaosWorkloads.Workload<CuratorFramework> workload(ChaosRecipe recipe,
                ChaosWorkloads.Context<CuratorFramework> ctx) {
            return CuratorWorkloads.create(recipe, ctx);
        }

        @Override
        public ChaosWorkloads.Nodes nodes(CuratorFramework client) {
            return CuratorRecipes.nodes(client);
        }

        @Override
        public ZooKeeper zooKeeper(CuratorFramework client) throws Exception {
            return client.getZookeeperClient().getZooKeeper();
        }

        @Override
        public void close(CuratorFramework client) {
            client.close();
        }
    }

    /** Returns the czxid of {@code path}, Baton's fencing token for the hold of that node; throws if it is gone. */
    static long czxid(CuratorFramework client, String path) throws Exception {
        Stat stat = client.checkExists().forPath(path);
        if (stat == null) {
            throw new IllegalStateException("gone: " + path);
        }
        return stat.getCzxid();
    }

    /** Curator's ensemble provider over {@link LinkAddresses.Current}. */
    private record LinkedEnsemble(LinkAddresses.Current servers) implements EnsembleProvider {
        @Override
        public void start() {
        }

        @Override
        public String getConnectionString() {
            return servers.get();
        }

        @Override
        public void close() {
        }

        @Override
        public void setConnectionString(String connectionString) {
            servers.follow(connectionString);
        }

        @Override
        public boolean updateServerListEnabled() {
            return true;
        }
    }
}
