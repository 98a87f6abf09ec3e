package dev.baton.cli;

import dev.baton.testing.ClientLink;
import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.History;
import dev.baton.testing.RandomFaults;
import dev.baton.testing.RandomFaults.FaultKind;
import dev.baton.testing.ZooKeeperEnsemble;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a chaos run's servers live: three separate processes, or one server in this JVM. Starts them as the
 * {@link ChaosRun.Settings} say, hands out the links the clients connect through, and makes the fault schedule
 * that reaches them.
 */
interface ChaosServers extends AutoCloseable {
    /** What is up, for the run's story. */
    String describe() throws InterruptedException;

    /** A new link for one client to connect through. */
    ClientLink newClientLink();

    /**
     * The servers' own addresses mapped to {@code link}'s, for a client that follows a reconfigured ensemble;
     * {@link LinkAddresses#NONE} when the servers are never reconfigured.
     */
    LinkAddresses linkAddresses(ClientLink link);

    /** The run's random faults, on these servers and {@code clients}. */
    RandomFaults faults(List<? extends RandomFaults.Target> clients);

    /** Each server's version as it reports it ({@code srvr}), or {@code "?"} when it does not answer. */
    Map<Integer, String> reportedVersions();

    /** Copies the servers' logs into {@code directory}, if they have logs of their own. */
    void copyLogsTo(Path directory);

    /** Returns the servers' data directories (their transaction logs), while they run. */
    List<Path> dataDirectories();

    /** Stops the servers and closes the links. */
    @Override
    void close();

    /** Starts the servers {@code settings} ask for; their faults are recorded in {@code history}. */
    static ChaosServers start(ChaosRun.Settings settings, History history) {
        if (settings.embedded()) {
            EmbeddedZooKeeper server = EmbeddedZooKeeper.builder().maxSessionTimeout(Duration.ofMinutes(1)).build()
                    .start();
            return new ChaosServers() {
                @Override
                public String describe() {
                    return "embedded server up: " + server.connectString();
                }

                @Override
                public ClientLink newClientLink() {
                    return server.newClientLink();
                }

                @Override
                public LinkAddresses linkAddresses(ClientLink link) {
                    return LinkAddresses.NONE;
                }

                @Override
                public RandomFaults faults(List<? extends RandomFaults.Target> clients) {
                    return new RandomFaults(server, clients, history, settings.seed(), settings.mix(),
                            settings.sessionTimeout());
                }

                @Override
                public Map<Integer, String> reportedVersions() {
                    return Map.of(1, EmbeddedZooKeeper.zooKeeperVersion());
                }

                @Override
                public void copyLogsTo(Path directory) {
                    // the embedded server logs into this process's own log
                }

                @Override
                public List<Path> dataDirectories() {
                    return List.of(server.dataDirectory());
                }

                @Override
                public void close() {
                    server.close();
                }
            };
        }
        // Peer proxies only for the faults that cut peers: through them an election after the leader stops takes
        // up to 10 s (measured: 0.3 to 10.7 s, against under 0.7 s without), longer than a 4 s session, and
        // the runs that count lost sessions (a rolling upgrade) would count the kit's own slowness.
        boolean peerFaults = settings.mix().contains(FaultKind.ISOLATE)
                || settings.mix().contains(FaultKind.PARTITION_PEERS);
        // Reconfiguration and peer proxies exclude each other (the options refuse both in one run).
        boolean reconfig = settings.mix().contains(FaultKind.RECONFIGURE);
        ZooKeeperEnsemble.Builder builder = ZooKeeperEnsemble.builder().servers(3).clientProxies(true)
                .peerProxies(peerFaults).reconfigEnabled(reconfig);
        settings.serverVersion().ifPresent(builder::serverVersion);
        ZooKeeperEnsemble ensemble = builder.build().start();
        return new ChaosServers() {
            @Override
            public String describe() throws InterruptedException {
                return "ensemble up: " + ensemble.connectString() + ", leader server "
                        + ensemble.awaitLeader(Duration.ofSeconds(60)) + ", ZooKeeper " + ensemble.serverVersion();
            }

            @Override
            public ClientLink newClientLink() {
                return ensemble.newClientLink();
            }

            @Override
            public LinkAddresses linkAddresses(ClientLink link) {
                if (!reconfig) {
                    return LinkAddresses.NONE;
                }
                Map<String, String> addresses = new LinkedHashMap<>();
                for (int id : ensemble.serverIds()) {
                    addresses.put("127.0.0.1:" + ensemble.clientPort(id), link.connectString(id));
                }
                return new LinkAddresses(addresses);
            }

            @Override
            public RandomFaults faults(List<? extends RandomFaults.Target> clients) {
                RandomFaults faults = new RandomFaults(ensemble, clients, history, settings.seed(), settings.mix(),
                        settings.sessionTimeout());
                settings.upgradeTo().ifPresent(faults::upgradeTo);
                return faults;
            }

            @Override
            public Map<Integer, String> reportedVersions() {
                Map<Integer, String> versions = new LinkedHashMap<>();
                for (int id : ensemble.serverIds()) {
                    versions.put(id, ensemble.reportedVersion(id).orElse("?"));
                }
                return versions;
            }

            @Override
            public void copyLogsTo(Path directory) {
                ensemble.copyLogsTo(directory);
            }

            @Override
            public List<Path> dataDirectories() {
                return ensemble.serverIds().stream().map(ensemble::dataDirectory).toList();
            }

            @Override
            public void close() {
                ensemble.close();
            }
        };
    }
}
