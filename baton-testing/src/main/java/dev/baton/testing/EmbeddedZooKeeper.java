package dev.baton.testing;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * A real, standalone ZooKeeper server running inside the test JVM, built from ZooKeeper's own server classes
 * ({@code ZooKeeperServer}, {@code NIOServerCnxnFactory}, {@code FileTxnSnapLog}, {@code ContainerManager}).
 *
 * <p>The server listens on {@code 127.0.0.1} only, on a free port chosen by the operating system at the first
 * {@link #start()} (or a fixed port set with {@link Builder#port(int)}), and keeps its snapshots and
 * transaction log in its own directory made with {@code Files.createTempDirectory("baton-zk-")}. Both survive
 * {@link #stop()} and {@link #restart()}, so a restarted server has the same address, the same znodes and the
 * same sessions: a client that reconnects within its session timeout keeps its session and its ephemeral
 * nodes. {@link #close()} stops the server and deletes the directory; a JVM shutdown hook deletes it too if a
 * test forgets to close.
 *
 * <pre>{@code
 * try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start()) {
 *     ZooKeeper client = new ZooKeeper(zk.connectString(), 10_000, event -> { });
 *     ...
 * }
 * }</pre>
 *
 * <h2>System properties</h2>
 * The first use of this class sets these JVM-wide ZooKeeper system properties, each only if it is not set
 * already (so a build can override them):
 * <ul>
 *   <li>{@code zookeeper.extendedTypesEnabled=true}: enables TTL nodes ({@code CreateMode.PERSISTENT_WITH_TTL},
 *       {@code PERSISTENT_SEQUENTIAL_WITH_TTL}); without it the server answers {@code UnimplementedException}.</li>
 *   <li>{@code zookeeper.forceSync=no}: the transaction log is written but not fsync'ed. Much faster; data
 *       still survives {@link #stop()}/{@link #restart()} because the process (and its page cache) lives on,
 *       but not a machine crash, which does not matter for tests.</li>
 *   <li>{@code zookeeper.admin.enableServer=false}: no Jetty admin server (and no fixed port 8080).</li>
 *   <li>{@code zookeeper.4lw.commands.whitelist=*}: all four-letter-word commands ({@code ruok}, {@code stat},
 *       {@code cons}, ...) are allowed.</li>
 * </ul>
 *
 * <h2>Security</h2>
 * With {@link Builder#security(ServerSecurity)} the server can serve TLS on its client port (ZooKeeper's Netty
 * connection factory, certificates from {@link TlsCertificates}), authenticate TLS clients by their certificate
 * ({@code x509}), run SASL DIGEST-MD5 with users from a JAAS section the kit writes ({@link Jaas}), and close every
 * session that does not authenticate before its first request. A TLS server keeps a second, plaintext port
 * ({@link #plaintextPort()}) for four-letter words and plaintext clients. These settings are this server's own,
 * not JVM-wide system properties: ZooKeeper properties it only reads while a server is being made are set for that
 * moment alone; what stays JVM-wide is the registration of the {@code sasl} and {@code x509} authentication
 * providers and the kit's JAAS login configuration (see {@link Jaas}), and, once a server with SASL users has
 * started, {@code zookeeper.fips-mode=false}: ZooKeeper 3.9.4 and newer refuse DIGEST-MD5 in FIPS mode, their
 * default, and a server reads the setting from the system properties for each connection's SASL exchange.
 *
 * <h2>Defaults</h2>
 * Tick time 500 ms, so negotiated session timeouts lie between 1 s (2 ticks) and 20 s (40 ticks); no limit on
 * connections per client host (tests open many clients from 127.0.0.1); container and expired TTL nodes are
 * looked for every second (ZooKeeper's own default is a minute). See {@link Builder}.
 *
 * <p>Thread-safety: all methods are safe to call from any thread; lifecycle methods are serialized.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    static {
        ServerSettings.setJvmDefaults();
    }

    private final RequestCounter requests = new RequestCounter();
    private final RequestFaults requestFaults = new RequestFaults();
    private final ServerLifecycle lifecycle;
    private final ServerSessions sessions;
    private final Set<ClientLink> clientLinks = ConcurrentHashMap.newKeySet();
    private final AtomicInteger linkNumbers = new AtomicInteger();

    /**
     * Creates a server with the default settings (see the class comment). It is not started.
     *
     * @throws UncheckedIOException if the temporary data directory cannot be created
     */
    public EmbeddedZooKeeper() {
        this(new Builder());
    }

    private EmbeddedZooKeeper(Builder builder) {
        ServerSettings settings = ServerSettings.of(builder.tickTime, builder.minSessionTimeout,
                builder.maxSessionTimeout, builder.maxClientConnections, builder.containerCheckInterval,
                builder.security);
        this.lifecycle = new ServerLifecycle(settings, builder.port, new ServerDataDirectory(), requests,
                requestFaults);
        this.sessions = new ServerSessions(lifecycle);
    }

    /**
     * Returns a builder for a server with non-default settings.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The ZooKeeper release of this JVM's server classes: the one an embedded server runs, and a
     * {@link ZooKeeperEnsemble}'s servers unless given another line.
     *
     * @return a version such as {@code 3.9.5}
     */
    public static String zooKeeperVersion() {
        return org.apache.zookeeper.Version.getFullVersion().split("[- ,]", 2)[0];
    }

    /**
     * Starts the server: binds the port (the same one as before after a {@link #stop()}), loads the znodes and
     * sessions from the data directory and begins serving. Returns once clients can connect.
     *
     * @return this server
     * @throws IllegalStateException if the server is running or closed, or the calling thread was interrupted
     *     (the interrupt flag is then set again)
     * @throws UncheckedIOException if the port cannot be bound or the data cannot be loaded
     */
    public EmbeddedZooKeeper start() {
        lifecycle.start();
        return this;
    }

    /**
     * Stops the server: closes the listening socket and every client connection and shuts the request chain
     * down, waiting for ZooKeeper's threads to end. The data directory and the port number are kept, so
     * {@link #start()} brings the same server back. Clients see {@code Disconnected} and keep trying to
     * reconnect. Stopping a server that is not running does nothing.
     *
     * @throws IllegalStateException if the server is closed
     */
    public void stop() {
        lifecycle.stop();
    }

    /**
     * Stops the server if it is running, then starts it again on the same port with the same data: znodes and
     * sessions survive, and a client that reconnects within its session timeout keeps its session.
     *
     * @return this server
     * @throws IllegalStateException if the server is closed or the calling thread was interrupted
     * @throws UncheckedIOException if the port cannot be bound again or the data cannot be loaded
     */
    public EmbeddedZooKeeper restart() {
        lifecycle.restart();
        return this;
    }

    /**
     * Stops the server if it is running and deletes its data directory. Calling it again does nothing.
     *
     * @throws UncheckedIOException if the data directory cannot be deleted
     */
    @Override
    public void close() {
        lifecycle.close(() -> clientLinks.forEach(ClientLink::close));
    }

    /**
     * Tells whether the server is serving clients.
     *
     * @return {@code true} between {@link #start()} and {@link #stop()}/{@link #close()}, unless ZooKeeper shut
     *     itself down after an internal error
     */
    public boolean isRunning() {
        return lifecycle.isRunning();
    }

    /** Whether {@link #close()} has been called. */
    boolean isClosed() {
        return lifecycle.isClosed();
    }

    /**
     * The client port. Stays the same across {@link #stop()} and {@link #restart()}.
     *
     * @return the port on 127.0.0.1 the server listens on
     * @throws IllegalStateException if no port has been chosen yet (never started and no fixed port set)
     */
    public int port() {
        return lifecycle.port();
    }

    /**
     * The connect string clients pass to ZooKeeper, {@code "127.0.0.1:<port>"}: the TLS port when the server
     * has TLS.
     *
     * @return the connect string
     * @throws IllegalStateException if no port has been chosen yet
     */
    public String connectString() {
        return ServerRun.HOST + ":" + port();
    }

    /**
     * A private network path from one client to this server (a {@link TcpProxy} of its own), so that a test can
     * partition that client alone; see {@link ClientLink}. It follows the server across {@link #stop()} and
     * {@link #start()} (same port); closing the server closes it.
     *
     * @return a new link; connect one client through {@link ClientLink#connectString()}
     * @throws IllegalStateException if the server has not been started yet or is closed
     */
    public ClientLink newClientLink() {
        if (lifecycle.isClosed()) {
            throw new IllegalStateException("ZooKeeper server is closed");
        }
        int target = port();
        ClientLink link = new ClientLink("embedded-link" + linkNumbers.incrementAndGet(), Map.of(1, target),
                clientLinks::remove);
        clientLinks.add(link);
        return link;
    }

    /**
     * The plaintext client port: {@link #port()} without TLS; with TLS, a second port of its own (the kit's
     * four-letter words use it), chosen at the first start and kept across restarts.
     *
     * @return the port on 127.0.0.1
     * @throws IllegalStateException if the server has not been started yet
     */
    public int plaintextPort() {
        return lifecycle.plaintextPort();
    }

    /**
     * The connect string of {@link #plaintextPort()}.
     *
     * @return {@code "127.0.0.1:<plaintext port>"}
     * @throws IllegalStateException if the server has not been started yet
     */
    public String plaintextConnectString() {
        return ServerRun.HOST + ":" + plaintextPort();
    }

    /**
     * How this server secures its clients.
     *
     * @return the settings; {@link ServerSecurity#NONE} by default
     */
    public ServerSecurity security() {
        return lifecycle.settings().security();
    }

    /**
     * The directory holding this server's snapshots and transaction logs (in a {@code version-2}
     * subdirectory). It exists from construction until {@link #close()}.
     *
     * @return the data directory
     */
    public Path dataDirectory() {
        return lifecycle.dataDirectory().path();
    }

    /**
     * The number of client requests the server has received since this object was created or
     * {@link #resetStatistics()} was last called, across restarts.
     *
     * <p>Counted: every request packet a client sends once its session is established, whatever its outcome:
     * reads ({@code getData}, {@code exists}, {@code getChildren}, ...), writes, each {@code multi} as one,
     * watch management ({@code setWatches}, {@code addWatch}, {@code removeWatches}), {@code sync},
     * {@code auth} and {@code closeSession}. Not counted: pings (heartbeats) and the connection handshake
     * ({@code ConnectRequest}), and work the server does by itself (session expiry, container clean-up).
     * A request is counted before its response is sent, so the count includes every request whose
     * response a client has already seen; it is exact, not sampled.
     *
     * @return the request count
     */
    public long requestCount() {
        return requests.total();
    }

    /**
     * The requests counted by {@link #requestCount()}, split by ZooKeeper operation name ({@code "create"},
     * {@code "getData"}, {@code "multi"}, ...), in name order. Operations with no request are left out.
     *
     * @return an immutable snapshot of the counts
     */
    public Map<String, Long> requestCounts() {
        return Map.copyOf(requests.byOperation());
    }

    /**
     * The number of watches the server holds now, over all sessions, from its {@code wchs} four-letter word: a
     * recipe that leaves nothing behind brings it back to where it was.
     *
     * @return the server's total watch count
     * @throws IllegalStateException if the server does not answer
     */
    public int watchCount() {
        return sessions.watchCount();
    }

    /**
     * The paths the server holds watches on now, over all sessions, from its {@code wchp} four-letter word: to
     * check that one recipe left no watch behind, whatever other sessions of a test class still watch.
     *
     * @return the watched paths
     * @throws IllegalStateException if the server does not answer
     */
    public Set<String> watchedPaths() {
        return sessions.watchedPaths();
    }

    /**
     * Sets {@link #requestCount()} and {@link #requestCounts()} back to zero. A request that arrives while
     * the reset is in progress may or may not be counted.
     */
    public void resetStatistics() {
        requests.reset();
    }

    /**
     * The ids of the sessions the server holds now: sessions that are neither expired nor closed, whether or
     * not a client is connected to them at the moment.
     *
     * @return an immutable snapshot; empty if the server is not running
     */
    public Set<Long> liveSessions() {
        return sessions.live();
    }

    /**
     * Expires a session on this server, as {@link SessionExpirer#expire(String, long, byte[], Duration)} does,
     * waiting at most 30 seconds. When this method returns the session is gone and its ephemeral nodes are
     * deleted; the client that owned it receives {@code Expired} when it next reaches the server.
     *
     * @param sessionId the session to expire
     * @param password the session's password ({@code ZooKeeper.getSessionPasswd()})
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws IllegalStateException if the server is not running, or the session is still alive after the
     *     timeout (the cause is then a {@link java.util.concurrent.TimeoutException})
     */
    public void expireSession(long sessionId, byte[] password) throws InterruptedException {
        sessions.expire(sessionId, password);
    }

    /**
     * Expires the session of {@code victim} on this server; see {@link #expireSession(long, byte[])}.
     *
     * @param victim a client handle connected to this server; it is not closed or otherwise touched
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws IllegalStateException if the server is not running, the handle has no session, or the session
     *     is still alive after 30 seconds
     */
    public void expireSession(ZooKeeper victim) throws InterruptedException {
        Objects.requireNonNull(victim, "victim");
        expireSession(victim.getSessionId(), victim.getSessionPasswd());
    }

    /**
     * Ends a session from inside the server, without its password, exactly as the server does when the
     * session's timeout passes. Returns when the session and its ephemeral nodes are gone. Useful when only
     * the session id is at hand.
     *
     * @param sessionId the session to expire; an id the server does not know is not an error
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws IllegalStateException if the server is not running or the session is still alive after 30 s
     */
    public void expireSession(long sessionId) throws InterruptedException {
        sessions.expire(sessionId);
    }

    /**
     * Loses the reply to the next create whose path starts with {@code pathPrefix}: the server applies the
     * create, but closes the client's connection just before replying, so the client sees a connection loss
     * for a create that happened (a transaction counts as a create of its first created path). The client
     * reconnects on the same session. One-shot; a later call replaces an unused one.
     *
     * @param pathPrefix the start of the full path (chroot included) of the create to lose the reply of
     * @throws NullPointerException if {@code pathPrefix} is null
     */
    public void dropConnectionOnNextCreate(String pathPrefix) {
        requestFaults.dropReplyOfNextCreate(Objects.requireNonNull(pathPrefix, "pathPrefix"));
    }

    /**
     * Refuses the deletes and transactions of one session until called again with another (0: none): each such
     * request closes the session's connection unapplied, as if it had died on the way, and the client sees a
     * connection loss and reconnects on the same session. For a request that was never applied, while others may
     * act on the same nodes.
     *
     * @param sessionId the session, or 0 to refuse none
     */
    public void refuseDeletesOf(long sessionId) {
        requestFaults.refuseDeletesOf(sessionId);
    }

    /**
     * How many deletes and transactions {@link #refuseDeletesOf(long)} refused so far.
     *
     * @return the count
     */
    public int deletesRefused() {
        return requestFaults.deletesRefused();
    }

    /** A short description with the address and state, for test output. */
    @Override
    public String toString() {
        return "EmbeddedZooKeeper[" + lifecycle + "]";
    }

    /**
     * Settings for an {@link EmbeddedZooKeeper}. Each option may be set once; setting it again throws
     * {@link IllegalStateException}. {@link #build()} copies the settings, so a builder can make several
     * servers (each with its own data directory and port). Not thread-safe.
     */
    public static final class Builder {

        // Each option is null until set.
        private @Nullable Duration tickTime;
        private @Nullable Duration minSessionTimeout;
        private @Nullable Duration maxSessionTimeout;
        private int maxClientConnections;
        private boolean maxClientConnectionsSet;
        private @Nullable Duration containerCheckInterval;
        private int port;
        private boolean portSet;
        private @Nullable ServerSecurity security;

        private Builder() {
        }

        /**
         * TLS, x509 and SASL authentication, and required authentication; see {@link ServerSecurity}. Default
         * {@link ServerSecurity#NONE}.
         *
         * @param security the settings
         * @return this builder
         * @throws IllegalStateException if already set
         */
        public Builder security(ServerSecurity security) {
            if (this.security != null) {
                throw new IllegalStateException("security was already set to " + this.security);
            }
            this.security = Objects.requireNonNull(security, "security");
            return this;
        }

        /**
         * The server's tick, its unit of time for session expiry. Default 500 ms.
         *
         * @param tickTime a positive duration of at most {@code Integer.MAX_VALUE} ms
         * @return this builder
         * @throws IllegalStateException if already set
         * @throws IllegalArgumentException if not positive
         */
        public Builder tickTime(Duration tickTime) {
            requireUnset(this.tickTime, "tickTime");
            this.tickTime = ServerSettings.requireMillis(tickTime, "tickTime");
            return this;
        }

        /**
         * The smallest session timeout the server grants; a client asking for less gets this. Default two
         * ticks (1 s with the default tick).
         *
         * @param minSessionTimeout a positive duration
         * @return this builder
         * @throws IllegalStateException if already set
         * @throws IllegalArgumentException if not positive
         */
        public Builder minSessionTimeout(Duration minSessionTimeout) {
            requireUnset(this.minSessionTimeout, "minSessionTimeout");
            this.minSessionTimeout = ServerSettings.requireMillis(minSessionTimeout, "minSessionTimeout");
            return this;
        }

        /**
         * The largest session timeout the server grants; a client asking for more gets this. Default 40 ticks
         * (20 s with the default tick).
         *
         * @param maxSessionTimeout a positive duration, not less than the minimum
         * @return this builder
         * @throws IllegalStateException if already set
         * @throws IllegalArgumentException if not positive
         */
        public Builder maxSessionTimeout(Duration maxSessionTimeout) {
            requireUnset(this.maxSessionTimeout, "maxSessionTimeout");
            this.maxSessionTimeout = ServerSettings.requireMillis(maxSessionTimeout, "maxSessionTimeout");
            return this;
        }

        /**
         * The most connections one client host (here always 127.0.0.1) may hold open at once; {@code 0} means
         * no limit. Default 0.
         *
         * @param maxClientConnections zero or a positive count
         * @return this builder
         * @throws IllegalStateException if already set
         * @throws IllegalArgumentException if negative
         */
        public Builder maxClientConnections(int maxClientConnections) {
            if (maxClientConnectionsSet) {
                throw new IllegalStateException("maxClientConnections was already set to "
                        + this.maxClientConnections);
            }
            if (maxClientConnections < 0) {
                throw new IllegalArgumentException("maxClientConnections must be >= 0: " + maxClientConnections);
            }
            this.maxClientConnections = maxClientConnections;
            this.maxClientConnectionsSet = true;
            return this;
        }

        /**
         * How often the server deletes empty container nodes and expired TTL nodes. Default one second;
         * ZooKeeper's own default (one minute) would make TTL and container behaviour untestable.
         *
         * @param interval a positive duration
         * @return this builder
         * @throws IllegalStateException if already set
         * @throws IllegalArgumentException if not positive
         */
        public Builder containerCheckInterval(Duration interval) {
            requireUnset(this.containerCheckInterval, "containerCheckInterval");
            this.containerCheckInterval = ServerSettings.requireMillis(interval, "containerCheckInterval");
            return this;
        }

        /**
         * A fixed client port instead of a free one chosen at the first start. Default 0 (choose).
         *
         * @param port 0, or a port from 1 to 65535
         * @return this builder
         * @throws IllegalStateException if already set
         * @throws IllegalArgumentException if out of range
         */
        public Builder port(int port) {
            if (portSet) {
                throw new IllegalStateException("port was already set to " + this.port);
            }
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be within 0..65535: " + port);
            }
            this.port = port;
            this.portSet = true;
            return this;
        }

        /**
         * Creates a server with these settings and its own data directory. It is not started.
         *
         * @return a new server
         * @throws IllegalArgumentException if the minimum session timeout exceeds the maximum
         * @throws UncheckedIOException if the data directory cannot be created
         */
        public EmbeddedZooKeeper build() {
            return new EmbeddedZooKeeper(this);
        }

        private static void requireUnset(@Nullable Duration current, String name) {
            if (current != null) {
                throw new IllegalStateException(name + " was already set to " + current);
            }
        }
    }
}
