package dev.baton.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.zookeeper.ZooKeeper;
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

    // The work is done by package-private parts, each with one job: EnsembleServer (one server's files, ports and
    // process), ServerConfigFiles (its zoo.cfg and security files), EnsembleProcesses (starting the servers and the
    // process faults), EnsembleNetwork (the proxies and the network faults), QuorumProbe (who leads and serves) and
    // EnsembleOptions (the builder's validation). This class checks ids and state, and serializes control.

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperEnsemble.class);
    private static final Duration EXPIRY_TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger ENSEMBLE_NUMBERS = new AtomicInteger();

    private enum State { NEW, RUNNING, CLOSED }

    private final EnsembleSettings settings;
    private final String name;
    private final Path root;
    /** The servers in id order; filled by the constructor, never modified afterwards. */
    private final Map<Integer, EnsembleServer> servers;
    private final EnsembleNetwork network;
    private final QuorumProbe probe;
    private final EnsembleProcesses processes;

    // Serializes the control methods. A private lock, not the ensemble itself, so a caller synchronizing on the
    // ensemble cannot stall it.
    private final Object lock = new Object();

    // Written under the lock; volatile because the accessors read it without the lock (so not @GuardedBy).
    private volatile State state = State.NEW;

    private ZooKeeperEnsemble(EnsembleSettings settings) {
        this.settings = settings;
        this.name = "e" + ENSEMBLE_NUMBERS.incrementAndGet();
        this.root = KitResources.createTempDirectory("baton-ensemble-");
        Map<Integer, EnsembleServer> all = new TreeMap<>();
        for (int id = 1; id <= settings.servers(); id++) {
            all.put(id, new EnsembleServer(id, root.resolve("server-" + id), name, settings));
        }
        this.servers = Collections.unmodifiableMap(all);
        this.network = new EnsembleNetwork(name, settings, servers);
        this.probe = new QuorumProbe(name, servers);
        this.processes = new EnsembleProcesses(name, settings, servers, probe, network);
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
            processes.startAll();
            state = State.RUNNING;
            LOG.info("ensemble {} of {} servers serving at {}", name, servers.size(), connectString());
            return this;
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
        return server(id).reportedVersion();
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
        return network.proxiedConnectString().orElseGet(this::directConnectString);
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
        return network.connectString(server(id));
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
        return probe.findLeader().orElseThrow(() -> new IllegalStateException("no leader in ensemble " + name
                + " now: " + probe.describe()));
    }

    /**
     * Waits until a server leads and returns it; see {@link #leaderId()}.
     *
     * @param timeout the longest wait
     * @return the leader's id
     * @throws IllegalStateException if there is no leader after {@code timeout}
     */
    public int awaitLeader(Duration timeout) {
        return probe.awaitLeaderUntil(System.nanoTime() + timeout.toNanos());
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
        return probe.awaitNewLeader(formerLeader, timeout);
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
        return server(id).isServing();
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
        EnsembleServer s = server(id);
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
        return FourLetterWords.send(server(id).clientPort, command, EnsembleServer.FOUR_LETTER_TIMEOUT_MS);
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
        return settings.security();
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
            processes.kill(server(id));
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
            processes.stop(server(id));
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
            processes.start(server(id));
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
            EnsembleServer s = server(id);
            ServerReleases.Release release = ServerReleases.find(version);
            requireRunning();
            if (settings.security() != ServerSecurity.NONE) {
                throw new IllegalStateException("ensemble " + name + " is secured, which needs the servers of this "
                        + "JVM's ZooKeeper; it cannot move server " + id + " to " + release.version());
            }
            processes.restart(s, release);
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
        return probe.awaitAllServing(timeout);
    }

    /**
     * Kills the current leader hard; see {@link #kill(int)}.
     *
     * @return the id of the killed leader
     * @throws IllegalStateException if there is no leader within the start timeout
     */
    public int killLeader() {
        synchronized (lock) {
            int leader = awaitLeader(settings.startTimeout());
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
            return processes.loseQuorum();
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
            return processes.regainQuorum();
        }
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
            server(id).pause();
        }
    }

    /**
     * Resumes server {@code id} after {@link #pause(int)} with SIGCONT. Does nothing if it is not paused.
     *
     * @param id a server id
     */
    public void resume(int id) {
        synchronized (lock) {
            server(id).resume();
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
        return network.clientProxy(id);
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
        network.isolate(id, mode);
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
        network.partitionPeers(a, b, mode);
    }

    /** Heals every partition between servers. */
    public void healPeers() {
        network.healPeers();
    }

    /**
     * Heals everything: peer partitions, client partitions, partitions of every open {@link ClientLink}, and
     * removes all latency. Paused or stopped servers stay as they are.
     */
    public void healAll() {
        network.healAll();
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
        network.peerLatency(id, latency);
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
        return network.newClientLink();
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
        String cs = probe.runningServers().stream().filter(s -> !s.paused).map(s -> "127.0.0.1:" + s.clientPort)
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
            for (EnsembleServer s : servers.values()) {
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
            network.closeClientLinks();
            processes.tearDown();
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
        return "ZooKeeperEnsemble[" + name + " " + state + " " + probe.describe() + "]";
    }

    private EnsembleServer server(int id) {
        EnsembleServer s = servers.get(id);
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

    /**
     * Settings for a {@link ZooKeeperEnsemble}. Each option may be set once; setting it again, or combining
     * options that do not go together, throws {@link IllegalStateException}. {@link #build()} copies the
     * settings, so one builder can make several ensembles. Not thread-safe.
     */
    public static final class Builder {

        private final EnsembleOptions options = new EnsembleOptions();

        private Builder() {
        }

        /**
         * The number of servers; default 3.
         *
         * @param count from 1 to 9 (3 or 5 are the useful ones)
         * @return this builder
         */
        public Builder servers(int count) {
            options.servers(count);
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
            options.clientProxies(enabled);
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
            options.peerProxies(enabled);
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
            options.reconfigEnabled(enabled);
            return this;
        }

        /**
         * The servers' tick; default 250 ms.
         *
         * @param tickTime from 10 ms to 10 s
         * @return this builder
         */
        public Builder tickTime(Duration tickTime) {
            options.tickTime(tickTime);
            return this;
        }

        /**
         * The shortest session timeout the servers grant; default two ticks.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder minSessionTimeout(Duration timeout) {
            options.minSessionTimeout(timeout);
            return this;
        }

        /**
         * The longest session timeout the servers grant; default 60 s.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder maxSessionTimeout(Duration timeout) {
            options.maxSessionTimeout(timeout);
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
            options.startTimeout(timeout);
            return this;
        }

        /**
         * Each server JVM's maximum heap, as for {@code -Xmx}; default {@code "128m"}.
         *
         * @param heap e.g. {@code "96m"}
         * @return this builder
         */
        public Builder heap(String heap) {
            options.heap(heap);
            return this;
        }

        /**
         * Extra JVM arguments for every server, after the kit's own.
         *
         * @param args e.g. {@code "-Dzookeeper.maxCnxns=100"}
         * @return this builder
         */
        public Builder jvmArgs(String... args) {
            options.jvmArgs(args);
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
            options.classpath(classpath);
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
            options.serverVersion(version);
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
            options.security(security);
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
            options.serverConfig(key, value);
            return this;
        }

        /**
         * Creates an ensemble with these settings and its temporary directory; it is not started.
         *
         * @return a new ensemble
         * @throws IllegalStateException if peer proxies are combined with dynamic reconfiguration
         */
        public ZooKeeperEnsemble build() {
            return new ZooKeeperEnsemble(options.settings());
        }
    }
}
