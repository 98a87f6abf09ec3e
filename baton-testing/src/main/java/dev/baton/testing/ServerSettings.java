package dev.baton.testing;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.jspecify.annotations.Nullable;

/**
 * The configuration of one {@link EmbeddedZooKeeper}, fixed when it is built and the same across restarts, and
 * how it is handed to ZooKeeper's server classes: the tick and the session-timeout bounds, the connection limit,
 * the container-check interval and the {@link ServerSecurity}, with the JAAS section of its SASL users. Also sets
 * the JVM-wide ZooKeeper defaults the embedded server's class comment lists.
 *
 * @param tickTimeMs the tick, in milliseconds
 * @param minSessionTimeoutMs the smallest session timeout granted, in milliseconds
 * @param maxSessionTimeoutMs the largest session timeout granted, in milliseconds
 * @param maxClientConnections the most connections per client host, 0 for no limit
 * @param containerCheckIntervalMs how often empty containers and expired TTL nodes are deleted, in milliseconds
 * @param security how the server secures its clients
 * @param saslSection the JAAS section of the server's SASL users; null without SASL
 */
record ServerSettings(int tickTimeMs, int minSessionTimeoutMs, int maxSessionTimeoutMs, int maxClientConnections,
        int containerCheckIntervalMs, ServerSecurity security, @Nullable String saslSection) {

    private static final Duration DEFAULT_TICK_TIME = Duration.ofMillis(500);
    private static final Duration DEFAULT_CONTAINER_CHECK_INTERVAL = Duration.ofSeconds(1);

    /**
     * The settings of a {@link EmbeddedZooKeeper.Builder}, with the defaults its options document for those not
     * set. Checks the timeouts against each other and, with SASL users, registers their JAAS section and turns
     * ZooKeeper's FIPS mode off (if not set already), which DIGEST-MD5 needs.
     *
     * @throws IllegalArgumentException if the minimum session timeout exceeds the maximum
     */
    static ServerSettings of(@Nullable Duration tickTime, @Nullable Duration minSessionTimeout,
            @Nullable Duration maxSessionTimeout, int maxClientConnections, @Nullable Duration containerCheckInterval,
            @Nullable ServerSecurity security) {
        int tickMs = toMillis(tickTime == null ? DEFAULT_TICK_TIME : tickTime);
        int minMs = minSessionTimeout == null ? Math.multiplyExact(2, tickMs) : toMillis(minSessionTimeout);
        int maxMs = maxSessionTimeout == null ? Math.multiplyExact(40, tickMs) : toMillis(maxSessionTimeout);
        if (minMs > maxMs) {
            throw new IllegalArgumentException("minSessionTimeout (" + minMs + " ms) > maxSessionTimeout (" + maxMs
                    + " ms)");
        }
        int containerCheckMs = toMillis(containerCheckInterval == null ? DEFAULT_CONTAINER_CHECK_INTERVAL
                : containerCheckInterval);
        ServerSecurity secured = security != null ? security : ServerSecurity.NONE;
        String saslSection = secured.sasl() ? Jaas.serverSection(secured.saslUsers()) : null;
        if (secured.sasl()) {
            setPropertyIfAbsent(Jaas.FIPS_MODE, "false");
        }
        return new ServerSettings(tickMs, minMs, maxMs, maxClientConnections, containerCheckMs, secured,
                saslSection);
    }

    /**
     * Checks a duration option of the builder.
     *
     * @throws IllegalArgumentException if {@code d} is not from 1 ms to {@code Integer.MAX_VALUE} ms
     */
    static Duration requireMillis(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.toMillis() <= 0 || d.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + " must be from 1 ms to " + Integer.MAX_VALUE + " ms: " + d);
        }
        return d;
    }

    /** Sets the JVM-wide defaults of {@link EmbeddedZooKeeper}'s class comment, each only if not set already. */
    static void setJvmDefaults() {
        setPropertyIfAbsent("zookeeper.extendedTypesEnabled", "true");
        setPropertyIfAbsent("zookeeper.forceSync", "no");
        setPropertyIfAbsent("zookeeper.admin.enableServer", "false");
        setPropertyIfAbsent("zookeeper.4lw.commands.whitelist", "*");
    }

    /**
     * Makes the ZooKeeper server over {@code snapLog}, with this security's authentication properties set while
     * it reads them.
     */
    CountingZooKeeperServer newServer(FileTxnSnapLog snapLog, RequestCounter requests,
            RequestFaults requestFaults) throws Exception {
        ServerFactories.registerProviders(security);
        return ServerFactories.withProperties(security.authenticationProperties(), () ->
                new CountingZooKeeperServer(snapLog, tickTimeMs, minSessionTimeoutMs, maxSessionTimeoutMs,
                        requests, requestFaults));
    }

    /** Configures a factory; with SASL, while ZooKeeper's server-section property names this server's. */
    void configure(ServerCnxnFactory factory, InetSocketAddress address, boolean secure) throws Exception {
        if (saslSection == null) {
            factory.configure(address, maxClientConnections, -1, secure);
            return;
        }
        ServerFactories.withProperties(Map.of("zookeeper.sasl.serverconfig", saslSection), () -> {
            factory.configure(address, maxClientConnections, -1, secure);
            return null;
        });
    }

    private static int toMillis(Duration d) {
        return Math.toIntExact(d.toMillis());
    }

    private static void setPropertyIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
