package dev.baton.cli;

import dev.baton.AuthInfo;
import dev.baton.Baton;
import dev.baton.internal.TlsProbe;
import dev.baton.retry.ExponentialBackoffRetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * How the command's clients reach the server, besides its address: namespace, authentications and TLS
 * properties. Immutable and thread-safe; {@link #builder} makes a fresh client builder each time.
 *
 * @param namespace the client namespace, or null for none
 * @param auth authentications added to every session
 * @param tls ZooKeeper client properties for TLS ({@code zookeeper.ssl.*}), empty for a plain connection
 */
record ClientSettings(String namespace, List<AuthInfo> auth, Map<String, String> tls) {

    /** No namespace, no authentication, no TLS. */
    static final ClientSettings PLAIN = new ClientSettings(null, List.of(), Map.of());

    ClientSettings {
        auth = List.copyOf(auth);
        tls = Map.copyOf(tls);
    }

    /**
     * A client builder with these settings.
     *
     * @param connectString the servers
     * @param sessionTimeout the session timeout
     * @param connectionTimeout how long an operation waits for a connection
     * @return the builder, with a retry policy set; the caller may set options these settings leave unset
     */
    Baton.Builder builder(String connectString, Duration sessionTimeout, Duration connectionTimeout) {
        Baton.Builder builder = Baton.builder().connectString(connectString).sessionTimeout(sessionTimeout)
                .connectionTimeout(connectionTimeout).retryPolicy(new ExponentialBackoffRetry(250, 5))
                .authorization(auth);
        if (namespace != null) {
            builder.namespace(namespace);
        }
        ZKClientConfig config = zkClientConfig();
        if (config != null) {
            builder.zkClientConfig(config);
        }
        return builder;
    }

    /**
     * {@return a new ZooKeeper client configuration with the TLS properties, or null for a plain connection}
     */
    ZKClientConfig zkClientConfig() {
        if (tls.isEmpty()) {
            return null;
        }
        ZKClientConfig config = new ZKClientConfig();
        tls.forEach(config::setProperty);
        return config;
    }

    /**
     * Why a client with these settings cannot connect, when TLS is to blame (a TLS handshake of its own, bounded
     * by a few seconds; see {@link TlsProbe}).
     *
     * @param connectString the servers
     * @return {@code ": <reason>"} to append to a message, or empty when TLS is off or not the problem
     */
    String whyNotConnected(String connectString) {
        return TlsProbe.diagnose(zkClientConfig(), connectString).map(f -> ": " + f.getMessage()).orElse("");
    }

    /**
     * {@return what differs from a plain connection, for a status line, such as {@code " (namespace app, TLS)"};
     *     empty for a plain connection; never a secret}
     */
    String describe() {
        List<String> parts = new ArrayList<>();
        if (namespace != null) {
            parts.add("namespace " + namespace);
        }
        auth.forEach(a -> parts.add(a.scheme() + " auth"));
        if (!tls.isEmpty()) {
            parts.add("TLS");
        }
        return parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")";
    }
}
