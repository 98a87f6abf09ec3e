package dev.baton.testing;

import dev.baton.testing.ZooKeeperEnsemble.Builder;
import java.nio.file.Path;
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

/**
 * What a {@link ZooKeeperEnsemble} reports: its servers' releases, connect strings and ports, its size, who leads
 * and who serves, its security and its files and processes. These are public methods of {@link ZooKeeperEnsemble}
 * (through {@link EnsembleFaults}); they live apart so that each class holds one part of the API. This class also
 * holds the ensemble's state and its parts, which the subclasses share: the servers, the network, the probe, the
 * processes and the lock that serializes control.
 */
abstract sealed class EnsembleView permits EnsembleFaults {

    // The work is done by package-private parts, each with one job: EnsembleServer (one server's files, ports and
    // process), ServerConfigFiles (its zoo.cfg and security files), EnsembleProcesses (starting the servers and the
    // process faults), EnsembleNetwork (the proxies and the network faults), QuorumProbe (who leads and serves) and
    // EnsembleOptions (the builder's validation). The three classes of the public API check ids and state, and
    // serialize control.

    private static final AtomicInteger ENSEMBLE_NUMBERS = new AtomicInteger();

    /** Where an ensemble is in its life; it moves only forward. */
    enum State { NEW, RUNNING, CLOSED }

    final EnsembleSettings settings;
    final String name;
    final Path root;
    /** The servers in id order; filled by the constructor, never modified afterwards. */
    final Map<Integer, EnsembleServer> servers;
    final EnsembleNetwork network;
    final QuorumProbe probe;
    final EnsembleProcesses processes;

    // Serializes the control methods. A private lock (private to this package), not the ensemble itself, so a
    // caller synchronizing on the ensemble cannot stall it.
    final Object lock = new Object();

    // Written under the lock; volatile because the accessors read it without the lock (so not @GuardedBy).
    volatile State state = State.NEW;

    /** Makes the servers' files and the parts of an ensemble with these settings; nothing runs yet. */
    EnsembleView(EnsembleSettings settings) {
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

    // Implemented by EnsembleFaults (restart, pause) and ZooKeeperEnsemble (close); declared here because the
    // javadoc below links to them.
    abstract void restart(int id, String version);

    abstract void pause(int id);

    abstract void close();

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
     * Server {@code id}'s data directory: its snapshots and transaction logs (in a {@code version-2}
     * subdirectory), kept across its restarts and upgrades until {@link ZooKeeperEnsemble#close()}.
     *
     * @param id a server id
     * @return the directory
     * @throws IllegalArgumentException if there is no such server
     */
    public Path dataDirectory(int id) {
        return server(id).dataDir;
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
     * Whether the servers allow dynamic reconfiguration ({@link EnsembleFaults#removeMember(int)}).
     *
     * @return ZooKeeper's {@code reconfigEnabled} of this ensemble
     */
    public boolean reconfigEnabled() {
        return settings.reconfigEnabled();
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
     * The ensemble's temporary directory (deleted by {@link #close()}).
     *
     * @return the root directory
     */
    public Path directory() {
        return root;
    }

    /** The server of id {@code id}; throws {@link IllegalArgumentException} if there is none. */
    final EnsembleServer server(int id) {
        EnsembleServer s = servers.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no server " + id + " in ensemble " + name + " (ids "
                    + servers.keySet() + ")");
        }
        return s;
    }

    /** Throws {@link IllegalStateException} if {@code start()} was never called. */
    final void requireStarted() {
        if (state == State.NEW) {
            throw new IllegalStateException("ensemble " + name + " is not started");
        }
    }

    /** Throws {@link IllegalStateException} unless the ensemble was started and is not closed. */
    final void requireRunning() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("ensemble " + name + " is " + state.name().toLowerCase(Locale.ROOT));
        }
    }
}
