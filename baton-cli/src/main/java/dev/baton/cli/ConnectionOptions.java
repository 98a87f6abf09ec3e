package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.AuthInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Option;

/**
 * The options both {@code baton demo} and {@code baton inspect} take to reach a server: where it is, the
 * namespace, authentication and TLS. A picocli mixin; {@link #settings} turns the options into
 * {@link ClientSettings}.
 *
 * <p>Secrets never go on the command line, where {@code ps} and shell history would show them: credentials and
 * passwords are given as {@code env:VAR} (read from an environment variable) or {@code file:PATH} (the file's
 * first line). Messages name the variable or file, never the secret.
 */
final class ConnectionOptions {

    @Option(names = "--connect", paramLabel = "host:port", order = 1,
            description = "The ZooKeeper server(s), such as 127.0.0.1:2181 or zk1:2181,zk2:2181.")
    String connect;

    @Option(names = "--namespace", paramLabel = "name", order = 2,
            description = "Work under /<name>: the paths given and shown are relative to it.")
    String namespace;

    @Option(names = "--auth", paramLabel = "scheme:secret", order = 3,
            description = "Authenticate every session (repeatable), such as digest:env:ZK_AUTH (the variable "
                    + "holds user:password) or digest:file:/etc/zk/auth.")
    List<String> auth = new ArrayList<>();

    @Option(names = "--tls-key-store", paramLabel = "file", order = 4,
            description = "Connect over TLS with this client key store (.jks, .p12 or .pem).")
    Path keyStore;

    @Option(names = "--tls-key-store-password", paramLabel = "env:VAR|file:PATH", order = 5,
            description = "Where the key store's password is.")
    String keyStorePassword;

    @Option(names = "--tls-trust-store", paramLabel = "file", order = 6,
            description = "Connect over TLS, trusting the servers this trust store vouches for.")
    Path trustStore;

    @Option(names = "--tls-trust-store-password", paramLabel = "env:VAR|file:PATH", order = 7,
            description = "Where the trust store's password is.")
    String trustStorePassword;

    /**
     * Checks the options and reads the secrets they point to.
     *
     * @param environment looks up environment variables (tests pass their own)
     * @return the settings
     * @throws IllegalArgumentException naming the bad option (never a secret) if an option is malformed or a
     *     secret cannot be read
     */
    ClientSettings settings(UnaryOperator<String> environment) {
        List<AuthInfo> auths = new ArrayList<>();
        for (String a : auth) {
            int colon = a.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("--auth takes scheme:env:VAR or scheme:file:PATH, such as "
                        + "digest:env:ZK_AUTH; got no scheme");
            }
            String scheme = a.substring(0, colon);
            auths.add(new AuthInfo(scheme, secret("--auth " + scheme, a.substring(colon + 1), environment)
                    .getBytes(UTF_8)));
        }
        Map<String, String> tls = new LinkedHashMap<>();
        if (keyStore != null || trustStore != null) {
            tls.put("zookeeper.client.secure", "true");
            tls.put("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty");
            store(tls, "keyStore", "--tls-key-store", keyStore, keyStorePassword, environment);
            store(tls, "trustStore", "--tls-trust-store", trustStore, trustStorePassword, environment);
        } else if (keyStorePassword != null || trustStorePassword != null) {
            throw new IllegalArgumentException("a TLS password needs its store: --tls-key-store or --tls-trust-store");
        }
        if (namespace != null && (namespace.isEmpty() || namespace.startsWith("/"))) {
            throw new IllegalArgumentException("--namespace takes a name without a leading '/', such as myapp; got \""
                    + namespace + "\"");
        }
        return new ClientSettings(namespace, auths, tls);
    }

    private static void store(Map<String, String> tls, String key, String option, Path file, String password,
            UnaryOperator<String> environment) {
        if (file == null) {
            if (password != null) {
                throw new IllegalArgumentException(option + "-password needs " + option);
            }
            return;
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException(option + ": cannot read " + file);
        }
        tls.put("zookeeper.ssl." + key + ".location", file.toString());
        if (password != null) {
            tls.put("zookeeper.ssl." + key + ".password", secret(option + "-password", password, environment));
        }
    }

    /**
     * Reads a secret given as {@code env:VAR} or {@code file:PATH}.
     *
     * @param option the option, for messages
     */
    static String secret(String option, String source, UnaryOperator<String> environment) {
        if (source.startsWith("env:")) {
            String name = source.substring(4);
            String value = name.isEmpty() ? null : environment.apply(name);
            if (value == null) {
                throw new IllegalArgumentException(option + ": the environment variable '" + name + "' is not set");
            }
            return value;
        }
        if (source.startsWith("file:")) {
            Path file = Path.of(source.substring(5));
            try {
                return Files.readAllLines(file, UTF_8).stream().findFirst().orElse("");
            } catch (IOException e) {
                throw new IllegalArgumentException(option + ": cannot read " + file + " ("
                        + e.getClass().getSimpleName() + ")");
            }
        }
        throw new IllegalArgumentException(option + " takes env:VAR or file:PATH, so the secret never shows on the "
                + "command line");
    }
}
