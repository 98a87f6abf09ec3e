package dev.baton.spring;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The baton.* settings of the starter, bound once at start-up (relaxed names, Durations such as
 * 30s). Immutable.
 *
 * @param connectString the ZooKeeper servers, such as zk1:2181,zk2:2181; without it the starter does
 *     nothing
 * @param sessionTimeout the session timeout to ask the servers for
 * @param connectionTimeout how long an operation waits for a connection before it counts as a connection
 *     loss; also how long the health indicator tolerates a suspended connection before it reports DOWN
 * @param namespace a namespace every path of the client is put under; none by default
 * @param retry the retry policy: exponential back-off
 * @param auth authorizations sent on every session, such as digest with user:password
 * @param tls TLS to the servers' secure client port
 * @param leader leader-gating: set baton.leader.path to run @LeaderOnly work on one instance
 * @param waitForConnection how long start-up waits for the first connection, failing with a clear message if
 *     it does not come; by default start-up does not wait
 * @param lockRegistry the Spring Integration lock registry
 */
@ConfigurationProperties("baton")
public record BatonProperties(
        @Nullable String connectString,
        @DefaultValue("60s") Duration sessionTimeout,
        @DefaultValue("15s") Duration connectionTimeout,
        @Nullable String namespace,
        @DefaultValue Retry retry,
        List<Auth> auth,
        @DefaultValue Tls tls,
        @DefaultValue Leader leader,
        @Nullable Duration waitForConnection,
        @DefaultValue LockRegistry lockRegistry) {

    /**
     * Binds; auth null becomes empty.
     *
     * @param connectString the ZooKeeper servers, such as zk1:2181,zk2:2181; without it the starter does
     *     nothing
     * @param sessionTimeout the session timeout to ask the servers for
     * @param connectionTimeout how long an operation waits for a connection before it counts as a connection
     *     loss; also how long the health indicator tolerates a suspended connection before it reports DOWN
     * @param namespace a namespace every path of the client is put under; none by default
     * @param retry the retry policy: exponential back-off
     * @param auth authorizations sent on every session, such as digest with user:password
     * @param tls TLS to the servers' secure client port
     * @param leader leader-gating: set baton.leader.path to run @LeaderOnly work on one instance
     * @param waitForConnection how long start-up waits for the first connection, failing with a clear message if
     *     it does not come; by default start-up does not wait
     * @param lockRegistry the Spring Integration lock registry
     */
    public BatonProperties {
        auth = auth == null ? List.of() : List.copyOf(auth);
    }

    /**
     * Exponential back-off between retries of operations that failed for connection reasons.
     *
     * @param baseSleep the first pause, doubled (with jitter) each retry
     * @param maxRetries how many times an operation is retried
     * @param maxSleep the longest pause; unbounded by default
     */
    public record Retry(@DefaultValue("1s") Duration baseSleep, @DefaultValue("3") int maxRetries,
            @Nullable Duration maxSleep) {
    }

    /**
     * One authorization.
     *
     * @param scheme the scheme, such as digest
     * @param secret the credentials, such as user:password for digest (sent as UTF-8)
     */
    public record Auth(String scheme, String secret) {
        /**
         * @param scheme the scheme, such as digest
         * @param secret the credentials, such as user:password for digest (sent as UTF-8)
         * @throws NullPointerException if a field is missing
         */
        public Auth {
            Objects.requireNonNull(scheme, "baton.auth[n].scheme");
            Objects.requireNonNull(secret, "baton.auth[n].secret");
        }

        @Override
        public String toString() {
            return "Auth[scheme=" + scheme + ", secret=***]"; // never log the secret
        }
    }

    /**
     * TLS to ZooKeeper (Netty client, the servers' secureClientPort).
     *
     * @param enabled turns TLS on
     * @param keyStore this client's certificate, for servers that check client certificates (x509)
     * @param trustStore the certificates this client trusts
     */
    public record Tls(@DefaultValue("false") boolean enabled, @DefaultValue Store keyStore,
            @DefaultValue Store trustStore) {
    }

    /**
     * A key or trust store.
     *
     * @param location the file, such as /etc/zk/truststore.jks
     * @param password its password
     * @param type JKS, PKCS12 or PEM; by the file's extension if unset
     */
    public record Store(@Nullable String location, @Nullable String password, @Nullable String type) {
        @Override
        public String toString() {
            return "Store[location=" + location + ", type=" + type + "]"; // never log the password
        }
    }

    /**
     * Leader-gating.
     *
     * @param path the election's path; setting it makes one instance of the application the leader
     * @param id this instance's id in the election; the host name and a random suffix by default
     */
    public record Leader(@Nullable String path, @Nullable String id) {
    }

    /**
     * The Spring Integration lock registry.
     *
     * @param path the path under which each key's lock lives
     * @param expireUnusedAfter locks neither held nor obtained for this long are dropped from the registry
     *     (checked every so often); 0 turns the automatic sweep off
     */
    public record LockRegistry(@DefaultValue("/baton/locks") String path,
            @DefaultValue("10m") Duration expireUnusedAfter) {
    }
}
