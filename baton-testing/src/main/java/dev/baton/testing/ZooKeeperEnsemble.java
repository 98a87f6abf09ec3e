package dev.baton.testing;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
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
public final class ZooKeeperEnsemble extends EnsembleFaults implements AutoCloseable {

    // What an ensemble reports is in EnsembleView and what can be done to it in EnsembleFaults (both package-private,
    // so their public methods are this class's). This class makes an ensemble and runs its life cycle: start, close.

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperEnsemble.class);

    private ZooKeeperEnsemble(EnsembleSettings settings) {
        super(settings);
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
