package dev.baton.bench;

import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.ServerSecurity;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.TlsCertificates;
import dev.baton.testing.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * The server the adapters talk to: an {@link EmbeddedZooKeeper} in this JVM, which counts client requests, a
 * {@link ZooKeeperEnsemble} of separate JVMs, or an external server given by its address (neither of which
 * counts); optionally behind a delay line ({@link #withLatency}) that stands in for a network between the clients
 * and the server.
 *
 * <p>With TLS ({@code --tls}) the embedded server serves TLS on the client port the clients are given, with
 * {@link TlsCertificates} made for the run and deleted by {@link #close()} after the server stopped; every client
 * connects with {@link #clientConfig()}: mutual TLS through ZooKeeper's Netty client socket. The server's plaintext
 * port (the kit keeps one for four-letter words) is never given to a client.
 */
final class BenchServer implements AutoCloseable {
    /** The common name of the certificate every client shows with TLS. */
    static final String CLIENT_NAME = "baton-bench";

    private final EmbeddedZooKeeper embedded;
    /** What {@link #close()} stops, or null when someone else owns the server. */
    private final Runnable owned;
    private final String description;
    private final String connectString;
    /** With {@link #withLatency}: the proxy, and the server behind it (closed with this one). */
    private final TcpProxy delayLine;
    private final BenchServer behind;
    /** The certificates of the TLS client port, or null for plaintext; closed by whoever owns the server. */
    private final TlsCertificates tls;

    private BenchServer(EmbeddedZooKeeper embedded, Runnable owned, String description, String connectString,
            TcpProxy delayLine, BenchServer behind, TlsCertificates tls) {
        this.embedded = embedded;
        this.owned = owned;
        this.description = description;
        this.connectString = connectString;
        this.delayLine = delayLine;
        this.behind = behind;
        this.tls = tls;
    }

    private BenchServer(EmbeddedZooKeeper embedded, Runnable owned, String description, String connectString,
            TlsCertificates tls) {
        this(embedded, owned, description, connectString, null, null, tls);
    }

    /**
     * This server behind a loopback proxy that forwards every chunk of bytes, each way, {@code latency} after it
     * read it (a delay line: chunks in flight overlap, so requests sent back to back stay back to back). The
     * returned server owns the proxy and this server.
     *
     * @param latency the one-way delay; zero returns this server as it is
     */
    BenchServer withLatency(Duration latency) {
        if (latency.isZero()) {
            return this;
        }
        String target = connectString.contains(",") ? connectString.substring(0, connectString.indexOf(','))
                : connectString;
        String host = target.substring(0, target.lastIndexOf(':'));
        if (!host.equals("127.0.0.1") && !host.equals("localhost")) {
            throw new IllegalArgumentException("--latency needs a server on 127.0.0.1, not " + target);
        }
        TcpProxy proxy = TcpProxy.start("bench-latency",
                Integer.parseInt(target.substring(target.lastIndexOf(':') + 1)));
        proxy.latency(latency);
        return new BenchServer(embedded, null, description + " behind a delay line of " + latency.toNanos() / 1_000
                + " µs each way", proxy.address(), proxy, this, tls);
    }

    /**
     * Starts an embedded server on a free loopback port; {@link #close()} stops it (and deletes its certificates).
     *
     * @param tls serve TLS on the client port, with certificates made now
     */
    static BenchServer embedded(boolean tls) {
        TlsCertificates certificates = tls ? TlsCertificates.create() : null;
        EmbeddedZooKeeper zk = null;
        try {
            zk = EmbeddedZooKeeper.builder().security(security(certificates)).build();
            zk.start();
            EmbeddedZooKeeper started = zk;
            return new BenchServer(zk, () -> closeAll(started::close, certificates),
                    "embedded ZooKeeper at " + zk.connectString() + overTls(certificates), zk.connectString(),
                    certificates);
        } catch (RuntimeException | Error e) {
            closeAll(zk == null ? null : zk::close, certificates);
            throw e;
        }
    }

    /**
     * Starts an ensemble of {@code servers} servers, each its own JVM on loopback, and returns once a quorum
     * serves. Clients are given every server and connect to any of them, as in production. With a latency, every
     * server sits behind its own delay line.
     *
     * @param servers how many servers
     * @param latency the one-way delay in front of each server, zero for none
     */
    static BenchServer ensemble(int servers, Duration latency) {
        ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().servers(servers).clientProxies(!latency.isZero())
                .build().start();
        try {
            String description = servers + "-server ZooKeeper ensemble (separate JVMs) at " + ensemble.connectString();
            if (!latency.isZero()) {
                for (int id : ensemble.serverIds()) {
                    ensemble.clientLatency(id, latency);
                }
                description += ", each behind a delay line of " + latency.toNanos() / 1_000 + " µs each way";
            }
            return new BenchServer(null, ensemble::close, description, ensemble.connectString(), null);
        } catch (RuntimeException e) {
            ensemble.close();
            throw e;
        }
    }

    /**
     * Uses an embedded server someone else owns (tests); {@link #close()} leaves it running. A TLS server's
     * clients connect over TLS with its certificates.
     */
    static BenchServer of(EmbeddedZooKeeper zk) {
        TlsCertificates certificates = zk.security().tls().orElse(null);
        return new BenchServer(zk, null, "embedded ZooKeeper at " + zk.connectString() + overTls(certificates),
                zk.connectString(), certificates);
    }

    /** An external server; request counts are not available. */
    static BenchServer external(String connectString) {
        return new BenchServer(null, null, "external ZooKeeper at " + connectString, connectString, null);
    }

    private static ServerSecurity security(TlsCertificates certificates) {
        return certificates == null ? ServerSecurity.NONE : ServerSecurity.builder().tls(certificates).build();
    }

    /** The description's TLS part: empty for plaintext. */
    private static String overTls(TlsCertificates certificates) {
        return certificates == null ? ""
                : ", clients over TLS (mutual, certificates made for the run, ZooKeeper's Netty client socket)";
    }

    /** Stops a server (if any), then deletes the certificates (if any), even if the stop failed. */
    private static void closeAll(Runnable server, TlsCertificates certificates) {
        try {
            if (server != null) {
                server.run();
            }
        } finally {
            if (certificates != null) {
                certificates.close();
            }
        }
    }

    String connectString() {
        return connectString;
    }

    /** True if clients connect over TLS ({@link #clientConfig()} is not null). */
    boolean tls() {
        return tls != null;
    }

    /**
     * The ZooKeeper client settings every client of this server connects with: with TLS a new configuration each
     * call (secure client, Netty socket, the run's trust store and a client certificate), or null for plaintext,
     * where each library keeps its own defaults.
     */
    ZKClientConfig clientConfig() {
        return tls == null ? null : tls.clientConfig(CLIENT_NAME);
    }

    /** True if {@link #requestCount()} means something. */
    boolean countsRequests() {
        return embedded != null;
    }

    /** Zeroes the server's request counter; does nothing for an external server. */
    void resetRequests() {
        if (embedded != null) {
            embedded.resetStatistics();
        }
    }

    /** Client requests since the last reset (pings and handshakes excluded), or -1 for an external server. */
    long requestCount() {
        return embedded == null ? -1 : embedded.requestCount();
    }

    /** Client requests since the last reset by operation type, in name order; empty for an external server. */
    Map<String, Long> requestCounts() {
        return embedded == null ? Map.of() : new TreeMap<>(embedded.requestCounts());
    }

    /** One line for the report. */
    String describe() {
        return description;
    }

    @Override
    public void close() {
        if (delayLine != null) {
            delayLine.close();
            behind.close();
        } else if (owned != null) {
            owned.run();
        }
    }
}
