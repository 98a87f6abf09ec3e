package dev.baton.testing;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.zookeeper.common.X509Util.ClientAuth;
import org.jspecify.annotations.Nullable;

/**
 * How a kit server secures its clients, for {@link EmbeddedZooKeeper.Builder#security(ServerSecurity)} and
 * {@link ZooKeeperEnsemble.Builder#security(ServerSecurity)}: TLS on the client port (ZooKeeper's Netty
 * {@code secureClientPort}), x509 client authentication, SASL DIGEST-MD5 users, and whether every session must
 * authenticate before its first request.
 *
 * <pre>{@code
 * ServerSecurity security = ServerSecurity.builder()
 *         .tls(certs)                          // clients connect with TLS; the server trusts certs' authority
 *         .clientAuth(ClientAuth.NEED)         // and must show a certificate of it (x509 identity)
 *         .saslUser("alice", "alice-secret")   // a DIGEST-MD5 user, in a JAAS Server section the kit writes
 *         .requireAuthentication("sasl")       // a session that has not authenticated is closed at its first request
 *         .build();
 * }</pre>
 *
 * <p>With TLS, a server keeps a second, plaintext client port for the kit's four-letter words (and for tests that
 * want a plaintext client); {@code connectString()} names the TLS port.
 *
 * <p>Immutable and thread-safe.
 */
public final class ServerSecurity {
    private static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    /** No TLS, no SASL, no required authentication: a plain server. */
    public static final ServerSecurity NONE = builder().build();

    /** The certificates; null without TLS. */
    private final @Nullable TlsCertificates tls;
    private final ClientAuth clientAuth;
    private final Map<String, String> saslUsers;
    private final Set<String> requiredSchemes;

    private ServerSecurity(Builder b) {
        this.tls = b.tls;
        this.clientAuth = b.clientAuth != null ? b.clientAuth : ClientAuth.WANT;
        this.saslUsers = Collections.unmodifiableMap(new LinkedHashMap<>(b.saslUsers));
        this.requiredSchemes = Collections.unmodifiableSet(new LinkedHashSet<>(b.requiredSchemes));
    }

    /**
     * A builder of security settings; nothing is on by default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The certificates of the TLS client port.
     *
     * @return the certificates, or empty without TLS
     */
    public Optional<TlsCertificates> tls() {
        return Optional.ofNullable(tls);
    }

    /**
     * Whether a TLS client must ({@code NEED}), may ({@code WANT}, the default) or must not ({@code NONE}) show a
     * certificate. A certificate shown is checked against the authority and names the session in the
     * {@code x509} scheme.
     *
     * @return the client-certificate policy
     */
    public ClientAuth clientAuth() {
        return clientAuth;
    }

    /**
     * Whether SASL DIGEST-MD5 is on (it is when a user is set).
     *
     * @return true with at least one SASL user
     */
    public boolean sasl() {
        return !saslUsers.isEmpty();
    }

    /**
     * The schemes one of which a session must have authenticated with before the server serves it; empty when
     * unauthenticated sessions are served.
     *
     * @return the schemes, such as {@code ["sasl"]}
     */
    public Set<String> requiredSchemes() {
        return requiredSchemes;
    }

    /** The SASL users with their passwords. */
    Map<String, String> saslUsers() {
        return saslUsers;
    }

    /** The JVM system properties a server needs for the authentication part (not TLS, not SASL's JAAS file). */
    Map<String, String> authenticationProperties() {
        Map<String, String> properties = new LinkedHashMap<>();
        if (sasl()) {
            properties.put("zookeeper.authProvider.sasl", "org.apache.zookeeper.server.auth.SASLAuthenticationProvider");
        }
        if (!requiredSchemes.isEmpty()) {
            properties.put("zookeeper.enforce.auth.enabled", "true");
            properties.put("zookeeper.enforce.auth.schemes", String.join(",", requiredSchemes));
        }
        return properties;
    }

    /**
     * The {@code zookeeper.ssl.*} settings of the TLS port: the server's key store, the authority as trust store
     * and the client-certificate policy; empty without TLS.
     */
    Map<String, String> tlsProperties() {
        Map<String, String> properties = new LinkedHashMap<>();
        if (tls != null) {
            KeyStoreFile key = tls.serverKeyStore();
            KeyStoreFile trust = tls.trustStore();
            properties.put("zookeeper.ssl.keyStore.location", key.path().toString());
            properties.put("zookeeper.ssl.keyStore.password", key.password());
            properties.put("zookeeper.ssl.keyStore.type", key.type());
            properties.put("zookeeper.ssl.trustStore.location", trust.path().toString());
            properties.put("zookeeper.ssl.trustStore.password", trust.password());
            properties.put("zookeeper.ssl.trustStore.type", trust.type());
            properties.put("zookeeper.ssl.clientAuth", clientAuth.name().toLowerCase(java.util.Locale.ROOT));
        }
        return properties;
    }

    /** What is on, never a password. */
    @Override
    public String toString() {
        return "ServerSecurity[tls=" + (tls != null) + ", clientAuth=" + clientAuth + ", saslUsers="
                + saslUsers.keySet() + ", requiredSchemes=" + requiredSchemes + "]";
    }

    /**
     * Collects security settings. {@link #tls}, {@link #clientAuth} and {@link #requireAuthentication} may each be
     * set once (again: {@link IllegalStateException}); {@link #saslUser} adds a user. Not thread-safe.
     */
    public static final class Builder {
        // Null until set.
        private @Nullable TlsCertificates tls;
        private @Nullable ClientAuth clientAuth;
        private final Map<String, String> saslUsers = new LinkedHashMap<>();
        private final Set<String> requiredSchemes = new LinkedHashSet<>();
        private boolean requiredSet;

        private Builder() {
        }

        /**
         * Serves clients over TLS with the server key store of {@code certificates}, trusting their authority.
         *
         * @param certificates the certificates; they must stay open while a server uses them
         * @return this builder
         * @throws IllegalStateException if already set
         */
        public Builder tls(TlsCertificates certificates) {
            if (tls != null) {
                throw new IllegalStateException("tls was already set to " + tls);
            }
            this.tls = Objects.requireNonNull(certificates, "certificates");
            return this;
        }

        /**
         * Whether TLS clients must show a certificate; default {@code WANT} (optional, used when shown).
         *
         * @param clientAuth the policy
         * @return this builder
         * @throws IllegalStateException if already set
         */
        public Builder clientAuth(ClientAuth clientAuth) {
            if (this.clientAuth != null) {
                throw new IllegalStateException("clientAuth was already set to " + this.clientAuth);
            }
            this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
            return this;
        }

        /**
         * Adds a SASL DIGEST-MD5 user; the first one turns SASL on.
         *
         * @param user the user name: letters, digits, {@code _} and {@code -}
         * @param password the password: no {@code "}, {@code \} or line break (it goes into a JAAS file)
         * @return this builder
         * @throws IllegalArgumentException if a name or password cannot go into a JAAS file
         * @throws IllegalStateException if the user was already added
         */
        public Builder saslUser(String user, String password) {
            Jaas.checkCredentials(user, password);
            if (saslUsers.putIfAbsent(user, password) != null) {
                throw new IllegalStateException("SASL user " + user + " was already added");
            }
            return this;
        }

        /**
         * Makes the server close a session that sends a request before it has authenticated with one of
         * {@code schemes} (ZooKeeper's {@code zookeeper.enforce.auth.*}): the strictest check that a client
         * authenticates every new session before anything else.
         *
         * @param schemes such as {@code "sasl"}, {@code "digest"}, {@code "x509"}
         * @return this builder
         * @throws IllegalArgumentException if no scheme is given or one is blank
         * @throws IllegalStateException if already set
         */
        public Builder requireAuthentication(String... schemes) {
            if (requiredSet) {
                throw new IllegalStateException("requireAuthentication was already set to " + requiredSchemes);
            }
            Objects.requireNonNull(schemes, "schemes");
            if (schemes.length == 0) {
                throw new IllegalArgumentException("requireAuthentication needs at least one scheme");
            }
            for (String scheme : List.of(schemes)) {
                if (Objects.requireNonNull(scheme, "scheme").isBlank() || !USER_NAME.matcher(scheme).matches()) {
                    throw new IllegalArgumentException("not a scheme name: \"" + scheme + "\"");
                }
                requiredSchemes.add(scheme);
            }
            requiredSet = true;
            return this;
        }

        /**
         * The settings.
         *
         * @return immutable settings
         * @throws IllegalStateException if a client-certificate policy is set without TLS
         */
        public ServerSecurity build() {
            if (clientAuth != null && tls == null) {
                throw new IllegalStateException("clientAuth needs tls(...)");
            }
            return new ServerSecurity(this);
        }
    }
}
