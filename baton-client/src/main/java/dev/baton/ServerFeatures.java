package dev.baton;

import dev.baton.internal.Failures;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * What the connected server can do, for the calls that need a {@link ServerFeature}.
 *
 * <p>ZooKeeper's protocol does not tell a client the server's release, and a server older than a request fails
 * it with {@code UNIMPLEMENTED} and then (3.5) closes the connection, which every recipe on the client would feel
 * as a disconnection. So before the first such call on a connection, the client asks the server its version with
 * ZooKeeper's {@code srvr} command (on a connection of its own, from the calling thread; a server always answers
 * it on a plaintext port, whatever its four-letter-word whitelist), and a call that the version shows unsupported
 * fails at once, sending nothing. When the version cannot be read (no answer, as from a port that speaks only
 * TLS) the call is sent; an {@code UNIMPLEMENTED} answer is then turned into the same exception and remembered
 * for that server, so the call is not sent there again.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ServerFeatures {
    private static final Pattern VERSION = Pattern.compile("Zookeeper version: (\\d+\\.\\d+\\.\\d+)");
    private static final int PROBE_TIMEOUT_MS = 1_000;
    private static final int MAX_REPLY = 64 * 1024;

    /** The connected server, and its version if it told it (null if not). */
    private record Server(String address, @Nullable String version) {
    }

    private final Object lock = new Object();
    private final ClientCore core;
    /** The connection epoch {@link #probe} asks for. */
    @GuardedBy("lock")
    private long probedEpoch = -1;
    /** The asking of the current connection's server; null before the first. */
    @GuardedBy("lock")
    private @Nullable CompletableFuture<Server> probe;
    /** Features servers answered UNIMPLEMENTED for, by server address. */
    @GuardedBy("lock")
    private final Map<String, Set<ServerFeature>> missing = new HashMap<>();

    ServerFeatures(ClientCore core) {
        this.core = core;
    }

    /**
     * Completes once the connected server is known to have {@code feature} or its version could not be read;
     * fails with {@link UnsupportedServerFeatureException} if it lacks it. In blocking mode the future is done
     * when returned.
     */
    CompletableFuture<Void> require(ServerFeature feature, boolean blocking) {
        return server(blocking).thenCompose(server -> {
            if (server == null) {
                return CompletableFuture.<Void>completedFuture(null); // not connected: the call waits, or fails
            }
            boolean lacks;
            synchronized (lock) {
                lacks = missing.getOrDefault(server.address(), Set.of()).contains(feature);
            }
            String version = server.version();
            if (lacks || (version != null && feature.isMissingIn(version))) {
                return CompletableFuture.<Void>failedFuture(
                        new UnsupportedServerFeatureException(feature, server.address(), version));
            }
            return CompletableFuture.<Void>completedFuture(null);
        });
    }

    /** {@code call}, with an {@code UNIMPLEMENTED} failure turned as {@link #explain} says. */
    <T> CompletableFuture<T> explainFailure(ServerFeature feature, CompletableFuture<T> call, boolean blocking) {
        if (call.isDone() && !call.isCompletedExceptionally()) {
            return call;
        }
        return call.exceptionallyCompose(error -> this.<T>explain(feature, error, blocking));
    }

    /** The connected server's version, asked now if not yet on this connection; empty if not told or not connected. */
    Optional<String> connectedVersion() {
        if (core.session().serverAddress() == null) {
            return Optional.empty();
        }
        Server server = server(true).join();
        return server == null ? Optional.empty() : Optional.ofNullable(server.version());
    }

    /**
     * A failed call that needed {@code feature}: an {@code UNIMPLEMENTED} answer becomes an
     * {@link UnsupportedServerFeatureException} (and is remembered for the server); any other failure stays.
     */
    <T> CompletableFuture<T> explain(ServerFeature feature, Throwable error, boolean blocking) {
        Throwable cause = Failures.unwrap(error);
        if (Failures.code(cause) != KeeperException.Code.UNIMPLEMENTED
                || cause instanceof UnsupportedServerFeatureException) {
            return CompletableFuture.failedFuture(cause);
        }
        return server(blocking).thenCompose(server -> {
            String address = server == null ? "(disconnected)" : server.address();
            if (server != null) {
                synchronized (lock) {
                    missing.computeIfAbsent(address, a -> EnumSet.noneOf(ServerFeature.class)).add(feature);
                }
            }
            UnsupportedServerFeatureException explained = new UnsupportedServerFeatureException(feature, address,
                    server == null ? null : server.version());
            explained.initCause(cause);
            return CompletableFuture.<T>failedFuture(explained);
        });
    }

    /** The connected server, asked its version once per connection; null while not connected. */
    private CompletableFuture<Server> server(boolean blocking) {
        Session session = core.session();
        InetSocketAddress address = session.serverAddress();
        if (address == null) {
            // Not connected: learn of the server once connected (the call would wait for that anyway).
            long waitMs = core.config().connectionTimeout().toMillis();
            if (blocking) {
                try {
                    if (!session.awaitConnected(waitMs) || session.serverAddress() == null) {
                        return CompletableFuture.completedFuture(null);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return CompletableFuture.completedFuture(null); // the call itself then fails
                }
                return server(true);
            }
            return session.whenConnected(waitMs).handle((v, error) -> error)
                    .thenCompose(error -> error != null || session.serverAddress() == null
                            ? CompletableFuture.<Server>completedFuture(null) : server(false));
        }
        long epoch = session.connectionEpoch();
        CompletableFuture<Server> asked;
        boolean mine = false;
        synchronized (lock) {
            if (probe == null || probedEpoch != epoch) {
                probedEpoch = epoch;
                probe = new CompletableFuture<>();
                mine = true;
            }
            asked = probe;
        }
        if (mine) {
            // On the calling thread, even for an asynchronous call: a round trip on a connection that works (at
            // most the probe's timeouts), once per connection, and no thread of the client's is started for it.
            asked.complete(new Server(name(address), version(address)));
        } else if (blocking) {
            asked.join(); // another caller is asking; at most the probe's timeouts
        }
        return asked.thenApply(server -> {
            String version = server.version();
            if (version != null) {
                synchronized (lock) {
                    Set<ServerFeature> known = missing.get(server.address());
                    if (known != null) {
                        // Upgraded since it said so (a setting-bound feature may still be off).
                        known.removeIf(f -> !f.needsSetting() && !f.isMissingIn(version));
                    }
                }
            }
            return server;
        });
    }

    private static String name(InetSocketAddress address) {
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        return host + ":" + address.getPort();
    }

    /** The server's version from its answer to {@code srvr}, or null. */
    static @Nullable String version(InetSocketAddress address) {
        try (Socket socket = new Socket()) {
            socket.connect(address, PROBE_TIMEOUT_MS);
            socket.setSoTimeout(PROBE_TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            Matcher m = VERSION.matcher(new String(in.readNBytes(MAX_REPLY), StandardCharsets.US_ASCII));
            return m.find() ? m.group(1) : null;
        } catch (IOException e) {
            return null;
        }
    }
}
