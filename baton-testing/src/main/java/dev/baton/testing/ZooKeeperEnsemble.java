package dev.baton.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real ZooKeeper quorum of 3 or 5 (any count from 1 to 9) servers on 127.0.0.1, each a separate JVM running
 * ZooKeeper's own {@code QuorumPeerMain} with a generated configuration, the way ZooKeeper runs in production.
 * Servers can be killed hard (SIGKILL), stopped, restarted with their data on the same ports (also on another
 * ZooKeeper release line, one at a time, for a rolling upgrade: {@link #restart(int, String)}), paused (SIGSTOP)
 * and, with proxies enabled, cut from their clients or from their peers.
 *
 * <pre>{@code
 * try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().servers(3).proxies(true).build().start()) {
 *     ZooKeeper zk = new ZooKeeper(ensemble.connectString(), 10_000, watcher);
 *     int old = ensemble.killLeader();
 *     int leader = ensemble.awaitLeader(Duration.ofSeconds(30));
 *     ensemble.isolate(leader);                  // the majority elects a new leader
 *     ensemble.healAll();
 *     ensemble.start(old);                       // same data, same ports
 * }
 * }</pre>
 *
 * <h2>Proxies</h2>
 * With {@linkplain Builder#clientProxies(boolean) client proxies}, {@link #connectString()} lists one
 * {@link TcpProxy} per server instead of the servers themselves, so {@link #partitionClient(int, TcpProxy.Mode)}
 * cuts every client from a server; {@link #newClientLink()} gives one client a private path that can be cut on
 * its own. With {@linkplain Builder#peerProxies(boolean) peer proxies}, each server's configuration names its
 * peers by the ports of proxies (one per direction, per peer pair, for the quorum port and the election port),
 * so {@link #isolate(int)} cuts a server from all its peers both ways and
 * {@link #partitionPeers(int, int, TcpProxy.Mode)} cuts one pair. Peer proxies need dynamic reconfiguration off
 * (a server would otherwise adopt a peer's view of the addresses), which is then the default.
 *
 * <h2>Files and processes</h2>
 * Everything lives in one temporary directory ({@code baton-ensemble-*}): per server a {@code zoo.cfg}, the
 * data directory and {@code server.log} (the JVM's stdout and stderr). {@link #close()} kills every server and
 * deletes the directory; so does a shutdown hook if a test forgets, and servers halt by themselves if the test
 * JVM dies (see {@link KitResources}). Every server JVM runs with {@code -Xmx128m} (by default), serial GC and
 * C1 only, for fast starts on a small machine.
 *
 * <h2>Security</h2>
 * With {@link Builder#security(ServerSecurity)} every server serves TLS on a {@code secureClientPort} (Netty,
 * certificates from {@link TlsCertificates}, x509 client authentication), SASL DIGEST-MD5 with a JAAS file the kit
 * writes, and can close sessions that do not authenticate first. The TLS ports are the ones
 * {@link #connectString()} names (and the client proxies forward to); each server keeps its plaintext client
 * port for the kit's four-letter words ({@link #plaintextClientPort(int)}). Key store passwords reach the servers
 * in files, not on their command lines. The quorum's own traffic stays plaintext.
 *
 * <h2>Timing</h2>
 * Tick 250 ms (elections take about a second), {@code syncLimit} 10 ticks, {@code initLimit} 20 ticks;
 * sessions may last from 2 ticks to 60 s. Transaction logs are not fsync'ed.
 *
 * <p>Thread-safety: all methods are safe to call from any thread; control methods are serialized.
 */
public final class ZooKeeperEnsemble implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperEnsemble.class);
    private static final String QUORUM_PEER_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    private static final int FOUR_LETTER_TIMEOUT_MS = 2_000;
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration EXPIRY_TIMEOUT = Duration.ofSeconds(30);
    private static final int START_ATTEMPTS = 3;
    private static final AtomicInteger ENSEMBLE_NUMBERS = new AtomicInteger();

    private enum State { NEW, RUNNING, CLOSED }

    private final Settings settings;
    private final String name;
    private final Path root;
    private final Map<Integer, Server> servers = new TreeMap<>();
    private final Map<Integer, TcpProxy> clientProxies = new ConcurrentSkipListMap<>();
    /** Peer proxies by direction; read by proxy threads (the election handshake), hence concurrent. */
    private final Map<PeerLink, TcpProxy> peerProxies = new ConcurrentHashMap<>();
    private final Set<ClientLink> clientLinks = ConcurrentHashMap.newKeySet();
    private final AtomicInteger linkNumbers = new AtomicInteger();

    // Serializes the control methods. A private lock, not the ensemble itself, so a caller synchronizing on the
    // ensemble cannot stall it.
    private final Object lock = new Object();

    // Written under the lock; volatile because the accessors read it without the lock (so not @GuardedBy).
    private volatile State state = State.NEW;

    private ZooKeeperEnsemble(Settings settings) {
        this.settings = settings;
        this.name = "e" + ENSEMBLE_NUMBERS.incrementAndGet();
        this.root = KitResources.createTempDirectory("baton-ensemble-");
        for (int id = 1; id <= settings.servers; id++) {
            servers.put(id, new Server(id, root.resolve("server-" + id)));
        }
    }

    /**
     * A builder for an ensemble; the defaults are 3 servers and no proxies.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts every server and returns when a quorum serves: every server answers {@code srvr} as leader or
     * follower, one of them as leader. If a server cannot bind a port (another process took it), all ports are
     * chosen again and the start is retried.
     *
     * @return this ensemble
     * @throws IllegalStateException if started before, closed, or no quorum forms within the start timeout
     * @throws UncheckedIOException if files cannot be written or processes started
     */
    public ZooKeeperEnsemble start() {
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException("ensemble " + name + " is " + state.name().toLowerCase(Locale.ROOT)
                        + "; start() is allowed once");
            }
            RuntimeException last = null;
            for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
                try {
                    startOnce();
                    state = State.RUNNING;
                    LOG.info("ensemble {} of {} servers serving at {}", name, servers.size(), connectString());
                    return this;
                } catch (PortTakenException e) {
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
    }

    private void startOnce() {
        for (Server s : servers.values()) {
            s.clientPort = PortAllocator.allocate();
            s.secureClientPort = settings.security.tls().isPresent() ? PortAllocator.allocate() : 0;
            s.quorumPort = PortAllocator.allocate();
            s.electionPort = PortAllocator.allocate();
        }
        createProxies();
        for (Server s : servers.values()) {
            s.writeConfig();
        }
        for (Server s : servers.values()) {
            s.launch();
        }
        long deadline = System.nanoTime() + settings.startTimeout.toNanos();
        for (Server s : servers.values()) {
            s.awaitServing(deadline);
        }
        awaitLeaderUntil(deadline);
    }

    private void createProxies() {
        if (settings.clientProxies) {
            for (Server s : servers.values()) {
                clientProxies.put(s.id, TcpProxy.start(name + "-client-s" + s.id, s.servingPort()));
            }
        }
        if (settings.peerProxies) {
            for (Server from : servers.values()) {
                for (Server to : servers.values()) {
                    if (from.id == to.id) {
                        continue;
                    }
                    PeerLink quorum = new PeerLink(from.id, to.id, false);
                    peerProxies.put(quorum, TcpProxy.start(name + "-quorum-" + from.id + "to" + to.id,
                            to.quorumPort));
                    PeerLink election = new PeerLink(from.id, to.id, true);
                    PeerLink back = new PeerLink(to.id, from.id, true);
                    peerProxies.put(election, TcpProxy.start(name + "-election-" + from.id + "to" + to.id,
                            to.electionPort, new ElectionHandshake(() -> peerProxy(back).address())));
                }
            }
        }
    }

    /** Kills every process and closes every proxy, keeping the directory (for a retried start). */
    private void tearDown() {
        for (Server s : servers.values()) {
            s.killProcess();
        }
        clientProxies.values().forEach(TcpProxy::close);
        clientProxies.clear();
        peerProxies.values().forEach(TcpProxy::close);
        peerProxies.clear();
        for (Server s : servers.values()) {
            Directories.deleteRecursively(s.dir);
        }
    }

    /**
     * The full version of the release that {@link Builder#serverVersion(String)} and {@link #restart(int, String)}
     * run for a line, e.g. to compare two lines before starting anything.
     *
     * @param version a release line such as {@code 3.8}, or its full version such as {@code 3.8.6}
     * @return the release's version, such as {@code 3.8.6}
     * @throws IllegalArgumentException if there is no such release on the class path (the message names the lines
     *     that are)
     */
    public static String releaseVersion(String version) {
        return ServerReleases.find(Objects.requireNonNull(version, "version")).version();
    }

    /**
     * The release every server runs: the one given to {@link Builder#serverVersion(String)} (else this JVM's)
     * until {@link #restart(int, String)} moves servers to another line, and that line once every server is on
     * it. While servers run different releases (in the middle of a rolling upgrade) there is no one answer, so
     * this fails; {@link #serverVersions()} tells each.
     *
     * @return a version such as {@code 3.8.6}
     * @throws IllegalStateException if the servers are set to run different releases
     */
    public String serverVersion() {
        Set<String> versions = new TreeSet<>(serverVersions().values());
        if (versions.size() != 1) {
            throw new IllegalStateException("the servers of ensemble " + name + " run different releases "
                    + serverVersions() + "; ask serverVersion(id) or serverVersions()");
        }
        return versions.iterator().next();
    }

    /**
     * The release server {@code id} runs, or will run when it starts again: the ensemble's, or the one of its last
     * {@link #restart(int, String)}.
     *
     * @param id a server id
     * @return a version such as {@code 3.9.5}
     * @throws IllegalArgumentException if there is no such server
     */
    public String serverVersion(int id) {
        return server(id).version;
    }

    /**
     * The release of each server; see {@link #serverVersion(int)}.
     *
     * @return versions by server id, in id order
     */
    public Map<Integer, String> serverVersions() {
        synchronized (lock) {
            Map<Integer, String> out = new TreeMap<>();
            servers.values().forEach(s -> out.put(s.id, s.version));
            return Collections.unmodifiableMap(out);
        }
    }

    /**
     * The version server {@code id} itself reports in its {@code srvr} answer, e.g. to check that a restart on
     * another line took.
     *
     * @param id a server id
     * @return the version, such as {@code 3.9.5}; empty if the server is down, paused or does not answer
     * @throws IllegalArgumentException if there is no such server
     */
    public Optional<String> reportedVersion(int id) {
        Server s = server(id);
        if (!s.isRunning() || s.paused) {
            return Optional.empty();
        }
        return FourLetterWords.send(s.clientPort, "srvr", FOUR_LETTER_TIMEOUT_MS).flatMap(FourLetterWords::version);
    }

    /**
     * The connect string clients should use: through the client proxies if they are enabled, else straight to
     * the servers. Lists every server, running or not.
     *
     * @return {@code "127.0.0.1:p1,127.0.0.1:p2,..."}
     * @throws IllegalStateException if the ensemble was never started
     */
    public String connectString() {
        requireStarted();
        if (!clientProxies.isEmpty()) {
            return clientProxies.values().stream().map(TcpProxy::address).collect(Collectors.joining(","));
        }
        return directConnectString();
    }

    /**
     * The connect string of the servers' own client ports (their TLS ports with TLS), bypassing every proxy.
     *
     * @return {@code "127.0.0.1:p1,127.0.0.1:p2,..."}
     * @throws IllegalStateException if the ensemble was never started
     */
    public String directConnectString() {
        requireStarted();
        return servers.values().stream().map(s -> "127.0.0.1:" + s.servingPort()).collect(Collectors.joining(","));
    }

    /**
     * The address clients use to reach server {@code id} alone: its client proxy if enabled, else the server.
     *
     * @param id a server id
     * @return {@code "127.0.0.1:<port>"}
     * @throws IllegalArgumentException if there is no such server
     */
    public String connectString(int id) {
        server(id);
        requireStarted();
        TcpProxy proxy = clientProxies.get(id);
        return proxy != null ? proxy.address() : "127.0.0.1:" + server(id).servingPort();
    }

    /**
     * The number of servers.
     *
     * @return the ensemble size
     */
    public int size() {
        return servers.size();
    }

    /**
     * The server ids, {@code 1..size()}.
     *
     * @return the ids in order
     */
    public Set<Integer> serverIds() {
        return Collections.unmodifiableSet(servers.keySet());
    }

    /**
     * The smallest number of servers that forms a quorum, {@code size() / 2 + 1}.
     *
     * @return the majority
     */
    public int majority() {
        return servers.size() / 2 + 1;
    }

    /**
     * The current leader, asked of each running server with {@code srvr}. If more than one server still says
     * it leads (an isolated old leader has not noticed yet), the one of the newest epoch wins.
     *
     * @return the leader's id
     * @throws IllegalStateException if no server says it leads now
     */
    public int leaderId() {
        return findLeader().orElseThrow(() -> new IllegalStateException("no leader in ensemble " + name
                + " now: " + describe()));
    }

    /**
     * Waits until a server leads and returns it; see {@link #leaderId()}.
     *
     * @param timeout the longest wait
     * @return the leader's id
     * @throws IllegalStateException if there is no leader after {@code timeout}
     */
    public int awaitLeader(Duration timeout) {
        return awaitLeaderUntil(System.nanoTime() + timeout.toNanos());
    }

    /**
     * Waits until a server other than {@code formerLeader} leads, e.g. after killing or isolating it.
     *
     * @param formerLeader the id that must not be the answer
     * @param timeout the longest wait
     * @return the new leader's id
     * @throws IllegalStateException if there is no such leader after {@code timeout}
     */
    public int awaitNewLeader(int formerLeader, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<Integer> leader = findLeader();
            if (leader.isPresent() && leader.get() != formerLeader) {
                return leader.get();
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("no leader other than " + formerLeader + " in ensemble " + name
                        + " after " + timeout + ": " + describe());
            }
            sleepMillis(100);
        }
    }

    private int awaitLeaderUntil(long deadline) {
        while (true) {
            Optional<Integer> leader = findLeader();
            if (leader.isPresent()) {
                return leader.get();
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("no leader in ensemble " + name + ": " + describe());
            }
            sleepMillis(100);
        }
    }

    private Optional<Integer> findLeader() {
        int best = -1;
        long bestEpoch = Long.MIN_VALUE;
        for (Server s : runningServers()) {
            if (s.paused) {
                continue;
            }
            Optional<String> srvr = FourLetterWords.send(s.clientPort, "srvr", FOUR_LETTER_TIMEOUT_MS);
            if (srvr.isPresent() && FourLetterWords.mode(srvr.get()).filter("leader"::equals).isPresent()) {
                long epoch = FourLetterWords.epoch(srvr.get());
                if (epoch > bestEpoch) {
                    best = s.id;
                    bestEpoch = epoch;
                }
            }
        }
        return best < 0 ? Optional.empty() : Optional.of(best);
    }

    /**
     * Whether server {@code id} serves clients now: it answers {@code srvr} as leader or follower (a server cut
     * from the quorum answers that it is not serving).
     *
     * @param id a server id
     * @return true if it serves
     * @throws IllegalArgumentException if there is no such server
     */
    public boolean isServing(int id) {
        Server s = server(id);
        return s.isRunning() && !s.paused && s.mode().isPresent();
    }

    /**
     * The role server {@code id} reports: {@code "leader"}, {@code "follower"}, or empty when it is down,
     * paused or not serving.
     *
     * @param id a server id
     * @return the mode
     * @throws IllegalArgumentException if there is no such server
     */
    public Optional<String> mode(int id) {
        Server s = server(id);
        return s.isRunning() && !s.paused ? s.mode() : Optional.empty();
    }

    /**
     * Sends a four-letter-word command ({@code "srvr"}, {@code "mntr"}, {@code "cons"}, ...) straight to server
     * {@code id}'s client port.
     *
     * @param id a server id
     * @param command the command
     * @return the answer, or empty if the server did not answer within two seconds
     * @throws IllegalArgumentException if there is no such server
     */
    public Optional<String> fourLetterWord(int id, String command) {
        Objects.requireNonNull(command, "command");
        return FourLetterWords.send(server(id).clientPort, command, FOUR_LETTER_TIMEOUT_MS);
    }

    /**
     * Whether the JVM of server {@code id} is alive (possibly paused).
     *
     * @param id a server id
     * @return true if its process runs
     * @throws IllegalArgumentException if there is no such server
     */
    public boolean isRunning(int id) {
        return server(id).isRunning();
    }

    /**
     * Whether server {@code id} is paused by {@link #pause(int)}.
     *
     * @param id a server id
     * @return true if paused
     */
    public boolean isPaused(int id) {
        return server(id).paused;
    }

    /**
     * Server {@code id}'s own client port (not its proxy's; its TLS port with TLS), fixed for the life of the
     * ensemble.
     *
     * @param id a server id
     * @return the port on 127.0.0.1
     * @throws IllegalArgumentException if there is no such server
     */
    public int clientPort(int id) {
        requireStarted();
        return server(id).servingPort();
    }

    /**
     * Server {@code id}'s plaintext client port, which the kit's four-letter words use: the same as
     * {@link #clientPort(int)} without TLS.
     *
     * @param id a server id
     * @return the port on 127.0.0.1
     * @throws IllegalArgumentException if there is no such server
     */
    public int plaintextClientPort(int id) {
        requireStarted();
        return server(id).clientPort;
    }

    /**
     * How the servers secure their clients.
     *
     * @return the settings; {@link ServerSecurity#NONE} by default
     */
    public ServerSecurity security() {
        return settings.security;
    }

    /**
     * The file that receives server {@code id}'s standard output and error (ZooKeeper's log), across restarts.
     *
     * @param id a server id
     * @return the log file (deleted by {@link #close()})
     */
    public Path logFile(int id) {
        return server(id).logFile;
    }

    /**
     * The process of server {@code id}, e.g. to find its pid.
     *
     * @param id a server id
     * @return its process handle, or empty if it is not running
     */
    public Optional<ProcessHandle> process(int id) {
        Process p = server(id).process;
        return p != null && p.isAlive() ? Optional.of(p.toHandle()) : Optional.empty();
    }

    /**
     * Kills server {@code id} hard (SIGKILL), as a crash would, and waits until its process is gone. Does
     * nothing if it is not running.
     *
     * @param id a server id
     * @throws IllegalArgumentException if there is no such server
     * @throws IllegalStateException if the ensemble is not running
     */
    public void kill(int id) {
        synchronized (lock) {
            requireRunning();
            server(id).killProcess();
            LOG.info("ensemble {}: killed server {}", name, id);
        }
    }

    /**
     * Stops server {@code id} gracefully (SIGTERM, resuming it first if paused), waiting for the process to
     * end; falls back to SIGKILL after 15 seconds. Does nothing if it is not running.
     *
     * @param id a server id
     * @throws IllegalStateException if the ensemble is not running
     */
    public void stop(int id) {
        synchronized (lock) {
            requireRunning();
            server(id).stopProcess();
            LOG.info("ensemble {}: stopped server {}", name, id);
        }
    }

    /**
     * Starts server {@code id} again, with its data and on its ports, and waits until it answers on its client
     * port; when a majority of servers runs and no peer link is partitioned, waits until it serves as well.
     * Does nothing if it is running.
     *
     * @param id a server id
     * @throws IllegalStateException if the ensemble is not running, or the server does not come up within the
     *     start timeout
     */
    public void start(int id) {
        synchronized (lock) {
            requireRunning();
            Server s = server(id);
            if (s.isRunning()) {
                return;
            }
            long deadline = System.nanoTime() + settings.startTimeout.toNanos();
            s.launchRetryingBusyPorts(deadline);
            if (runningServers().size() >= majority() && !anyPeerPartition()) {
                s.awaitServing(deadline);
            } else {
                s.awaitAnswering(deadline);
            }
            LOG.info("ensemble {}: started server {}", name, id);
        }
    }

    /**
     * Stops server {@code id} gracefully if it runs, then starts it again; see {@link #stop(int)} and
     * {@link #start(int)}.
     *
     * @param id a server id
     */
    public void restart(int id) {
        synchronized (lock) {
            stop(id);
            start(id);
        }
    }

    /**
     * Stops server {@code id} gracefully if it runs, then starts it on another ZooKeeper release line with its
     * data (snapshots and transaction logs) and on its ports, as an operator upgrades (or downgrades) one server of
     * a rolling upgrade; waits as {@link #start(int)} does and, once the server serves, checks that it reports the
     * new version. The release stays the server's for later starts. Restarting on the release the server already
     * runs is a plain {@link #restart(int)}.
     *
     * @param id a server id
     * @param version a release line such as {@code 3.9}, or that line's full version such as {@code 3.9.5}; its
     *     module ({@code dev.baton:baton-zookeeper-server-<line>}) must be on the class path, as for
     *     {@link Builder#serverVersion(String)}
     * @throws IllegalArgumentException if there is no such server, or no such release on the class path (the
     *     message names the lines that are)
     * @throws IllegalStateException if the ensemble is not running, its servers are secured (security needs this
     *     JVM's ZooKeeper), or the server does not come up on the new release within the start timeout
     */
    public void restart(int id, String version) {
        synchronized (lock) {
            Objects.requireNonNull(version, "version");
            Server s = server(id);
            ServerReleases.Release release = ServerReleases.find(version);
            requireRunning();
            if (settings.security != ServerSecurity.NONE) {
                throw new IllegalStateException("ensemble " + name + " is secured, which needs the servers of this "
                        + "JVM's ZooKeeper; it cannot move server " + id + " to " + release.version());
            }
            String before = s.version;
            stop(id);
            s.version = release.version();
            s.classpath = release.classpath();
            start(id);
            if (s.isRunning() && isServing(id)) {
                Optional<String> reported = reportedVersion(id);
                if (reported.isPresent() && !reported.get().equals(release.version())) {
                    throw new IllegalStateException("server " + id + " of ensemble " + name + " was started on "
                            + release.version() + " but reports " + reported.get());
                }
            }
            LOG.info("ensemble {}: server {} restarted on {} (was {})", name, id, release.version(), before);
        }
    }

    /**
     * Waits until every server runs and serves (as leader or follower) and one of them leads: a healthy quorum,
     * e.g. between the steps of a rolling upgrade.
     *
     * @param timeout the longest wait
     * @return the leader's id
     * @throws IllegalStateException if a server is down, or the quorum is not whole after {@code timeout}
     */
    public int awaitAllServing(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Integer> down = servers.values().stream().filter(s -> !s.isRunning()).map(s -> s.id).toList();
            if (!down.isEmpty()) {
                throw new IllegalStateException("servers " + down + " of ensemble " + name + " are down");
            }
            if (servers.keySet().stream().allMatch(this::isServing)) {
                Optional<Integer> leader = findLeader();
                if (leader.isPresent()) {
                    return leader.get();
                }
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("ensemble " + name + " not whole after " + timeout + ": "
                        + describe());
            }
            sleepMillis(100);
        }
    }

    /**
     * Kills the current leader hard; see {@link #kill(int)}.
     *
     * @return the id of the killed leader
     * @throws IllegalStateException if there is no leader within the start timeout
     */
    public int killLeader() {
        synchronized (lock) {
            int leader = awaitLeader(settings.startTimeout);
            kill(leader);
            return leader;
        }
    }

    /**
     * Kills servers hard until fewer than a majority run (the leader among them), so the survivors stop
     * serving. {@link #regainQuorum()} starts them again.
     *
     * @return the ids of the killed servers
     */
    public Set<Integer> loseQuorum() {
        synchronized (lock) {
            requireRunning();
            Set<Integer> killed = new TreeSet<>();
            Optional<Integer> leader = findLeader();
            leader.ifPresent(id -> {
                kill(id);
                killed.add(id);
            });
            for (Server s : servers.values()) {
                if (runningServers().size() < majority()) {
                    break;
                }
                if (s.isRunning()) {
                    kill(s.id);
                    killed.add(s.id);
                }
            }
            return killed;
        }
    }

    /**
     * Starts every server that is not running and waits until a leader serves and, unless a peer link is
     * partitioned, until every server it started serves too.
     *
     * @return the leader's id
     * @throws IllegalStateException if no leader serves within the start timeout
     */
    public int regainQuorum() {
        synchronized (lock) {
            requireRunning();
            long deadline = System.nanoTime() + settings.startTimeout.toNanos();
            List<Server> started = new ArrayList<>();
            for (Server s : servers.values()) {
                if (!s.isRunning()) {
                    s.launchRetryingBusyPorts(deadline);
                    started.add(s);
                }
            }
            int leader = awaitLeaderUntil(deadline);
            if (!anyPeerPartition()) {
                for (Server s : started) {
                    s.awaitServing(deadline);
                }
            }
            return leader;
        }
    }

    private boolean anyPeerPartition() {
        return peerProxies.values().stream().anyMatch(p -> p.partitionMode().isPresent());
    }

    /**
     * Pauses server {@code id}'s JVM with SIGSTOP, as a long GC pause would: its connections stay open, but it
     * answers nothing until {@link #resume(int)}.
     *
     * @param id a server id
     * @throws IllegalStateException if the server is not running
     */
    public void pause(int id) {
        synchronized (lock) {
            Server s = server(id);
            Process p = s.process;
            if (p == null || !p.isAlive()) {
                throw new IllegalStateException("server " + id + " is not running");
            }
            Signals.send(p.pid(), "STOP");
            s.paused = true;
        }
    }

    /**
     * Resumes server {@code id} after {@link #pause(int)} with SIGCONT. Does nothing if it is not paused.
     *
     * @param id a server id
     */
    public void resume(int id) {
        synchronized (lock) {
            Server s = server(id);
            Process p = s.process;
            if (s.paused && p != null && p.isAlive()) {
                Signals.send(p.pid(), "CONT");
            }
            s.paused = false;
        }
    }

    /**
     * The client proxy of server {@code id}, for finer control than {@link #partitionClient}.
     *
     * @param id a server id
     * @return the proxy in front of its client port
     * @throws IllegalStateException if client proxies are not enabled
     */
    public TcpProxy clientProxy(int id) {
        server(id);
        TcpProxy p = clientProxies.get(id);
        if (p == null) {
            throw new IllegalStateException("client proxies are not enabled; use builder().clientProxies(true)");
        }
        return p;
    }

    /**
     * Cuts every client (those using {@link #connectString()} or a {@link ClientLink}) from server {@code id}.
     *
     * @param id a server id
     * @param mode the kind of partition
     * @throws IllegalStateException if client proxies are not enabled
     */
    public void partitionClient(int id, TcpProxy.Mode mode) {
        clientProxy(id).partition(mode);
    }

    /**
     * Heals the partition between clients and server {@code id}.
     *
     * @param id a server id
     * @throws IllegalStateException if client proxies are not enabled
     */
    public void healClient(int id) {
        clientProxy(id).heal();
    }

    /**
     * Cuts server {@code id} from all its peers, both ways, by closing every peer connection and refusing new
     * ones. In a minority the server stops serving (its clients are disconnected); the majority elects a new
     * leader if it was the leader. Clients can still reach it.
     *
     * @param id a server id
     * @throws IllegalStateException if peer proxies are not enabled
     */
    public void isolate(int id) {
        isolate(id, TcpProxy.Mode.DROP);
    }

    /**
     * Cuts server {@code id} from all its peers, both ways, in the given mode.
     *
     * @param id a server id
     * @param mode {@link TcpProxy.Mode#DROP} (noticed at once) or {@link TcpProxy.Mode#BLACKHOLE} (noticed
     *     after ZooKeeper's sync limit)
     * @throws IllegalStateException if peer proxies are not enabled
     */
    public void isolate(int id, TcpProxy.Mode mode) {
        Objects.requireNonNull(mode, "mode");
        server(id);
        requirePeerProxies();
        for (Map.Entry<PeerLink, TcpProxy> e : peerProxies.entrySet()) {
            if (e.getKey().from == id || e.getKey().to == id) {
                e.getValue().partition(mode);
            }
        }
        LOG.info("ensemble {}: isolated server {} ({})", name, id, mode);
    }

    /**
     * Cuts the link between servers {@code a} and {@code b}, both ways.
     *
     * @param a a server id
     * @param b another server id
     * @param mode the kind of partition
     * @throws IllegalArgumentException if {@code a == b} or either is not a server
     * @throws IllegalStateException if peer proxies are not enabled
     */
    public void partitionPeers(int a, int b, TcpProxy.Mode mode) {
        Objects.requireNonNull(mode, "mode");
        server(a);
        server(b);
        if (a == b) {
            throw new IllegalArgumentException("a server cannot be partitioned from itself: " + a);
        }
        requirePeerProxies();
        for (Map.Entry<PeerLink, TcpProxy> e : peerProxies.entrySet()) {
            PeerLink l = e.getKey();
            if ((l.from == a && l.to == b) || (l.from == b && l.to == a)) {
                e.getValue().partition(mode);
            }
        }
    }

    /** Heals every partition between servers. */
    public void healPeers() {
        peerProxies.values().forEach(TcpProxy::heal);
    }

    /**
     * Heals everything: peer partitions, client partitions, partitions of every open {@link ClientLink}, and
     * removes all latency. Paused or stopped servers stay as they are.
     */
    public void healAll() {
        for (TcpProxy p : allProxies()) {
            p.heal();
            p.latency(Duration.ZERO);
        }
        for (ClientLink link : clientLinks) {
            link.heal();
            link.latency(Duration.ZERO);
        }
    }

    /**
     * Adds latency between clients and server {@code id}; see {@link TcpProxy#latency(Duration)}.
     *
     * @param id a server id
     * @param latency zero or more
     * @throws IllegalStateException if client proxies are not enabled
     */
    public void clientLatency(int id, Duration latency) {
        clientProxy(id).latency(latency);
    }

    /**
     * Adds latency on every link from and to server {@code id}'s peers.
     *
     * @param id a server id
     * @param latency zero or more
     * @throws IllegalStateException if peer proxies are not enabled
     */
    public void peerLatency(int id, Duration latency) {
        server(id);
        requirePeerProxies();
        peerProxies.forEach((l, p) -> {
            if (l.from == id || l.to == id) {
                p.latency(latency);
            }
        });
    }

    /**
     * Opens a private network path for one client; see {@link ClientLink}. Closed with the ensemble if not
     * before.
     *
     * @return a new link
     * @throws IllegalStateException if the ensemble is not running
     */
    public ClientLink newClientLink() {
        requireRunning();
        Map<Integer, Integer> targets = new LinkedHashMap<>();
        for (Server s : servers.values()) {
            TcpProxy p = clientProxies.get(s.id);
            targets.put(s.id, p != null ? p.port() : s.servingPort());
        }
        ClientLink link = new ClientLink(name + "-link" + linkNumbers.incrementAndGet(), targets,
                clientLinks::remove);
        clientLinks.add(link);
        return link;
    }

    /**
     * Expires a session on the ensemble, straight through the running servers' own plaintext ports (never a
     * proxy), as {@link SessionExpirer} does; for a client in another process that reported its session id and
     * password. Returns once the servers refuse the session; its owner sees {@code Expired} when it next reaches a
     * server. Not possible when the servers require authentication (the expirer does not authenticate).
     *
     * @param sessionId the session id
     * @param password the session password
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the ensemble is not running or the session survives 30 seconds
     */
    public void expireSession(long sessionId, byte[] password) throws InterruptedException {
        requireRunning();
        String cs = runningServers().stream().filter(s -> !s.paused).map(s -> "127.0.0.1:" + s.clientPort)
                .collect(Collectors.joining(","));
        if (cs.isEmpty()) {
            throw new IllegalStateException("no running server in ensemble " + name);
        }
        SessionExpirer.expire(cs, sessionId, password, EXPIRY_TIMEOUT);
    }

    /**
     * Expires the session of an in-process handle; see {@link #expireSession(long, byte[])}.
     *
     * @param victim the handle, not touched
     * @throws InterruptedException if interrupted while waiting
     */
    public void expireSession(ZooKeeper victim) throws InterruptedException {
        Objects.requireNonNull(victim, "victim");
        expireSession(victim.getSessionId(), victim.getSessionPasswd());
    }

    /**
     * Copies every server's log to {@code directory} as {@code server-<id>.log}, e.g. to keep them after a
     * failed test (the ensemble's own directory is deleted by {@link #close()}).
     *
     * @param directory created if missing
     * @throws UncheckedIOException if copying fails
     */
    public void copyLogsTo(Path directory) {
        try {
            Files.createDirectories(directory);
            for (Server s : servers.values()) {
                if (Files.exists(s.logFile)) {
                    Files.copy(s.logFile, directory.resolve("server-" + s.id + ".log"),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy logs to " + directory, e);
        }
    }

    /**
     * The ensemble's temporary directory (deleted by {@link #close()}).
     *
     * @return the root directory
     */
    public Path directory() {
        return root;
    }

    /**
     * Kills every server hard, waits for the processes to end, closes every proxy and client link and deletes
     * the temporary directory. Idempotent.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            new ArrayList<>(clientLinks).forEach(ClientLink::close);
            tearDown();
            KitResources.deleteTempDirectory(root);
            LOG.info("ensemble {} closed", name);
        }
    }

    /**
     * Whether {@link #close()} was called.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return state == State.CLOSED;
    }

    /** The name, ports and server states, for test output. */
    @Override
    public String toString() {
        return "ZooKeeperEnsemble[" + name + " " + state + " " + describe() + "]";
    }

    private String describe() {
        return servers.values().stream().map(s -> s.id + "=" + s.version + " " + (s.isRunning()
                ? (s.paused ? "paused" : s.mode().orElse("not-serving")) : "down") + ":" + s.clientPort)
                .collect(Collectors.joining(", ", "{", "}"));
    }

    private List<TcpProxy> allProxies() {
        List<TcpProxy> all = new ArrayList<>(clientProxies.values());
        all.addAll(peerProxies.values());
        return all;
    }

    private List<Server> runningServers() {
        return servers.values().stream().filter(Server::isRunning).collect(Collectors.toList());
    }

    private Server server(int id) {
        Server s = servers.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no server " + id + " in ensemble " + name + " (ids "
                    + servers.keySet() + ")");
        }
        return s;
    }

    private void requireStarted() {
        if (state == State.NEW) {
            throw new IllegalStateException("ensemble " + name + " is not started");
        }
    }

    private void requireRunning() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("ensemble " + name + " is " + state.name().toLowerCase(Locale.ROOT));
        }
    }

    /** The proxy of a peer link; they all exist from {@link #createProxies()} until {@link #tearDown()}. */
    private TcpProxy peerProxy(PeerLink link) {
        TcpProxy p = peerProxies.get(link);
        if (p == null) {
            throw new IllegalStateException("no proxy for " + link + " in ensemble " + name);
        }
        return p;
    }

    private void requirePeerProxies() {
        if (!settings.peerProxies) {
            throw new IllegalStateException("peer proxies are not enabled; use builder().peerProxies(true)");
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** A directed peer connection: from a server to a peer's quorum or election port. */
    private record PeerLink(int from, int to, boolean election) {
    }

    /** A server's port could not be bound. */
    private static final class PortTakenException extends IllegalStateException {
        PortTakenException(String message) {
            super(message);
        }
    }

    /**
     * One server: its files, ports and process. Its fields are written under the ensemble's {@code lock} and are
     * volatile because the accessors read them without it.
     */
    private final class Server {

        final int id;
        final Path dir;
        final Path config;
        final Path dataDir;
        final Path logFile;
        /** The plaintext client port (four-letter words; the clients' port without TLS). */
        volatile int clientPort;
        /** The TLS client port; 0 without TLS. */
        volatile int secureClientPort;
        volatile int quorumPort;
        volatile int electionPort;
        /** The process of the last launch; null before the first. */
        volatile @Nullable Process process;
        volatile boolean paused;
        /** The release this server runs (from its next launch on, once changed) and that release's class path. */
        volatile String version;
        volatile String classpath;
        /** Where the log of the current launch begins. */
        volatile long logOffset;

        Server(int id, Path dir) {
            this.id = id;
            this.dir = dir;
            this.config = dir.resolve("zoo.cfg");
            this.dataDir = dir.resolve("data");
            this.logFile = dir.resolve("server.log");
            // Builder.build() chose both if they were not set.
            this.version = Objects.requireNonNull(settings.serverVersion, "serverVersion");
            this.classpath = Objects.requireNonNull(settings.classpath, "classpath");
        }

        boolean isRunning() {
            Process p = process;
            return p != null && p.isAlive();
        }

        /** The port clients use: the TLS one with TLS. */
        int servingPort() {
            return secureClientPort != 0 ? secureClientPort : clientPort;
        }

        Optional<String> mode() {
            return FourLetterWords.send(clientPort, "srvr", FOUR_LETTER_TIMEOUT_MS).flatMap(FourLetterWords::mode);
        }

        void writeConfig() {
            // Builder.build() chose the minimum if it was not set.
            Duration minSessionTimeout = Objects.requireNonNull(settings.minSessionTimeout, "minSessionTimeout");
            StringBuilder cfg = new StringBuilder();
            int tick = Math.toIntExact(settings.tickTime.toMillis());
            cfg.append("tickTime=").append(tick).append('\n')
                    .append("initLimit=20\n")
                    .append("syncLimit=10\n")
                    .append("dataDir=").append(dataDir.toAbsolutePath()).append('\n')
                    .append("minSessionTimeout=").append(minSessionTimeout.toMillis()).append('\n')
                    .append("maxSessionTimeout=").append(settings.maxSessionTimeout.toMillis()).append('\n')
                    .append("maxClientCnxns=0\n")
                    .append("standaloneEnabled=false\n")
                    .append("reconfigEnabled=").append(settings.reconfigEnabled).append('\n')
                    .append("4lw.commands.whitelist=*\n")
                    .append("admin.enableServer=false\n")
                    .append("forceSync=no\n")
                    .append("cnxTimeout=2000\n");
            if (secureClientPort != 0) {
                cfg.append("secureClientPort=").append(secureClientPort).append('\n');
            }
            settings.extraConfig.forEach((k, v) -> cfg.append(k).append('=').append(v).append('\n'));
            for (Server peer : servers.values()) {
                int quorum = peer.quorumPort;
                int election = peer.electionPort;
                if (peer.id != id && settings.peerProxies) {
                    quorum = peerProxy(new PeerLink(id, peer.id, false)).port();
                    election = peerProxy(new PeerLink(id, peer.id, true)).port();
                }
                cfg.append("server.").append(peer.id).append("=127.0.0.1:").append(quorum).append(':')
                        .append(election).append(":participant;127.0.0.1:").append(peer.clientPort).append('\n');
            }
            try {
                Files.createDirectories(dataDir);
                Files.writeString(dataDir.resolve("myid"), id + "\n", StandardCharsets.US_ASCII);
                Files.writeString(config, cfg.toString(), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the configuration of server " + id, e);
            }
        }

        void launch() {
            List<String> jvmArgs = new ArrayList<>();
            jvmArgs.add("-Dzookeeper.extendedTypesEnabled=true");
            jvmArgs.add("-Dzookeeper.admin.enableServer=false");
            jvmArgs.add("-Dzookeeper.4lw.commands.whitelist=*");
            jvmArgs.add("-Dzookeeper.forceSync=no");
            jvmArgs.add("-Dzookeeper.snapshot.trust.empty=true");
            jvmArgs.add("-Dzookeeper.jmx.log4j.disable=true");
            jvmArgs.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
            jvmArgs.add("-Dbaton.kit.server=" + name + "-" + id);
            jvmArgs.addAll(securityArgs());
            jvmArgs.addAll(settings.jvmArgs);
            List<String> command = JavaCommand.build(classpath, settings.heap, jvmArgs,
                    OrphanGuard.class.getName(), List.of(QUORUM_PEER_MAIN, config.toAbsolutePath().toString()));
            try {
                logOffset = Files.exists(logFile) ? Files.size(logFile) : 0;
                Files.writeString(logFile, "=== baton: starting server " + id + ": " + String.join(" ", command)
                        + "\n", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                        java.nio.file.StandardOpenOption.APPEND);
                ProcessBuilder builder = new ProcessBuilder(command)
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(Redirect.appendTo(logFile.toFile()));
                Process p = KitResources.start(builder);
                process = p;
                paused = false;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start server " + id, e);
            }
        }

        /**
         * The system properties of {@link ServerSecurity}: the Netty factory and {@code zookeeper.ssl.*} with
         * passwords in files, the {@code x509} and {@code sasl} providers, the JAAS file, required authentication.
         */
        List<String> securityArgs() {
            ServerSecurity security = settings.security;
            List<String> args = new ArrayList<>();
            try {
                if (security.tls().isPresent()) {
                    args.add("-Dzookeeper.serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory");
                    args.add("-Dzookeeper.authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider");
                    for (Map.Entry<String, String> e : security.tlsProperties().entrySet()) {
                        if (e.getKey().endsWith(".password")) {
                            Path file = dir.resolve(e.getKey().replace("zookeeper.ssl.", "").replace('.', '-'));
                            Files.writeString(file, e.getValue(), StandardCharsets.UTF_8);
                            args.add("-D" + e.getKey() + "Path=" + file.toAbsolutePath());
                        } else {
                            args.add("-D" + e.getKey() + "=" + e.getValue());
                        }
                    }
                }
                if (security.sasl()) {
                    Path jaas = dir.resolve("jaas.conf");
                    Jaas.writeFile(jaas, "Server", Jaas.serverEntry(security.saslUsers()));
                    args.add("-Djava.security.auth.login.config=" + jaas.toAbsolutePath());
                    args.add("-D" + Jaas.FIPS_MODE + "=false"); // DIGEST-MD5: see Jaas.FIPS_MODE
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the security files of server " + id, e);
            }
            security.authenticationProperties().forEach((k, v) -> args.add("-D" + k + "=" + v));
            return args;
        }

        /** Launches; if the process dies because a port is taken, waits a little and launches again. */
        void launchRetryingBusyPorts(long deadline) {
            while (true) {
                launch();
                try {
                    awaitAnswering(deadline);
                    return;
                } catch (PortTakenException e) {
                    if (System.nanoTime() - deadline >= 0) {
                        throw e;
                    }
                    LOG.debug("server {}: {}; retrying", id, e.getMessage());
                    sleepMillis(500);
                }
            }
        }

        void awaitAnswering(long deadline) {
            awaitFourLetter(deadline, answer -> answer.contains("imok"), "ruok");
        }

        void awaitServing(long deadline) {
            awaitFourLetter(deadline, answer -> FourLetterWords.mode(answer).isPresent(), "srvr");
        }

        private void awaitFourLetter(long deadline, java.util.function.Predicate<String> ok, String command) {
            while (true) {
                Process p = process;
                if (p == null || !p.isAlive()) {
                    String tail = logTail();
                    if (tail.contains("Address already in use") || tail.contains("BindException")) {
                        throw new PortTakenException("server " + id + " could not bind a port");
                    }
                    throw new IllegalStateException("server " + id + " of ensemble " + name + " exited ("
                            + (p == null ? "never started" : "code " + p.exitValue()) + "); log " + logFile
                            + " ends with:\n" + tail);
                }
                Optional<String> answer = FourLetterWords.send(clientPort, command, FOUR_LETTER_TIMEOUT_MS);
                if (answer.isPresent() && ok.test(answer.get())) {
                    return;
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("server " + id + " of ensemble " + name + " did not answer "
                            + command + " as expected within " + settings.startTimeout + " (last answer: "
                            + answer.orElse("none") + "); log " + logFile + " ends with:\n" + logTail());
                }
                sleepMillis(100);
            }
        }

        String logTail() {
            try {
                if (!Files.exists(logFile)) {
                    return "";
                }
                byte[] all = Files.readAllBytes(logFile);
                int from = (int) Math.min(logOffset, all.length);
                List<String> lines = List.of(new String(all, from, all.length - from, StandardCharsets.UTF_8)
                        .split("\n"));
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
            } catch (IOException | UncheckedIOException e) {
                return "(cannot read the log: " + e + ")";
            }
        }

        void killProcess() {
            Process p = process;
            if (p != null) {
                if (!KitResources.killAndWait(p, STOP_TIMEOUT.toMillis())) {
                    LOG.warn("server {} of ensemble {} did not die within {}", id, name, STOP_TIMEOUT);
                }
            }
            paused = false;
        }

        void stopProcess() {
            Process p = process;
            if (p == null || !p.isAlive()) {
                return;
            }
            if (paused) {
                Signals.send(p.pid(), "CONT");
                paused = false;
            }
            p.destroy();
            try {
                if (p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    KitResources.forget(p);
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            killProcess();
        }
    }

    /** The copied settings of a {@link Builder}. */
    private static final class Settings {
        int servers = 3;
        boolean clientProxies;
        boolean peerProxies;
        /** Null until set, or until {@link Builder#build()} chooses the default. */
        @Nullable Boolean reconfigEnabled;
        Duration tickTime = Duration.ofMillis(250);
        /** Null until set, or until {@link Builder#build()} chooses the default. */
        @Nullable Duration minSessionTimeout;
        Duration maxSessionTimeout = Duration.ofSeconds(60);
        Duration startTimeout = Duration.ofSeconds(90);
        ServerSecurity security = ServerSecurity.NONE;
        String heap = "128m";
        List<String> jvmArgs = new ArrayList<>();
        /** Null until set, or until {@link Builder#build()} chooses this JVM's. */
        @Nullable String classpath;
        /** The server release, e.g. {@code 3.8.6}; null before {@link Builder#build()} for this JVM's own. */
        @Nullable String serverVersion;
        Map<String, String> extraConfig = new LinkedHashMap<>();

        Settings copy() {
            Settings c = new Settings();
            c.servers = servers;
            c.clientProxies = clientProxies;
            c.peerProxies = peerProxies;
            c.reconfigEnabled = reconfigEnabled;
            c.tickTime = tickTime;
            c.minSessionTimeout = minSessionTimeout;
            c.maxSessionTimeout = maxSessionTimeout;
            c.startTimeout = startTimeout;
            c.security = security;
            c.heap = heap;
            c.jvmArgs = List.copyOf(jvmArgs);
            c.classpath = classpath;
            c.serverVersion = serverVersion;
            c.extraConfig = Collections.unmodifiableMap(new LinkedHashMap<>(extraConfig));
            return c;
        }
    }

    /**
     * Settings for a {@link ZooKeeperEnsemble}. Each option may be set once; setting it again, or combining
     * options that do not go together, throws {@link IllegalStateException}. {@link #build()} copies the
     * settings, so one builder can make several ensembles. Not thread-safe.
     */
    public static final class Builder {

        private final Settings settings = new Settings();
        private final Set<String> set = new LinkedHashSet<>();

        private Builder() {
        }

        /**
         * The number of servers; default 3.
         *
         * @param count from 1 to 9 (3 or 5 are the useful ones)
         * @return this builder
         */
        public Builder servers(int count) {
            once("servers");
            if (count < 1 || count > 9) {
                throw new IllegalArgumentException("servers must be within 1..9: " + count);
            }
            settings.servers = count;
            return this;
        }

        /**
         * Enables (or not) both client proxies and peer proxies; default off.
         *
         * @param enabled whether to proxy
         * @return this builder
         */
        public Builder proxies(boolean enabled) {
            clientProxies(enabled);
            return peerProxies(enabled);
        }

        /**
         * Puts a {@link TcpProxy} in front of each server's client port; {@link #connectString()} then names
         * the proxies. Default off.
         *
         * @param enabled whether to proxy client traffic
         * @return this builder
         */
        public Builder clientProxies(boolean enabled) {
            once("clientProxies");
            settings.clientProxies = enabled;
            return this;
        }

        /**
         * Routes every server's quorum and election traffic to its peers through proxies, so servers can be
         * partitioned from each other. Default off. Needs dynamic reconfiguration off.
         *
         * @param enabled whether to proxy peer traffic
         * @return this builder
         */
        public Builder peerProxies(boolean enabled) {
            once("peerProxies");
            settings.peerProxies = enabled;
            return this;
        }

        /**
         * ZooKeeper's {@code reconfigEnabled}. Default: on without peer proxies, off with them. With it on,
         * {@code /zookeeper/config} lists the servers' own client ports, so a client that tracks the ensemble
         * may leave the client proxies behind.
         *
         * @param enabled whether dynamic reconfiguration is allowed
         * @return this builder
         */
        public Builder reconfigEnabled(boolean enabled) {
            once("reconfigEnabled");
            settings.reconfigEnabled = enabled;
            return this;
        }

        /**
         * The servers' tick; default 250 ms.
         *
         * @param tickTime from 10 ms to 10 s
         * @return this builder
         */
        public Builder tickTime(Duration tickTime) {
            once("tickTime");
            settings.tickTime = requireRange(tickTime, "tickTime", Duration.ofMillis(10), Duration.ofSeconds(10));
            return this;
        }

        /**
         * The shortest session timeout the servers grant; default two ticks.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder minSessionTimeout(Duration timeout) {
            once("minSessionTimeout");
            settings.minSessionTimeout = requireRange(timeout, "minSessionTimeout", Duration.ofMillis(1),
                    Duration.ofDays(1));
            return this;
        }

        /**
         * The longest session timeout the servers grant; default 60 s.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder maxSessionTimeout(Duration timeout) {
            once("maxSessionTimeout");
            settings.maxSessionTimeout = requireRange(timeout, "maxSessionTimeout", Duration.ofMillis(1),
                    Duration.ofDays(1));
            return this;
        }

        /**
         * How long {@link ZooKeeperEnsemble#start()} (and the start of one server) may take; default 90 s,
         * generous for a loaded 2-core machine.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder startTimeout(Duration timeout) {
            once("startTimeout");
            settings.startTimeout = requireRange(timeout, "startTimeout", Duration.ofMillis(1), Duration.ofDays(1));
            return this;
        }

        /**
         * Each server JVM's maximum heap, as for {@code -Xmx}; default {@code "128m"}.
         *
         * @param heap e.g. {@code "96m"}
         * @return this builder
         */
        public Builder heap(String heap) {
            once("heap");
            Objects.requireNonNull(heap, "heap");
            if (!heap.matches("[0-9]+[kKmMgG]?")) {
                throw new IllegalArgumentException("heap must look like 128m: " + heap);
            }
            settings.heap = heap;
            return this;
        }

        /**
         * Extra JVM arguments for every server, after the kit's own.
         *
         * @param args e.g. {@code "-Dzookeeper.maxCnxns=100"}
         * @return this builder
         */
        public Builder jvmArgs(String... args) {
            once("jvmArgs");
            settings.jvmArgs = List.of(args);
            return this;
        }

        /**
         * The classpath of the server JVMs; default this JVM's {@code java.class.path}, which must hold
         * ZooKeeper, its server dependencies (metrics-core, snappy-java) and this kit.
         *
         * @param classpath a classpath string
         * @return this builder
         */
        public Builder classpath(String classpath) {
            once("classpath");
            if (set.contains("serverVersion")) {
                throw new IllegalStateException("serverVersion and classpath cannot both be set");
            }
            settings.classpath = Objects.requireNonNull(classpath, "classpath");
            return this;
        }

        /**
         * Runs servers of another ZooKeeper release than this JVM's: {@code 3.5}, {@code 3.6}, {@code 3.7},
         * {@code 3.8} or {@code 3.9} (or the full version of that line's release, e.g. {@code 3.8.6}). The
         * release's jars are resolved by Maven at build time through the module
         * {@code dev.baton:baton-zookeeper-server-<line>}, which must be a (test) dependency of the caller; nothing
         * is downloaded at run time. Default: the ZooKeeper on this JVM's class path. Security
         * ({@link #security(ServerSecurity)}) needs the default.
         *
         * @param version a release line or version
         * @return this builder
         * @throws IllegalArgumentException if the line has no module on the class path, or the module holds
         *     another release than the version asked for
         * @throws IllegalStateException if already set, or {@link #classpath(String)} was set
         */
        public Builder serverVersion(String version) {
            once("serverVersion");
            if (set.contains("classpath")) {
                throw new IllegalStateException("serverVersion and classpath cannot both be set");
            }
            ServerReleases.Release release = ServerReleases.find(Objects.requireNonNull(version, "version"));
            settings.serverVersion = release.version();
            settings.classpath = release.classpath();
            return this;
        }

        /**
         * TLS, x509 and SASL authentication, and required authentication for every server; see
         * {@link ServerSecurity}. Default {@link ServerSecurity#NONE}.
         *
         * @param security the settings
         * @return this builder
         * @throws IllegalStateException if already set
         */
        public Builder security(ServerSecurity security) {
            once("security");
            settings.security = Objects.requireNonNull(security, "security");
            return this;
        }

        /**
         * An extra {@code zoo.cfg} line for every server, e.g. {@code ("globalOutstandingLimit", "100")}.
         *
         * @param key the configuration key
         * @param value its value
         * @return this builder
         * @throws IllegalStateException if the key was set before
         */
        public Builder serverConfig(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (settings.extraConfig.putIfAbsent(key, value) != null) {
                throw new IllegalStateException("serverConfig " + key + " was already set");
            }
            return this;
        }

        /**
         * Creates an ensemble with these settings and its temporary directory; it is not started.
         *
         * @return a new ensemble
         * @throws IllegalStateException if peer proxies are combined with dynamic reconfiguration
         */
        public ZooKeeperEnsemble build() {
            Settings s = settings.copy();
            if (s.reconfigEnabled == null) {
                s.reconfigEnabled = !s.peerProxies;
            } else if (s.reconfigEnabled && s.peerProxies) {
                throw new IllegalStateException("peer proxies need reconfigEnabled(false): with dynamic "
                        + "reconfiguration a server adopts its leader's view of the peer addresses");
            }
            if (s.minSessionTimeout == null) {
                s.minSessionTimeout = s.tickTime.multipliedBy(2);
            }
            if (s.minSessionTimeout.compareTo(s.maxSessionTimeout) > 0) {
                throw new IllegalStateException("minSessionTimeout " + s.minSessionTimeout
                        + " > maxSessionTimeout " + s.maxSessionTimeout);
            }
            if (s.classpath == null) {
                s.classpath = JavaCommand.currentClasspath();
            }
            if (s.serverVersion == null) {
                s.serverVersion = EmbeddedZooKeeper.zooKeeperVersion();
            } else if (s.security != ServerSecurity.NONE) {
                throw new IllegalStateException("security needs the servers of this JVM's ZooKeeper, not "
                        + s.serverVersion);
            }
            return new ZooKeeperEnsemble(s);
        }

        private void once(String option) {
            if (!set.add(option)) {
                throw new IllegalStateException(option + " was already set");
            }
        }

        private static Duration requireRange(Duration d, String name, Duration min, Duration max) {
            Objects.requireNonNull(d, name);
            if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                throw new IllegalArgumentException(name + " must be within " + min + ".." + max + ": " + d);
            }
            return d;
        }
    }
}
