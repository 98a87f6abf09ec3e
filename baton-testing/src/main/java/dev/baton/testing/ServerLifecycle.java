package dev.baton.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle of an {@link EmbeddedZooKeeper}: new, running, stopped (and running again), closed. It keeps what
 * outlives one run, the client ports and the data directory, and the {@link ServerRun} of the current start.
 * Lifecycle changes are serialized; the state, the ports and the running server may be read from any thread.
 */
final class ServerLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(ServerLifecycle.class);

    private enum State { NEW, RUNNING, STOPPED, CLOSED }

    private final ServerSettings settings;
    private final ServerDataDirectory dataDirectory;
    private final RequestCounter requests;
    private final RequestFaults requestFaults;

    // Serializes the lifecycle. A private lock, not the embedded server itself, so a caller synchronizing on the
    // server cannot stall it.
    private final Object lock = new Object();
    // These four are written only under the lock, and volatile because the accessors read them without it
    // (so they are not @GuardedBy, which would require the lock for reads too).
    private volatile State state = State.NEW;
    private volatile int port;
    /** The plaintext port: {@link #port} without TLS, a port of its own with TLS (0 until the first start). */
    private volatile int plaintextPort;
    /** The running server; null when not running. */
    private volatile @Nullable CountingZooKeeperServer server;
    /** What the current start built; null when not running. */
    @GuardedBy("lock")
    private @Nullable ServerRun run;

    /**
     * Creates the lifecycle of a new server; it is not started.
     *
     * @param port the client port to bind at the first start, 0 for a free one
     * @param requests counts the requests of every run
     * @param requestFaults the faults every run injects into chosen requests
     */
    ServerLifecycle(ServerSettings settings, int port, ServerDataDirectory dataDirectory, RequestCounter requests,
            RequestFaults requestFaults) {
        this.settings = settings;
        this.port = port;
        this.dataDirectory = dataDirectory;
        this.requests = requests;
        this.requestFaults = requestFaults;
    }

    ServerSettings settings() {
        return settings;
    }

    ServerDataDirectory dataDirectory() {
        return dataDirectory;
    }

    /** As {@link EmbeddedZooKeeper#start()}. */
    void start() {
        synchronized (lock) {
            if (state == State.RUNNING) {
                throw new IllegalStateException("ZooKeeper server is already running on port " + port);
            }
            if (state == State.CLOSED) {
                throw new IllegalStateException("ZooKeeper server is closed");
            }
            ServerRun starting = new ServerRun(settings, dataDirectory.path(), lock);
            try {
                CountingZooKeeperServer zks = starting.createServer(requests, requestFaults);
                boolean tls = settings.security().tls().isPresent();
                plaintextPort = starting.startPlaintext(tls ? plaintextPort : port);
                port = tls ? starting.startSecure(port) : plaintextPort;
                starting.startContainers();
                run = starting;
                server = zks;
                state = State.RUNNING;
                LOG.info("ZooKeeper server started on {}:{} with data in {}", ServerRun.HOST, port,
                        dataDirectory.path());
            } catch (IOException e) {
                starting.shutDown();
                throw new UncheckedIOException("cannot start ZooKeeper server on port " + port, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                starting.shutDown();
                throw new IllegalStateException("interrupted while starting ZooKeeper server", e);
            } catch (RuntimeException | Error e) {
                starting.shutDown();
                throw e;
            } catch (Exception e) {
                starting.shutDown();
                throw new IllegalStateException("cannot start ZooKeeper server", e);
            }
        }
    }

    /** As {@link EmbeddedZooKeeper#stop()}. */
    void stop() {
        synchronized (lock) {
            if (state == State.CLOSED) {
                throw new IllegalStateException("ZooKeeper server is closed");
            }
            if (state != State.RUNNING) {
                return;
            }
            shutDown();
            state = State.STOPPED;
            LOG.info("ZooKeeper server on port {} stopped", port);
        }
    }

    /** As {@link EmbeddedZooKeeper#restart()}. */
    void restart() {
        synchronized (lock) {
            stop();
            start();
        }
    }

    /**
     * As {@link EmbeddedZooKeeper#close()}; runs {@code closeLinks} once the server is down and before the data
     * directory is deleted.
     */
    void close(Runnable closeLinks) {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            if (state == State.RUNNING) {
                shutDown();
            }
            state = State.CLOSED;
            closeLinks.run();
            dataDirectory.delete();
            LOG.info("ZooKeeper server on port {} closed, {} deleted", port, dataDirectory.path());
        }
    }

    /** As {@link EmbeddedZooKeeper#isRunning()}. */
    boolean isRunning() {
        CountingZooKeeperServer zks = server;
        return state == State.RUNNING && zks != null && zks.isRunning();
    }

    boolean isClosed() {
        return state == State.CLOSED;
    }

    /** The server while it {@link #isRunning() runs}; null otherwise. */
    @Nullable CountingZooKeeperServer runningServer() {
        CountingZooKeeperServer zks = server;
        return zks != null && isRunning() ? zks : null;
    }

    /** As {@link EmbeddedZooKeeper#port()}. */
    int port() {
        return requireChosen(port);
    }

    /** As {@link EmbeddedZooKeeper#plaintextPort()}. */
    int plaintextPort() {
        return requireChosen(settings.security().tls().isPresent() ? plaintextPort : port);
    }

    /** The address and state, for {@link EmbeddedZooKeeper#toString()}. */
    @Override
    public String toString() {
        return ServerRun.HOST + ":" + port + (settings.security().tls().isPresent() ? " (TLS)" : "") + ", " + state
                + ", " + dataDirectory.path();
    }

    /** Takes down what {@link #start()} built; see {@link ServerRun#shutDown()}. */
    @GuardedBy("lock")
    private void shutDown() {
        if (run != null) {
            run.shutDown();
            run = null;
        }
        server = null;
    }

    private static int requireChosen(int port) {
        if (port == 0) {
            throw new IllegalStateException("ZooKeeper server has not been started yet, so it has no port");
        }
        return port;
    }
}
