package dev.baton.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.common.ZKConfig;
import org.apache.zookeeper.server.ContainerManager;
import org.apache.zookeeper.server.NIOServerCnxnFactory;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of an {@link EmbeddedZooKeeper}, from its {@code start()} to its {@code stop()}: the ZooKeeper server
 * over the data directory, its plaintext and TLS connection factories, and its container manager. The embedded
 * server builds a run up step by step and takes it down with {@link #shutDown()}, which also takes down a run whose
 * start failed half-way. Every step runs under the embedded server's lifecycle lock, which the run is given.
 */
final class ServerRun {

    private static final Logger LOG = LoggerFactory.getLogger(ServerRun.class);

    /** The loopback address the server binds and clients connect to. */
    static final String HOST = "127.0.0.1";

    /** {@link #HOST} as an address, without a name lookup. */
    private static final InetAddress HOST_ADDRESS = hostAddress();

    /** How long a start keeps retrying to re-bind a fixed or previously used port. */
    private static final Duration BIND_RETRY_TIMEOUT = Duration.ofSeconds(10);

    private final ServerSettings settings;
    private final Path dataDirectory;
    /** The embedded server's lifecycle lock. */
    private final Object lock;

    /** The ZooKeeper server; null until made. */
    @GuardedBy("lock")
    private @Nullable CountingZooKeeperServer server;
    /** The plaintext factory; null until started. */
    @GuardedBy("lock")
    private @Nullable NIOServerCnxnFactory connectionFactory;
    /** The TLS factory; null without TLS or until started. */
    @GuardedBy("lock")
    private @Nullable ServerCnxnFactory secureFactory;
    /** The data directory's transaction log and snapshots; null until opened. */
    @GuardedBy("lock")
    private @Nullable FileTxnSnapLog snapLog;
    /** Deletes empty containers and expired TTL nodes; null until started. */
    @GuardedBy("lock")
    private @Nullable ContainerManager containerManager;

    ServerRun(ServerSettings settings, Path dataDirectory, Object lock) {
        this.settings = settings;
        this.dataDirectory = dataDirectory;
        this.lock = lock;
    }

    /** Opens the transaction log and snapshots and makes the ZooKeeper server over them; it is not started. */
    CountingZooKeeperServer createServer(RequestCounter requests, RequestFaults requestFaults)
            throws Exception {
        synchronized (lock) {
            FileTxnSnapLog log = new FileTxnSnapLog(dataDirectory.toFile(), dataDirectory.toFile());
            snapLog = log;
            CountingZooKeeperServer zks = settings.newServer(log, requests, requestFaults);
            server = zks;
            return zks;
        }
    }

    /**
     * Binds the plaintext client port and starts the server behind it: the NIO threads, the data loaded from the
     * directory, the request chain.
     *
     * @param wanted the port to bind, 0 for a free one
     * @return the bound port
     */
    int startPlaintext(int wanted) throws Exception {
        synchronized (lock) {
            CountingZooKeeperServer zks = requireServer();
            NIOServerCnxnFactory plaintext = bind(wanted);
            connectionFactory = plaintext;
            plaintext.startup(zks);
            return plaintext.getLocalPort();
        }
    }

    /**
     * Starts the TLS factory for the server, which {@link #startPlaintext(int)} has started; a busy port is
     * retried as in {@link #bind(int)}.
     *
     * @param wanted the TLS port, 0 for a free one (at the first start)
     * @return the bound port
     */
    int startSecure(int wanted) throws Exception {
        synchronized (lock) {
            CountingZooKeeperServer zks = requireServer();
            long deadline = System.nanoTime() + BIND_RETRY_TIMEOUT.toNanos();
            InetSocketAddress address = new InetSocketAddress(HOST_ADDRESS, wanted);
            ZKConfig tls = new ZKConfig();
            settings.security().tlsProperties().forEach(tls::setProperty);
            while (true) {
                ServerCnxnFactory factory = ServerFactories.nettyFactory(tls);
                try {
                    settings.configure(factory, address, true);
                    factory.startup(zks, false); // binds; the server itself is already started
                    secureFactory = factory;
                    return factory.getLocalPort();
                } catch (BindException e) {
                    factory.shutdown();
                    if (wanted == 0 || System.nanoTime() - deadline >= 0) {
                        throw e;
                    }
                    LOG.debug("TLS port {} is busy, retrying", wanted);
                    TimeUnit.MILLISECONDS.sleep(50);
                } catch (Exception | Error e) {
                    factory.shutdown();
                    throw e;
                }
            }
        }
    }

    /** Starts looking for empty containers and expired TTL nodes, at the configured interval. */
    void startContainers() {
        synchronized (lock) {
            CountingZooKeeperServer zks = requireServer();
            ContainerManager containers = new ContainerManager(zks.getZKDatabase(), zks.firstRequestProcessor(),
                    settings.containerCheckIntervalMs(), 10_000, 0);
            containerManager = containers;
            containers.start();
        }
    }

    /**
     * Takes down what the steps built, in the order {@code ZooKeeperServerMain} uses, and waits for the connection
     * threads to end so the port can be bound again at once. Logs errors rather than throwing them.
     */
    void shutDown() {
        synchronized (lock) {
            if (containerManager != null) {
                containerManager.stop();
                containerManager = null;
            }
            if (secureFactory != null) {
                secureFactory.shutdown(); // closes the TLS socket and connections; shuts the server down too
                secureFactory = null;
            }
            if (connectionFactory != null) {
                // Closes the listening socket and every connection, joins the NIO threads, then shuts the server
                // down.
                connectionFactory.shutdown();
                connectionFactory = null;
            }
            if (server != null) {
                try {
                    server.shutdown(true); // no-op if already shut down, then frees the in-memory database
                } catch (RuntimeException e) {
                    LOG.warn("error shutting ZooKeeper server down", e);
                }
                server = null;
            }
            if (snapLog != null) {
                try {
                    snapLog.close();
                } catch (IOException e) {
                    LOG.warn("error closing ZooKeeper transaction log", e);
                }
                snapLog = null;
            }
        }
    }

    @GuardedBy("lock")
    private CountingZooKeeperServer requireServer() {
        CountingZooKeeperServer zks = server;
        if (zks == null) {
            throw new IllegalStateException("the ZooKeeper server of this run has not been made");
        }
        return zks;
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
                settings.configure(factory, address, false);
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

    private static InetAddress hostAddress() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new AssertionError("an IPv4 address has four bytes", e);
        }
    }
}
