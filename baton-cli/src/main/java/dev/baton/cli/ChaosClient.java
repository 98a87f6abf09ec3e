package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.EnsembleProvider;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.testing.DriverMain;
import dev.baton.testing.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * One client process of {@code baton chaos}: a client of one library and a workload per recipe, driven over the
 * kit's driver protocol ({@link DriverMain}) by {@link ChaosRun}. This class's {@link #main} runs a
 * {@link BatonClient}; {@link CuratorChaosClient} runs Apache Curator's client and recipes on the same protocol, the
 * same workloads and the same znodes. Every event it records is printed at once as an event line stamped with this
 * JVM's {@link System#nanoTime()} (the machine's monotonic clock, shared with the parent), so the parent places it
 * at the time it happened, however late the line arrives.
 *
 * <p>Commands: {@code start <connect> <sessionMs> <recipes> <clients> <seed> <name> <links>} connects and starts
 * the workloads ({@code links}: {@link LinkAddresses#format()}); {@code session} answers
 * {@code <id> <password-hex>} of the current session, or {@code none}; {@code finish} ends the producing, the
 * barrier rounds and makes the counters' last reads; {@code queue-left} lists what the queues still hold
 * ({@code queue-drained}: whether they hold no item);
 * {@code stop} stops every workload and closes the client.
 *
 * @param <C> the library's client type
 */
public final class ChaosClient<C> {

    /**
     * What a chaos client process needs of a client library.
     *
     * @param <C> the library's client type
     */
    interface Library<C> {
        /**
         * Connects to {@code connectString} (the client's private link through its proxies), recording each
         * connection change with its session, and makes {@link ChaosWorkloads#ROOT}. With {@code links} that
         * {@linkplain LinkAddresses#follow() follow}, the client follows a reconfigured ensemble through them;
         * else it keeps to the connect string.
         */
        C connect(String connectString, LinkAddresses links, Duration session, History.Recorder recorder)
                throws Exception;

        /** Returns the workload of {@code recipe}, not started. */
        ChaosWorkloads.Workload<C> workload(ChaosRecipe recipe, ChaosWorkloads.Context<C> ctx);

        /** Returns the client's plain node operations. */
        ChaosWorkloads.Nodes nodes(C client);

        /** Returns the current ZooKeeper handle, or null when there is none. */
        @Nullable ZooKeeper zooKeeper(C client) throws Exception;

        /** Closes the client. */
        void close(C client);
    }

    private final Library<C> library;
    private @Nullable C client;
    private final List<ChaosWorkloads.Workload<C>> workloads = new ArrayList<>();

    private ChaosClient(Library<C> library) {
        this.library = library;
    }

    /**
     * The process's entry point for a Baton client; the parent starts it through the kit's driver process.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        run(new BatonLibrary());
    }

    /** Serves the driver protocol with a client of {@code library} until the parent says stop or goes away. */
    static <C> void run(Library<C> library) {
        DriverMain driver = DriverMain.create();
        ChaosClient<C> chaos = new ChaosClient<>(library);
        History history = History.streaming(e -> driver.event(e.toLine()));
        driver.on("start", a -> {
            chaos.start(history, a);
            return "";
        });
        driver.on("session", a -> chaos.session());
        driver.on("finish", a -> {
            for (ChaosWorkloads.Workload<C> w : chaos.workloads) {
                w.finish();
            }
            return "";
        });
        driver.on("queue-left", a -> {
            List<String> left = new ArrayList<>();
            for (ChaosWorkloads.Workload<C> w : chaos.workloads) {
                if (w instanceof ChaosWorkloads.Queue q) {
                    left.add(q.leftOver());
                }
            }
            return left.isEmpty() ? "no queue" : String.join("; ", left);
        });
        driver.on("queue-drained", a -> {
            for (ChaosWorkloads.Workload<C> w : chaos.workloads) {
                try {
                    if (w instanceof ChaosWorkloads.Queue q && !q.drained()) {
                        return "false";
                    }
                } catch (KeeperException e) {
                    return "false"; // not connected now: ask again
                }
            }
            return "true";
        });
        driver.on("stop", a -> {
            chaos.stop();
            return "";
        });
        driver.onExit(chaos::stopQuietly);
        driver.run();
    }

    private void start(History history, List<String> a) throws Exception {
        String connect = a.get(0);
        Duration session = Duration.ofMillis(Long.parseLong(a.get(1)));
        List<ChaosRecipe> recipes = ChaosRecipe.parseList(a.get(2));
        int clients = Integer.parseInt(a.get(3));
        long seed = Long.parseLong(a.get(4));
        String name = a.get(5);
        LinkAddresses links = LinkAddresses.parse(a.get(6));
        History.Recorder recorder = history.recorder(name);
        C c = library.connect(connect, links, session, recorder);
        client = c;
        Random random = new Random(seed);
        for (ChaosRecipe recipe : recipes) {
            ChaosWorkloads.Context<C> ctx = new ChaosWorkloads.Context<>(c, library.nodes(c), recorder,
                    new Random(random.nextLong()), clients, session);
            ChaosWorkloads.Workload<C> w = library.workload(recipe, ctx);
            workloads.add(w);
            w.start();
        }
    }

    private String session() throws Exception {
        ZooKeeper zk = zooKeeper();
        if (zk == null || zk.getSessionId() == 0) {
            return "none";
        }
        return Long.toString(zk.getSessionId()) + " " + HexFormat.of().formatHex(zk.getSessionPasswd());
    }

    private @Nullable ZooKeeper zooKeeper() throws Exception {
        C c = client;
        return c == null ? null : library.zooKeeper(c);
    }

    private void stop() throws InterruptedException {
        for (ChaosWorkloads.Workload<C> w : workloads) {
            w.stop();
        }
        workloads.clear();
        C c = client;
        if (c != null) {
            library.close(c);
            client = null;
        }
    }

    private void stopQuietly() {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Records a connection change of either library's client: a connected state with its session (0: unknown),
     * so that a new session without a LOST told shows in the history; any other state as a disconnection.
     */
    static void recordConnection(History.Recorder recorder, String state, boolean connected, long sessionId) {
        if (connected) {
            recorder.connected(state + (sessionId == 0 ? "" : " session 0x" + Long.toHexString(sessionId)));
        } else {
            recorder.disconnected(state);
        }
    }

    /** Baton's client and recipes. */
    private static final class BatonLibrary implements Library<BatonClient> {
        @Override
        public BatonClient connect(String connectString, LinkAddresses links, Duration session,
                History.Recorder recorder) throws Exception {
            LinkAddresses.Current servers = links.current(connectString);
            EnsembleProvider ensemble = new EnsembleProvider() {
                @Override
                public String getConnectionString() {
                    return servers.get();
                }

                @Override
                public void setConnectionString(String connectionString) {
                    servers.follow(connectionString);
                }
            };
            BatonClient client = Baton.builder().ensembleProvider(ensemble).sessionTimeout(session)
                    .connectionTimeout(session).retryPolicy(new ExponentialBackoffRetry(50, 4, 500))
                    .ensembleTracker(links.follow()).build();
            client.getConnectionStateListenable().addListener((c, state) -> {
                long sessionId = 0;
                try {
                    ZooKeeper zk = c.getZooKeeper();
                    sessionId = zk == null ? 0 : zk.getSessionId();
                } catch (IllegalStateException closing) {
                    // closed meanwhile: the state without its session
                }
                recordConnection(recorder, state.name(), state.isConnected(), sessionId);
            });
            client.start();
            if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
                client.close();
                throw new IllegalStateException("not connected to " + connectString);
            }
            client.create().creatingParentsIfNeeded().orSetData().forPath(ChaosWorkloads.ROOT);
            return client;
        }

        @Override
        public ChaosWorkloads.Workload<BatonClient> workload(ChaosRecipe recipe,
                ChaosWorkloads.Context<BatonClient> ctx) {
            return ChaosWorkloads.create(recipe, ctx);
        }

        @Override
        public ChaosWorkloads.Nodes nodes(BatonClient client) {
            return ChaosWorkloads.batonNodes(client);
        }

        @Override
        public @Nullable ZooKeeper zooKeeper(BatonClient client) {
            return client.getZooKeeper();
        }

        @Override
        public void close(BatonClient client) {
            client.close();
        }
    }
}
