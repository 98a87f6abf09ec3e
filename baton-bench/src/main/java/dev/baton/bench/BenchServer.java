package dev.baton.bench;

import dev.baton.testing.EmbeddedZooKeeper;
import java.util.Map;
import java.util.TreeMap;

/**
 * The server the adapters talk to: an {@link EmbeddedZooKeeper} in this JVM, which counts client requests, or an
 * external server given by its address, which does not.
 */
final class BenchServer implements AutoCloseable {
    private final EmbeddedZooKeeper embedded;
    private final boolean owned;
    private final String connectString;

    private BenchServer(EmbeddedZooKeeper embedded, boolean owned, String connectString) {
        this.embedded = embedded;
        this.owned = owned;
        this.connectString = connectString;
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
        return (embedded != null ? "embedded ZooKeeper at " : "external ZooKeeper at ") + connectString;
    }

    @Override
    public void close() {
        if (owned) {
            embedded.close();
        }
    }
}
