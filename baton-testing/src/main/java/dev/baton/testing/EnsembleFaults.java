package dev.baton.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.testing.ZooKeeperEnsemble.Builder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.zookeeper.ZooKeeper;

/**
 * What can be done to a {@link ZooKeeperEnsemble}: kill, stop, start, restart (also on another release), pause and
 * resume its servers, remove them and add them back by dynamic reconfiguration, lose and regain its quorum, cut and
 * slow its clients and peers through the proxies, open client links, expire sessions and keep the logs. These are
 * public methods of {@link ZooKeeperEnsemble}; they live apart from what it reports ({@link EnsembleView}) and from
 * its construction and life cycle. Control methods hold the ensemble's lock.
 */
abstract sealed class EnsembleFaults extends EnsembleView permits ZooKeeperEnsemble {

    private static final Duration EXPIRY_TIMEOUT = Duration.ofSeconds(30);

    /** Servers taken out of the ensemble by {@link #removeMember(int)}. */
    @GuardedBy("lock")
    private final Set<Integer> removed = new TreeSet<>();

    EnsembleFaults(EnsembleSettings settings) {
        super(settings);
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
    @Override
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
     * Removes server {@code id} from the ensemble by dynamic reconfiguration, as an operator's
     * {@code reconfig -remove} would, and returns once the quorum has committed the new membership. The server's
     * process keeps running, outside the ensemble, until {@link #addMember(int)} (or a restart) brings it back;
     * clients that follow the ensemble's configuration move to the other servers. The ensemble must have
     * reconfiguration on ({@link Builder#reconfigEnabled(boolean)}) and must not require client authentication.
     *
     * @param id a server id
     * @return the voting members of the new configuration
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if reconfiguration is off, the ensemble is not running, {@code id} is not a
     *     member, or the quorum refuses the change
     */
    public Set<Integer> removeMember(int id) throws InterruptedException {
        synchronized (lock) {
            EnsembleServer server = reconfigurable(id);
            if (removed.contains(id)) {
                throw new IllegalStateException("server " + id + " is not a member of ensemble " + name);
            }
            List<EnsembleServer> via = probe.runningServers().stream().filter(s -> s.id != id && !s.paused).toList();
            Set<Integer> members = EnsembleReconfig.reconfigure(via, null, server, settings.startTimeout());
            removed.add(id);
            return members;
        }
    }

    /**
     * Adds server {@code id} back after {@link #removeMember(int)}, as {@code reconfig -add} with its old ports
     * would, and waits until every server serves again.
     *
     * @param id a server id
     * @return the voting members of the new configuration
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if reconfiguration is off, the ensemble is not running, {@code id} was not
     *     removed, or the quorum refuses the change or is not whole within the start timeout
     */
    public Set<Integer> addMember(int id) throws InterruptedException {
        synchronized (lock) {
            EnsembleServer server = reconfigurable(id);
            if (!removed.contains(id)) {
                throw new IllegalStateException("server " + id + " is a member of ensemble " + name + " already");
            }
            if (!server.isRunning()) {
                processes.start(server);
            }
            Set<Integer> out = Set.copyOf(removed);
            List<EnsembleServer> via = probe.runningServers().stream()
                    .filter(s -> !out.contains(s.id) && !s.paused).toList();
            Set<Integer> members = EnsembleReconfig.reconfigure(via, server, null, settings.startTimeout());
            removed.remove(id);
            probe.awaitAllServing(settings.startTimeout());
            return members;
        }
    }

    /**
     * The servers removed by {@link #removeMember(int)} and not added back.
     *
     * @return their ids, in order
     */
    public Set<Integer> removedMembers() {
        synchronized (lock) {
            return Collections.unmodifiableSet(new TreeSet<>(removed));
        }
    }

    private EnsembleServer reconfigurable(int id) {
        requireRunning();
        if (!settings.reconfigEnabled()) {
            throw new IllegalStateException("ensemble " + name + " runs with reconfiguration off; build it with "
                    + "reconfigEnabled(true)");
        }
        return server(id);
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
    @Override
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
}
