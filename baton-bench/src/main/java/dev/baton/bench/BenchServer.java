package dev.baton.bench;

import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The server the adapters talk to: an {@link EmbeddedZooKeeper} in this JVM, which counts client requests, or an
 * external server given by its address, which does not; optionally behind a delay line ({@link #withLatency}) that
 * stands in for a network between the clients and the server.
 */
final class BenchServer implements AutoCloseable {
    private final EmbeddedZooKeeper embedded;
    private final boolean owned;
    private final String connectString;
    /** With {@link #withLatency}: the proxy, and the server behind it (closed with this one). */
    private final TcpProxy delayLine;
    private final BenchServer behind;

    private BenchServer(EmbeddedZooKeeper embedded, boolean owned, String connectString, TcpProxy delayLine,
            BenchServer behind) {
        this.embedded = embedded;
        this.owned = owned;
        this.connectString = connectString;
        this.delayLine = delayLine;
        this.behind = behind;
    }

    private BenchServer(EmbeddedZooKeeper embedded, boolean owned, String connectString) {
        this(embedded, owned, connectString, null, null);
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
        return new BenchServer(embedded, false, proxy.address(), proxy, this);
    }

    /** Starts an embedded server on a free loopback port; {@link #close()} stops it. */
    static BenchServer embedded() {
        EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
        return new BenchServer(zk, true, zk.connectString());
    }

    /** Uses an embedded server someone else owns (tests); {@link #close()} leaves it running. */
    static BenchServer of(EmbeddedZooKeeper zk) {
        return new BenchServer(zk, false, zk.connectString());
    }

    /** An external server; request counts are not available. */
    static BenchServer external(String connectString) {
        return new BenchServer(null, false, connectString);
    }

    String connectString() {
        return connectString;
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
        String where = (embedded != null ? "embedded ZooKeeper at " : "external ZooKeeper at ") + connectString;
        return delayLine == null ? where : where + " behind a delay line of " + delayLine.latency().toNanos() / 1_000
                + " µs each way";
    }

    @Override
    public void close() {
        if (delayLine != null) {
            delayLine.close();
            behind.close();
        } else if (owned) {
            embedded.close();
        }
    }
}
