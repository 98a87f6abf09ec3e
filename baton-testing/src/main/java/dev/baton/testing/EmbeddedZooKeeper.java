package dev.baton.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.common.ZKConfig;
import org.apache.zookeeper.server.ContainerManager;
import org.apache.zookeeper.server.NIOServerCnxnFactory;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZKDatabase;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    private static final Pattern TOTAL_WATCHES = Pattern.compile("Total watches:(\\d+)");

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

    /** The loopback address the server binds and clients connect to. */
    private static final String HOST = "127.0.0.1";

    /** {@link #HOST} as an address, without a name lookup. */
    private static final InetAddress HOST_ADDRESS = hostAddress();

    /** Bound on {@link #expireSession(ZooKeeper)} and friends when no timeout is given. */
    private static final Duration DEFAULT_EXPIRY_TIMEOUT = Duration.ofSeconds(30);

    /** How long {@link #start()} keeps retrying to re-bind a fixed or previously used port. */
    private static final Duration BIND_RETRY_TIMEOUT = Duration.ofSeconds(10);

    static {
        setPropertyIfAbsent("zookeeper.extendedTypesEnabled", "true");
        setPropertyIfAbsent("zookeeper.forceSync", "no");
        setPropertyIfAbsent("zookeeper.admin.enableServer", "false");
        setPropertyIfAbsent("zookeeper.4lw.commands.whitelist", "*");
    }

    private enum State { NEW, RUNNING, STOPPED, CLOSED }

    private final int tickTimeMs;
    private final int minSessionTimeoutMs;
    private final int maxSessionTimeoutMs;
    private final int maxClientConnections;
    private final int containerCheckIntervalMs;
    private final ServerSecurity security;
    /** The JAAS section of this server's SASL users; null without SASL. */
    private final @Nullable String saslSection;
    private final Path dataDirectory;
    private final RequestCounter requests = new RequestCounter();
    private final AtomicReference<String> dropOnCreate = new AtomicReference<>();
    private final Set<ClientLink> clientLinks = ConcurrentHashMap.newKeySet();
    private final AtomicInteger linkNumbers = new AtomicInteger();
    private final Thread cleanupHook;

    // Serializes the lifecycle. A private lock, not the server itself, so a caller synchronizing on the server
    // cannot stall it.
    private final Object lock = new Object();
    // These four are written only under the lock, and volatile because the accessors read them without it
    // (so they are not @GuardedBy, which would require the lock for reads too).
    private volatile State state = State.NEW;
    private volatile int port;
    /** The plaintext port: {@link #port} without TLS, a port of its own with TLS (0 until the first start). */
    private volatile int plaintextPort;
    /** The running server; null when not running. */
    private volatile @Nullable CountingZooKeeperServer server;
    /** The plaintext factory; null when not running. */
    @GuardedBy("lock")
    private @Nullable NIOServerCnxnFactory connectionFactory;
    /** The TLS factory; null without TLS or when not running. */
    @GuardedBy("lock")
    private @Nullable ServerCnxnFactory secureFactory;
    /** The data directory's transaction log and snapshots; null when not running. */
    @GuardedBy("lock")
    private @Nullable FileTxnSnapLog snapLog;
    /** Deletes empty containers and expired TTL nodes; null when not running. */
    @GuardedBy("lock")
    private @Nullable ContainerManager containerManager;

    /**
     * Creates a server with the default settings (see the class comment). It is not started.
     *
     * @throws UncheckedIOException if the temporary data directory cannot be created
     */
    public EmbeddedZooKeeper() {
        this(new Builder());
    }

    private EmbeddedZooKeeper(Builder builder) {
        this.tickTimeMs = builder.tickTimeMs();
        this.minSessionTimeoutMs = builder.minSessionTimeoutMs(tickTimeMs);
        this.maxSessionTimeoutMs = builder.maxSessionTimeoutMs(tickTimeMs);
        if (minSessionTimeoutMs > maxSessionTimeoutMs) {
            throw new IllegalArgumentException("minSessionTimeout (" + minSessionTimeoutMs
                    + " ms) > maxSessionTimeout (" + maxSessionTimeoutMs + " ms)");
        }
        this.maxClientConnections = builder.maxClientConnections;
        this.containerCheckIntervalMs = builder.containerCheckIntervalMs();
        this.port = builder.port;
        this.security = builder.security != null ? builder.security : ServerSecurity.NONE;
        this.saslSection = security.sasl() ? Jaas.serverSection(security.saslUsers()) : null;
        if (security.sasl()) {
            setPropertyIfAbsent(Jaas.FIPS_MODE, "false");
        }
        try {
            this.dataDirectory = Files.createTempDirectory("baton-zk-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for ZooKeeper", e);
        }
        Path dir = dataDirectory;
        this.cleanupHook = new Thread(() -> Directories.deleteRecursively(dir), "baton-zk-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanupHook);
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
        synchronized (lock) {
            if (state == State.RUNNING) {
                throw new IllegalStateException("ZooKeeper server is already running on port " + port);
            }
            if (state == State.CLOSED) {
                throw new IllegalStateException("ZooKeeper server is closed");
            }
            CountingZooKeeperServer zks = null;
            try {
                FileTxnSnapLog log = new FileTxnSnapLog(dataDirectory.toFile(), dataDirectory.toFile());
                snapLog = log;
                ServerFactories.registerProviders(security);
                zks = ServerFactories.withProperties(security.authenticationProperties(), () ->
                        new CountingZooKeeperServer(log, tickTimeMs, minSessionTimeoutMs, maxSessionTimeoutMs,
                                requests, dropOnCreate));
                boolean tls = security.tls().isPresent();
                NIOServerCnxnFactory plaintext = bind(tls ? plaintextPort : port);
                connectionFactory = plaintext;
                plaintext.startup(zks); // starts the NIO threads, loads the data, starts the request chain
                plaintextPort = plaintext.getLocalPort();
                if (tls) {
                    ServerCnxnFactory secure = startSecure(zks);
                    secureFactory = secure;
                    port = secure.getLocalPort();
                } else {
                    port = plaintextPort;
                }
                ContainerManager containers = new ContainerManager(zks.getZKDatabase(),
                        zks.firstRequestProcessor(), containerCheckIntervalMs, 10_000, 0);
                containerManager = containers;
                containers.start();
                server = zks;
                state = State.RUNNING;
                LOG.info("ZooKeeper server started on {}:{} with data in {}", HOST, port, dataDirectory);
                return this;
            } catch (IOException e) {
                shutDownQuietly(zks);
                throw new UncheckedIOException("cannot start ZooKeeper server on port " + port, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                shutDownQuietly(zks);
                throw new IllegalStateException("interrupted while starting ZooKeeper server", e);
            } catch (RuntimeException | Error e) {
                shutDownQuietly(zks);
                throw e;
            } catch (Exception e) {
                shutDownQuietly(zks);
                throw new IllegalStateException("cannot start ZooKeeper server", e);
            }
        }
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
        synchronized (lock) {
            if (state == State.CLOSED) {
                throw new IllegalStateException("ZooKeeper server is closed");
            }
            if (state != State.RUNNING) {
                return;
            }
            shutDownQuietly(server);
            state = State.STOPPED;
            LOG.info("ZooKeeper server on port {} stopped", port);
        }
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
        synchronized (lock) {
            stop();
            return start();
        }
    }

    /**
     * Stops the server if it is running and deletes its data directory. Calling it again does nothing.
     *
     * @throws UncheckedIOException if the data directory cannot be deleted
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            if (state == State.RUNNING) {
                shutDownQuietly(server);
            }
            state = State.CLOSED;
            clientLinks.forEach(ClientLink::close);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanupHook);
            } catch (IllegalStateException e) {
                // The JVM is shutting down; the hook deletes the directory anyway.
            }
            Directories.deleteRecursively(dataDirectory);
            LOG.info("ZooKeeper server on port {} closed, {} deleted", port, dataDirectory);
        }
    }

    /**
     * Tells whether the server is serving clients.
     *
     * @return {@code true} between {@link #start()} and {@link #stop()}/{@link #close()}, unless ZooKeeper shut
     *     itself down after an internal error
     */
    public boolean isRunning() {
        CountingZooKeeperServer zks = server;
        return state == State.RUNNING && zks != null && zks.isRunning();
    }

    /** Whether {@link #close()} has been called. */
    boolean isClosed() {
        return state == State.CLOSED;
    }

    /**
     * The client port. Stays the same across {@link #stop()} and {@link #restart()}.
     *
     * @return the port on 127.0.0.1 the server listens on
     * @throws IllegalStateException if no port has been chosen yet (never started and no fixed port set)
     */
    public int port() {
        int p = port;
        if (p == 0) {
            throw new IllegalStateException("ZooKeeper server has not been started yet, so it has no port");
        }
        return p;
    }

    /**
     * The connect string clients pass to ZooKeeper, {@code "127.0.0.1:<port>"}: the TLS port when the server
     * has TLS.
     *
     * @return the connect string
     * @throws IllegalStateException if no port has been chosen yet
     */
    public String connectString() {
        return HOST + ":" + port();
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
        if (state == State.CLOSED) {
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
        int p = security.tls().isPresent() ? plaintextPort : port;
        if (p == 0) {
            throw new IllegalStateException("ZooKeeper server has not been started yet, so it has no port");
        }
        return p;
    }

    /**
     * The connect string of {@link #plaintextPort()}.
     *
     * @return {@code "127.0.0.1:<plaintext port>"}
     * @throws IllegalStateException if the server has not been started yet
     */
    public String plaintextConnectString() {
        return HOST + ":" + plaintextPort();
    }

    /**
     * How this server secures its clients.
     *
     * @return the settings; {@link ServerSecurity#NONE} by default
     */
    public ServerSecurity security() {
        return security;
    }

    /**
     * The directory holding this server's snapshots and transaction logs (in a {@code version-2}
     * subdirectory). It exists from construction until {@link #close()}.
     *
     * @return the data directory
     */
    public Path dataDirectory() {
        return dataDirectory;
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
        String answer = FourLetterWords.send(plaintextPort(), "wchs", 5_000).orElseThrow(() ->
                new IllegalStateException("the server on port " + plaintextPort() + " did not answer wchs"));
        Matcher total = TOTAL_WATCHES.matcher(answer);
        if (!total.find()) {
            throw new IllegalStateException("unexpected wchs answer: " + answer);
        }
        return Integer.parseInt(total.group(1));
    }

    /**
     * The paths the server holds watches on now, over all sessions, from its {@code wchp} four-letter word: to
     * check that one recipe left no watch behind, whatever other sessions of a test class still watch.
     *
     * @return the watched paths
     * @throws IllegalStateException if the server does not answer
     */
    public Set<String> watchedPaths() {
        String answer = FourLetterWords.send(port(), "wchp", 5_000)
                .orElseThrow(() -> new IllegalStateException("the server on port " + port() + " did not answer wchp"));
        Set<String> paths = new TreeSet<>();
        for (String line : answer.split("\n", -1)) {
            if (line.startsWith("/")) {
                paths.add(line.trim());
            }
        }
        return paths;
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
        CountingZooKeeperServer zks = server;
        if (zks == null || !isRunning()) {
            return Set.of();
        }
        ZKDatabase db = zks.getZKDatabase();
        return db == null ? Set.of() : Set.copyOf(db.getSessionWithTimeOuts().keySet());
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
        Objects.requireNonNull(password, "password");
        requireRunning();
        if (!security.requiredSchemes().isEmpty()) {
            // The expirer's own handle could not authenticate, and the server would close it unheard.
            expireSession(sessionId);
            return;
        }
        long deadline = System.nanoTime() + DEFAULT_EXPIRY_TIMEOUT.toNanos();
        SessionExpirer.expire(plaintextConnectString(), sessionId, password, DEFAULT_EXPIRY_TIMEOUT);
        awaitSessionGone(sessionId, deadline);
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
        CountingZooKeeperServer zks = requireRunning();
        long deadline = System.nanoTime() + DEFAULT_EXPIRY_TIMEOUT.toNanos();
        if (zks.getZKDatabase().getSessionWithTimeOuts().containsKey(sessionId)) {
            zks.expire(sessionId);
        }
        awaitSessionGone(sessionId, deadline);
    }

    /**
     * Loses the reply to the next create whose path starts with {@code pathPrefix}: the server applies the
     * create, but closes the client's connection just before replying, so the client sees a connection loss
     * for a create that happened (a transaction counts as a create of its first created path). The client
     * reconnects on the same session. One-shot; a later call replaces
     * an unused one.
     *
     * @param pathPrefix the start of the full path (chroot included) of the create to lose the reply of
     * @throws NullPointerException if {@code pathPrefix} is null
     */
    public void dropConnectionOnNextCreate(String pathPrefix) {
        dropOnCreate.set(Objects.requireNonNull(pathPrefix, "pathPrefix"));
    }

    /** A short description with the address and state, for test output. */
    @Override
    public String toString() {
        return "EmbeddedZooKeeper[" + HOST + ":" + port + (security.tls().isPresent() ? " (TLS)" : "") + ", "
                + state + ", " + dataDirectory + "]";
    }

    private CountingZooKeeperServer requireRunning() {
        CountingZooKeeperServer zks = server;
        if (zks == null || !isRunning()) {
            throw new IllegalStateException("ZooKeeper server is not running");
        }
        return zks;
    }

    /**
     * Waits until the closeSession transaction is applied: the session is unknown and owns no ephemerals.
     * (The tracker forgets the session a moment before the data tree drops its ephemerals, hence both checks.)
     */
    private void awaitSessionGone(long sessionId, long deadlineNanos) throws InterruptedException {
        while (true) {
            CountingZooKeeperServer zks = requireRunning();
            ZKDatabase db = zks.getZKDatabase();
            if (!db.getSessionWithTimeOuts().containsKey(sessionId)
                    && db.getDataTree().getEphemerals(sessionId).isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadlineNanos >= 0) {
                throw new IllegalStateException("session 0x" + Long.toHexString(sessionId)
                        + " still alive on the server after " + DEFAULT_EXPIRY_TIMEOUT,
                        new java.util.concurrent.TimeoutException());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    /**
     * Binds the plaintext client port. A port used before (or fixed by the builder) may be briefly held by a
     * socket the OS has not released yet, or picked as an ephemeral port by an outgoing connection while the
     * server was down, so a {@link BindException} is retried for a few seconds.
     */
    private NIOServerCnxnFactory bind(int wanted) throws Exception {
        long deadline = System.nanoTime() + BIND_RETRY_TIMEOUT.toNanos();
        InetSocketAddress address = new InetSocketAddress(HOST_ADDRESS, wanted);
        while (true) {
            NIOServerCnxnFactory factory = new QuietNioServerCnxnFactory();
            try {
                configure(factory, address, false);
                return factory;
            } catch (BindException e) {
                factory.shutdown(); // closes the unbound channel and selectors
                if (wanted == 0 || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                LOG.debug("port {} is busy, retrying", wanted);
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    /**
     * Starts the TLS factory on {@link #port} (a free one at the first start) for {@code zks}, which the
     * plaintext factory has started; a busy port is retried as in {@link #bind(int)}.
     */
    @GuardedBy("lock")
    private ServerCnxnFactory startSecure(CountingZooKeeperServer zks) throws Exception {
        long deadline = System.nanoTime() + BIND_RETRY_TIMEOUT.toNanos();
        InetSocketAddress address = new InetSocketAddress(HOST_ADDRESS, port);
        ZKConfig tls = new ZKConfig();
        security.tlsProperties().forEach(tls::setProperty);
        while (true) {
            ServerCnxnFactory factory = ServerFactories.nettyFactory(tls);
            try {
                configure(factory, address, true);
                factory.startup(zks, false); // binds; the server itself is already started
                return factory;
            } catch (BindException e) {
                factory.shutdown();
                if (port == 0 || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                LOG.debug("TLS port {} is busy, retrying", port);
                TimeUnit.MILLISECONDS.sleep(50);
            } catch (Exception | Error e) {
                factory.shutdown();
                throw e;
            }
        }
    }

    /** Configures a factory; with SASL, while ZooKeeper's server-section property names this server's. */
    private void configure(ServerCnxnFactory factory, InetSocketAddress address, boolean secure) throws Exception {
        if (saslSection == null) {
            factory.configure(address, maxClientConnections, -1, secure);
            return;
        }
        ServerFactories.withProperties(Map.of("zookeeper.sasl.serverconfig", saslSection), () -> {
            factory.configure(address, maxClientConnections, -1, secure);
            return null;
        });
    }

    /**
     * Takes down what {@link #start()} built, in the order {@code ZooKeeperServerMain} uses, and waits for the
     * connection threads to end so the port can be bound again at once.
     */
    @GuardedBy("lock")
    private void shutDownQuietly(@Nullable CountingZooKeeperServer zks) {
        if (containerManager != null) {
            containerManager.stop();
            containerManager = null;
        }
        if (secureFactory != null) {
            secureFactory.shutdown(); // closes the TLS socket and connections; shuts zks down too
            secureFactory = null;
        }
        if (connectionFactory != null) {
            // Closes the listening socket and every connection, joins the NIO threads, then shuts zks down.
            connectionFactory.shutdown();
            connectionFactory = null;
        }
        if (zks != null) {
            try {
                zks.shutdown(true); // no-op if already shut down, then frees the in-memory database
            } catch (RuntimeException e) {
                LOG.warn("error shutting ZooKeeper server down", e);
            }
        }
        if (snapLog != null) {
            try {
                snapLog.close();
            } catch (IOException e) {
                LOG.warn("error closing ZooKeeper transaction log", e);
            }
            snapLog = null;
        }
        server = null;
    }

    private static InetAddress hostAddress() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError("an IPv4 address has four bytes", e);
        }
    }

    private static void setPropertyIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /**
     * Settings for an {@link EmbeddedZooKeeper}. Each option may be set once; setting it again throws
     * {@link IllegalStateException}. {@link #build()} copies the settings, so a builder can make several
     * servers (each with its own data directory and port). Not thread-safe.
     */
    public static final class Builder {

        private static final Duration DEFAULT_TICK_TIME = Duration.ofMillis(500);
        private static final Duration DEFAULT_CONTAINER_CHECK_INTERVAL = Duration.ofSeconds(1);

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
            this.tickTime = requirePositiveMillis(tickTime, "tickTime");
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
            this.minSessionTimeout = requirePositiveMillis(minSessionTimeout, "minSessionTimeout");
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
            this.maxSessionTimeout = requirePositiveMillis(maxSessionTimeout, "maxSessionTimeout");
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
            this.containerCheckInterval = requirePositiveMillis(interval, "containerCheckInterval");
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

        int tickTimeMs() {
            return toMillis(tickTime == null ? DEFAULT_TICK_TIME : tickTime);
        }

        int minSessionTimeoutMs(int tickMs) {
            return minSessionTimeout == null ? Math.multiplyExact(2, tickMs) : toMillis(minSessionTimeout);
        }

        int maxSessionTimeoutMs(int tickMs) {
            return maxSessionTimeout == null ? Math.multiplyExact(40, tickMs) : toMillis(maxSessionTimeout);
        }

        int containerCheckIntervalMs() {
            return toMillis(containerCheckInterval == null ? DEFAULT_CONTAINER_CHECK_INTERVAL
                    : containerCheckInterval);
        }

        private static int toMillis(Duration d) {
            return Math.toIntExact(d.toMillis());
        }

        private static void requireUnset(@Nullable Duration current, String name) {
            if (current != null) {
                throw new IllegalStateException(name + " was already set to " + current);
            }
        }

        private static Duration requirePositiveMillis(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.toMillis() <= 0 || d.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(name + " must be from 1 ms to " + Integer.MAX_VALUE
                        + " ms: " + d);
            }
            return d;
        }
    }
}
