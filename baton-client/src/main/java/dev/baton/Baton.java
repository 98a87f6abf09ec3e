package dev.baton;

import dev.baton.retry.RetryPolicy;
import dev.baton.state.ConnectionStateErrorPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;

/**
 * Makes {@link BatonClient}s.
 *
 * <pre>{@code
 * BatonClient client = Baton.builder()
 *         .connectString("zk1:2181,zk2:2181,zk3:2181")
 *         .sessionTimeout(Duration.ofSeconds(30))
 *         .retryPolicy(new ExponentialBackoffRetry(1000, 3))
 *         .namespace("myapp")
 *         .build();
 * }</pre>
 */
public final class Baton {
    /** The session timeout used when none is set: 60 seconds. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(60);
    /** The connection timeout used when none is set: 15 seconds. */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(15);

    private Baton() {
    }

    /**
     * Makes a client with default timeouts.
     *
     * @param connectString the servers, such as {@code "127.0.0.1:2181"}
     * @param retryPolicy the retry policy
     * @return a client, not started
     * @throws NullPointerException if an argument is null
     */
    public static BatonClient newClient(String connectString, RetryPolicy retryPolicy) {
        return builder().connectString(connectString).retryPolicy(retryPolicy).build();
    }

    /**
     * Makes a client.
     *
     * @param connectString the servers
     * @param sessionTimeout the requested session timeout
     * @param connectionTimeout how long an operation waits for a connection before it counts as a connection loss
     * @param retryPolicy the retry policy
     * @return a client, not started
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a timeout is not positive
     */
    public static BatonClient newClient(String connectString, Duration sessionTimeout, Duration connectionTimeout,
            RetryPolicy retryPolicy) {
        return builder().connectString(connectString).sessionTimeout(sessionTimeout)
                .connectionTimeout(connectionTimeout).retryPolicy(retryPolicy).build();
    }

    /** {@return a new builder} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Collects a client's options. Each option may be set once (setting it again throws
     * {@link IllegalStateException}), except {@link #authorization(String, byte[])}, which adds. {@link #build()}
     * copies the options, so one builder can make several clients. Not thread-safe.
     */
    public static final class Builder {
        // Each option is null until it is set.
        private @Nullable EnsembleProvider ensembleProvider;
        private @Nullable Duration sessionTimeout;
        private @Nullable Duration connectionTimeout;
        private @Nullable RetryPolicy retryPolicy;
        private @Nullable String namespace;
        private @Nullable ACLProvider aclProvider;
        private final List<AuthInfo> authInfos = new ArrayList<>();
        private @Nullable CompressionProvider compressionProvider;
        private @Nullable Boolean compressionEnabled;
        private @Nullable Boolean canBeReadOnly;
        private @Nullable ConnectionStateErrorPolicy errorPolicy;
        private @Nullable Integer simulatedExpirationPercent;
        private @Nullable ThreadFactory threadFactory;
        private @Nullable ZKClientConfig zkClientConfig;
        private @Nullable Boolean ensembleTracker;

        private Builder() {
        }

        private static void requireUnset(@Nullable Object current, String option) {
            if (current != null) {
                throw new IllegalStateException(option + " was already set to " + current);
            }
        }

        /**
         * {@return this builder}
         *
         * @param connectString the servers, such as {@code "zk1:2181,zk2:2181"}
         * @throws IllegalStateException if the servers were already given
         */
        public Builder connectString(String connectString) {
            requireUnset(ensembleProvider, "connectString/ensembleProvider");
            this.ensembleProvider = new FixedEnsembleProvider(connectString);
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param ensembleProvider supplies the servers
         * @throws IllegalStateException if the servers were already given
         */
        public Builder ensembleProvider(EnsembleProvider ensembleProvider) {
            requireUnset(this.ensembleProvider, "connectString/ensembleProvider");
            this.ensembleProvider = Objects.requireNonNull(ensembleProvider, "ensembleProvider");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param sessionTimeout the requested session timeout, positive (the server may grant a different one);
         *        default {@link Baton#DEFAULT_SESSION_TIMEOUT}
         */
        public Builder sessionTimeout(Duration sessionTimeout) {
            requireUnset(this.sessionTimeout, "sessionTimeout");
            this.sessionTimeout = positive(sessionTimeout, "sessionTimeout");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param connectionTimeout how long an operation waits for a connection before it counts as a connection
         *        loss, positive; default {@link Baton#DEFAULT_CONNECTION_TIMEOUT}
         */
        public Builder connectionTimeout(Duration connectionTimeout) {
            requireUnset(this.connectionTimeout, "connectionTimeout");
            this.connectionTimeout = positive(connectionTimeout, "connectionTimeout");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param retryPolicy the retry policy (required)
         */
        public Builder retryPolicy(RetryPolicy retryPolicy) {
            requireUnset(this.retryPolicy, "retryPolicy");
            this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
            return this;
        }

        /**
         * Puts every path of the client under {@code /namespace}. The first operation of any kind through the
         * client (a read or a watch as much as a create) creates the namespace node where it is missing, as
         * Curator's namespaced clients do. A persistent watch, which needs no node, is sent ahead of that create,
         * so it is in place before any later request of the session; its call completes once both are done.
         *
         * @param namespace the namespace, such as {@code "app"} or {@code "app/region"}; null or empty for none
         * @return this builder
         * @throws IllegalArgumentException if the namespace is not a valid path once prefixed with {@code /}
         */
        public Builder namespace(@Nullable String namespace) {
            requireUnset(this.namespace, "namespace");
            this.namespace = Namespace.normalize(namespace);
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param aclProvider the ACL for nodes created without one; default {@link DefaultACLProvider}
         */
        public Builder aclProvider(ACLProvider aclProvider) {
            requireUnset(this.aclProvider, "aclProvider");
            this.aclProvider = Objects.requireNonNull(aclProvider, "aclProvider");
            return this;
        }

        /**
         * Adds an authorization sent on every session; may be called several times.
         *
         * @param scheme the scheme, such as {@code "digest"}
         * @param auth the credentials
         * @return this builder
         */
        public Builder authorization(String scheme, byte[] auth) {
            authInfos.add(new AuthInfo(scheme, auth));
            return this;
        }

        /**
         * Adds several authorizations.
         *
         * @param authInfos the authorizations
         * @return this builder
         */
        public Builder authorization(List<AuthInfo> authInfos) {
            Objects.requireNonNull(authInfos, "authInfos").forEach(a -> this.authInfos.add(
                    Objects.requireNonNull(a, "authInfos element")));
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param compressionProvider how {@code compressed()} data is compressed; default GZIP
         */
        public Builder compressionProvider(CompressionProvider compressionProvider) {
            requireUnset(this.compressionProvider, "compressionProvider");
            this.compressionProvider = Objects.requireNonNull(compressionProvider, "compressionProvider");
            return this;
        }

        /** {@return this builder; all data written is compressed and all data read is decompressed} */
        public Builder enableCompression() {
            requireUnset(this.compressionEnabled, "enableCompression");
            this.compressionEnabled = true;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param canBeReadOnly allow connecting to a server that has lost quorum, in read-only mode
         */
        public Builder canBeReadOnly(boolean canBeReadOnly) {
            requireUnset(this.canBeReadOnly, "canBeReadOnly");
            this.canBeReadOnly = canBeReadOnly;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param policy which states recipes treat as errors; default {@link ConnectionStateErrorPolicy#STANDARD}
         */
        public Builder connectionStateErrorPolicy(ConnectionStateErrorPolicy policy) {
            requireUnset(this.errorPolicy, "connectionStateErrorPolicy");
            this.errorPolicy = Objects.requireNonNull(policy, "connectionStateErrorPolicy");
            return this;
        }

        /**
         * After the client has been suspended for this percent of the negotiated session timeout it treats the
         * session as lost: it posts {@code LOST} and opens a new session. The old session may still be alive on
         * the server, so the client closes it there and waits for the server to confirm it gone before it
         * reports the new session ({@code RECONNECTED}) and sends anything on it. 0 turns this off; default 100.
         *
         * @param percent from 0 to 100
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder simulatedSessionExpirationPercent(int percent) {
            requireUnset(this.simulatedExpirationPercent, "simulatedSessionExpirationPercent");
            if (percent < 0 || percent > 100) {
                throw new IllegalArgumentException(
                        "simulatedSessionExpirationPercent must be between 0 and 100, was " + percent);
            }
            this.simulatedExpirationPercent = percent;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param threadFactory makes the client's two threads; default: daemon threads named {@code baton-...}
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            requireUnset(this.threadFactory, "threadFactory");
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param config ZooKeeper client settings (TLS, SASL) for every handle the client opens
         */
        public Builder zkClientConfig(ZKClientConfig config) {
            requireUnset(this.zkClientConfig, "zkClientConfig");
            this.zkClientConfig = Objects.requireNonNull(config, "zkClientConfig");
            return this;
        }

        /**
         * Whether to follow a reconfigured ensemble: on each connection the client reads
         * {@code /zookeeper/config} (with a watch) and moves to the client ports it lists. A client connecting
         * over TLS is never moved, since that list names plaintext ports only. Turn it off when the connect
         * string names proxies or addresses the servers do not know themselves by.
         *
         * @param track follow a reconfigured ensemble's server list (default true)
         * @return this builder
         */
        public Builder ensembleTracker(boolean track) {
            requireUnset(this.ensembleTracker, "ensembleTracker");
            this.ensembleTracker = track;
            return this;
        }

        /**
         * Makes a client from the options set so far.
         *
         * @return a client, not started
         * @throws IllegalStateException if no connect string / ensemble provider or no retry policy was set
         */
        public BatonClient build() {
            if (ensembleProvider == null) {
                throw new IllegalStateException("connectString or ensembleProvider must be set");
            }
            if (retryPolicy == null) {
                throw new IllegalStateException("retryPolicy must be set");
            }
            ClientConfig config = new ClientConfig(
                    ensembleProvider,
                    or(sessionTimeout, DEFAULT_SESSION_TIMEOUT),
                    or(connectionTimeout, DEFAULT_CONNECTION_TIMEOUT),
                    retryPolicy,
                    or(namespace, ""),
                    or(aclProvider, new DefaultACLProvider()),
                    List.copyOf(authInfos),
                    or(compressionProvider, new GzipCompressionProvider()),
                    or(compressionEnabled, false),
                    or(canBeReadOnly, false),
                    or(errorPolicy, ConnectionStateErrorPolicy.STANDARD),
                    or(simulatedExpirationPercent, 100),
                    threadFactory,
                    zkClientConfig,
                    or(ensembleTracker, true));
            return new ClientCore(config).rootClient();
        }

        private static <T> T or(@Nullable T value, T fallback) {
            return value != null ? value : fallback;
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + d);
            }
            if (d.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(name + " is too large, was " + d);
            }
            return d;
        }
    }
}
