package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.testing.DriverMain;
import dev.baton.testing.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;

/**
 * One client process of {@code baton chaos}: a {@link BatonClient} and a workload per recipe, driven over the
 * kit's driver protocol ({@link DriverMain}) by {@link ChaosRun}. Every event it records is printed at once as an
 * event line stamped with this JVM's {@link System#nanoTime()} (the machine's monotonic clock, shared with the
 * parent), so the parent places it at the time it happened, however late the line arrives.
 *
 * <p>Commands: {@code start <connect> <sessionMs> <recipes> <clients> <seed> <name>} connects and starts the
 * workloads; {@code session} answers {@code <id> <password-hex>} of the current session, or {@code none};
 * {@code finish} ends the producing, the barrier rounds and makes the counters' last reads; {@code queue-left}
 * lists what the queue still holds; {@code stop} stops every workload and closes the client.
 */
public final class ChaosClient {

    private BatonClient client;
    private final List<ChaosWorkloads.Workload> workloads = new ArrayList<>();

    private ChaosClient() {
    }

    /**
     * The process's entry point; the parent starts it through the kit's driver process.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        DriverMain driver = DriverMain.create();
        ChaosClient chaos = new ChaosClient();
        History history = History.streaming(e -> driver.event(e.toLine()));
        driver.on("start", a -> {
            chaos.start(history, a);
            return "";
        });
        driver.on("session", a -> chaos.session());
        driver.on("finish", a -> {
            for (ChaosWorkloads.Workload w : chaos.workloads) {
                w.finish();
            }
            return "";
        });
        driver.on("queue-left", a -> {
            for (ChaosWorkloads.Workload w : chaos.workloads) {
                if (w instanceof ChaosQueueWorkloads.QueueWorkload q) {
                    return q.leftOver();
                }
            }
            return "no queue";
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
        History.Recorder recorder = history.recorder(name);
        client = Baton.builder().connectString(connect).sessionTimeout(session).connectionTimeout(session)
                .retryPolicy(new ExponentialBackoffRetry(50, 4, 500))
                // The connect string is this client's private link (proxies): never leave it for the servers'
                // own ports, or partitions would not reach the client.
                .ensembleTracker(false)
                .build();
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state.isConnected()) {
                // The session goes with it, so that a new session without a LOST told shows in the history.
                long sessionId = 0;
                try {
                    ZooKeeper zk = c.getZooKeeper();
                    sessionId = zk == null ? 0 : zk.getSessionId();
                } catch (IllegalStateException closing) {
                    // closed meanwhile: the state without its session
                }
                recorder.connected(state.name() + (sessionId == 0 ? "" : " session 0x"
                        + Long.toHexString(sessionId)));
            } else {
                recorder.disconnected(state.name());
            }
        });
        client.start();
        if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("not connected to " + connect);
        }
        client.create().creatingParentsIfNeeded().orSetData().forPath(ChaosWorkloads.ROOT);
        Random random = new Random(seed);
        for (ChaosRecipe recipe : recipes) {
            ChaosWorkloads.Context ctx = new ChaosWorkloads.Context(client, recorder, new Random(random.nextLong()),
                    clients, session);
            ChaosWorkloads.Workload w = ChaosWorkloads.create(recipe, ctx);
            workloads.add(w);
            w.start();
        }
    }

    private String session() {
        ZooKeeper zk = client == null ? null : client.getZooKeeper();
        if (zk == null || zk.getSessionId() == 0) {
            return "none";
        }
        return Long.toString(zk.getSessionId()) + " " + HexFormat.of().formatHex(zk.getSessionPasswd());
    }

    private void stop() throws InterruptedException {
        for (ChaosWorkloads.Workload w : workloads) {
            w.stop();
        }
        workloads.clear();
        if (client != null) {
            client.close();
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
}
