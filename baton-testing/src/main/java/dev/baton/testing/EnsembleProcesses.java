package dev.baton.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server processes of a {@link ZooKeeperEnsemble} as a group: the first start of them all (with new ports if
 * one was taken), their teardown, and the process faults: killing, stopping and starting one server (also on
 * another release), losing and regaining the quorum. Callers hold the ensemble's lock, which serializes these
 * control steps; the servers' state is volatile for the readers that do not.
 */
final class EnsembleProcesses {

    private static final Logger LOG = LoggerFactory.getLogger(EnsembleProcesses.class);
    private static final int START_ATTEMPTS = 3;

    private final String name;
    private final EnsembleSettings settings;
    private final Map<Integer, EnsembleServer> servers;
    private final QuorumProbe probe;
    private final EnsembleNetwork network;

    /**
     * The processes of one ensemble, none started.
     *
     * @param name the ensemble's name, for messages
     * @param settings the ensemble's settings
     * @param servers the ensemble's servers in id order, not modified afterwards
     * @param probe asks the servers who leads
     * @param network the ensemble's proxies, created and closed with the processes
     */
    EnsembleProcesses(String name, EnsembleSettings settings, Map<Integer, EnsembleServer> servers,
            QuorumProbe probe, EnsembleNetwork network) {
        this.name = name;
        this.settings = settings;
        this.servers = servers;
        this.probe = probe;
        this.network = network;
    }

    /**
     * Starts every server and returns when a quorum serves; if a server cannot bind a port, tears everything
     * down and tries again with new ports. Tears down on any other failure.
     *
     * @throws IllegalStateException if no quorum forms within the start timeout, or ports stay taken
     */
    void startAll() {
        RuntimeException last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            try {
                startOnce();
                return;
            } catch (EnsembleServer.PortTakenException e) {
                LOG.warn("ensemble {}: {}; retrying with new ports", name, e.getMessage());
                last = e;
                tearDown();
            } catch (RuntimeException | Error e) {
                tearDown();
                throw e;
            }
        }
        throw new IllegalStateException("ensemble " + name + " could not start", last);
    }

    private void startOnce() {
        for (EnsembleServer s : servers.values()) {
            s.allocatePorts();
        }
        network.createProxies();
        for (EnsembleServer s : servers.values()) {
            ServerConfigFiles.writeConfig(s, servers.values(), settings, network);
        }
        for (EnsembleServer s : servers.values()) {
            s.launch();
        }
        long deadline = System.nanoTime() + settings.startTimeout().toNanos();
        for (EnsembleServer s : servers.values()) {
            s.awaitServing(deadline);
        }
        probe.awaitLeaderUntil(deadline);
    }

    /** Kills every process and closes every proxy, keeping the directory (for a retried start). */
    void tearDown() {
        for (EnsembleServer s : servers.values()) {
            s.killProcess();
        }
        network.closeProxies();
        for (EnsembleServer s : servers.values()) {
            Directories.deleteRecursively(s.dir);
        }
    }

    /** Kills {@code server} hard and waits until its process is gone. */
    void kill(EnsembleServer server) {
        server.killProcess();
        LOG.info("ensemble {}: killed server {}", name, server.id);
    }

    /** Stops {@code server} gracefully, falling back to a kill. */
    void stop(EnsembleServer server) {
        server.stopProcess();
        LOG.info("ensemble {}: stopped server {}", name, server.id);
    }

    /**
     * Starts {@code server} again unless it runs, and waits until it answers; when a majority runs and no peer
     * link is partitioned, until it serves as well.
     */
    void start(EnsembleServer server) {
        if (server.isRunning()) {
            return;
        }
        long deadline = System.nanoTime() + settings.startTimeout().toNanos();
        server.launchRetryingBusyPorts(deadline);
        if (probe.runningServers().size() >= majority() && !network.anyPeerPartition()) {
            server.awaitServing(deadline);
        } else {
            server.awaitAnswering(deadline);
        }
        LOG.info("ensemble {}: started server {}", name, server.id);
    }

    /**
     * Stops {@code server} if it runs and starts it on {@code release}, which stays its release for later starts;
     * once it serves, checks that it reports that release.
     */
    void restart(EnsembleServer server, ServerReleases.Release release) {
        String before = server.version;
        stop(server);
        server.version = release.version();
        server.classpath = release.classpath();
        start(server);
        if (server.isRunning() && server.isServing()) {
            Optional<String> reported = server.reportedVersion();
            if (reported.isPresent() && !reported.get().equals(release.version())) {
                throw new IllegalStateException("server " + server.id + " of ensemble " + name + " was started on "
                        + release.version() + " but reports " + reported.get());
            }
        }
        LOG.info("ensemble {}: server {} restarted on {} (was {})", name, server.id, release.version(), before);
    }

    /** Kills servers, the leader first, until fewer than a majority run; returns their ids. */
    Set<Integer> loseQuorum() {
        Set<Integer> killed = new TreeSet<>();
        Optional<Integer> leader = probe.findLeader();
        leader.ifPresent(id -> {
            kill(Objects.requireNonNull(servers.get(id), "leader"));
            killed.add(id);
        });
        for (EnsembleServer s : servers.values()) {
            if (probe.runningServers().size() < majority()) {
                break;
            }
            if (s.isRunning()) {
                kill(s);
                killed.add(s.id);
            }
        }
        return killed;
    }

    /**
     * Starts every server that is not running and waits until a leader serves and, unless a peer link is
     * partitioned, until every server it started serves too; returns the leader.
     */
    int regainQuorum() {
        long deadline = System.nanoTime() + settings.startTimeout().toNanos();
        List<EnsembleServer> started = new ArrayList<>();
        for (EnsembleServer s : servers.values()) {
            if (!s.isRunning()) {
                s.launchRetryingBusyPorts(deadline);
                started.add(s);
            }
        }
        int leader = probe.awaitLeaderUntil(deadline);
        if (!network.anyPeerPartition()) {
            for (EnsembleServer s : started) {
                s.awaitServing(deadline);
            }
        }
        return leader;
    }

    private int majority() {
        return servers.size() / 2 + 1;
    }
}
