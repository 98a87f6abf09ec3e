package dev.baton.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.URIParameter;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;

/**
 * JAAS files for SASL DIGEST-MD5, written by the kit: the {@code Server} section of a kit server (its users) and
 * {@code Client} sections with one user's credentials, the way ZooKeeper's SASL is configured in production.
 *
 * <p>A client in this JVM picks its credentials by section name, so clients with different users (or a wrong
 * password) can run side by side:
 * <pre>{@code
 * ZKClientConfig config = Jaas.clientConfig("alice", "alice-secret");   // for a ZooKeeper handle or a Baton client
 * }</pre>
 * A client in another JVM gets a file with a {@code Client} section: {@code -Djava.security.auth.login.config=}
 * the file {@link #writeClientFile(Path, String, String)} wrote.
 *
 * <p>JAAS has one login configuration per JVM. The first use of this class installs one that answers the kit's
 * own (uniquely named) sections and every other section as the JVM would have without it: from the file named by
 * {@code java.security.auth.login.config}, read again when that property changes, or from the configuration that
 * was installed before. Each kit section is written to a temporary JAAS file, read by the JDK's own JAAS parser
 * and deleted at once; the sections stay in memory for the life of the JVM.
 *
 * <p>Thread-safety: all methods are safe to call from any thread.
 */
public final class Jaas {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");
    private static final String DIGEST_LOGIN_MODULE = "org.apache.zookeeper.server.auth.DigestLoginModule";
    private static final AtomicInteger SECTIONS = new AtomicInteger();
    /** Serializes the installation; private, so a caller locking on {@code Jaas.class} cannot stall it. */
    private static final Object INSTALL_LOCK = new Object();
    /** The kit's configuration once installed; null before the first section. */
    @GuardedBy("INSTALL_LOCK")
    private static @Nullable KitConfiguration installed;

    private Jaas() {
    }

    /**
     * Registers a client section with {@code user}'s credentials in this JVM's login configuration.
     *
     * @param user the user name
     * @param password the password
     * @return the section's name, for ZooKeeper's {@code zookeeper.sasl.clientconfig}
     *     ({@link ZKClientConfig#LOGIN_CONTEXT_NAME_KEY})
     * @throws IllegalArgumentException if a name or password cannot go into a JAAS file
     */
    public static String clientSection(String user, String password) {
        checkCredentials(user, password);
        return register("BatonClient" + SECTIONS.incrementAndGet(), clientEntry(user, password));
    }

    /**
     * ZooKeeper's FIPS-mode setting. ZooKeeper 3.9.4 and newer refuse DIGEST-MD5 while it is on, their default, on
     * the client ({@code {} will not use DIGEST-MD5 as SASL mechanism, because FIPS mode is enabled}) and on the
     * server; the kit turns it off wherever it sets up DIGEST-MD5.
     */
    public static final String FIPS_MODE = "zookeeper.fips-mode";

    /**
     * ZooKeeper client settings that log in with {@code user}'s credentials through a section of their own, with
     * FIPS mode off (see {@link #FIPS_MODE}).
     *
     * @param user the user name
     * @param password the password
     * @return a new configuration; add TLS settings to it as needed
     * @throws IllegalArgumentException if a name or password cannot go into a JAAS file
     */
    public static ZKClientConfig clientConfig(String user, String password) {
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, clientSection(user, password));
        config.setProperty(FIPS_MODE, "false");
        return config;
    }

    /**
     * Writes a JAAS file whose {@code Client} section logs in as {@code user}, for a client in another JVM (which
     * also needs {@code -Dzookeeper.fips-mode=false}, see {@link #FIPS_MODE}).
     *
     * @param file where to write it (replaced if it exists); the caller deletes it
     * @param user the user name
     * @param password the password
     * @return {@code file}
     * @throws IllegalArgumentException if a name or password cannot go into a JAAS file
     * @throws UncheckedIOException if the file cannot be written
     */
    public static Path writeClientFile(Path file, String user, String password) {
        Objects.requireNonNull(file, "file");
        checkCredentials(user, password);
        writeFile(file, "Client", clientEntry(user, password));
        return file;
    }

    /** The JAAS text of a server section with these users. */
    static String serverEntry(Map<String, String> users) {
        StringBuilder entry = new StringBuilder("    " + DIGEST_LOGIN_MODULE + " required");
        users.forEach((user, password) -> entry.append("\n    user_").append(user).append("=\"").append(password)
                .append('"'));
        return entry.append(";\n").toString();
    }

    /** Registers a server section for these users in this JVM; returns its name. */
    static String serverSection(Map<String, String> users) {
        return register("BatonServer" + SECTIONS.incrementAndGet(), serverEntry(users));
    }

    /** Writes {@code file} with one section named {@code section}. */
    static void writeFile(Path file, String section, String entry) {
        try {
            Files.writeString(file, section + " {\n" + entry + "};\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the JAAS file " + file, e);
        }
    }

    static void checkCredentials(String user, String password) {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        if (!NAME.matcher(user).matches()) {
            throw new IllegalArgumentException("a SASL user name takes letters, digits, _ and -: \"" + user + "\"");
        }
        if (password.isEmpty() || password.chars().anyMatch(c -> c == '"' || c == '\\' || c == '\n' || c == '\r')) {
            throw new IllegalArgumentException("a SASL password must be non-empty, without \", \\ or line breaks");
        }
    }

    private static String clientEntry(String user, String password) {
        return "    " + DIGEST_LOGIN_MODULE + " required\n    username=\"" + user + "\"\n    password=\"" + password
                + "\";\n";
    }

    private static String register(String section, String entry) {
        Path file;
        try {
            file = Files.createTempFile("baton-jaas-", ".conf");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a JAAS file", e);
        }
        try {
            writeFile(file, section, entry);
            Configuration parsed = Configuration.getInstance("JavaLoginConfig", new URIParameter(file.toUri()));
            configuration().sections.put(section, parsed);
            return section;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot read the JAAS file " + file, e);
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                file.toFile().deleteOnExit();
            }
        }
    }

    private static KitConfiguration configuration() {
        synchronized (INSTALL_LOCK) {
            KitConfiguration kit = installed;
            if (kit == null) {
                Configuration previous;
                try {
                    previous = Configuration.getConfiguration();
                } catch (SecurityException e) {
                    previous = null; // a bad java.security.auth.login.config: read again on use, below
                }
                kit = new KitConfiguration(previous, System.getProperty("java.security.auth.login.config"));
                installed = kit;
                Configuration.setConfiguration(kit);
            }
            return kit;
        }
    }

    /** The kit's sections first, then what the JVM would answer without the kit. */
    private static final class KitConfiguration extends Configuration {
        final Map<String, Configuration> sections = new ConcurrentHashMap<>();
        /** The JVM's configuration before the kit's; null if it could not be read. */
        private final @Nullable Configuration previous;
        /** The login configuration file named when the kit installed its own; null if none. */
        private final @Nullable String previousFile;
        /** Private, as this configuration is reachable by anyone through {@link Configuration#getConfiguration()}. */
        private final Object fileLock = new Object();
        /** The file named now, once it differs from {@link #previousFile}, and its configuration. */
        @GuardedBy("fileLock")
        private @Nullable String file;
        @GuardedBy("fileLock")
        private @Nullable Configuration fromFile;

        KitConfiguration(@Nullable Configuration previous, @Nullable String previousFile) {
            this.previous = previous;
            this.previousFile = previousFile;
        }

        @Override
        public AppConfigurationEntry @Nullable [] getAppConfigurationEntry(String name) {
            Configuration kit = sections.get(name);
            if (kit != null) {
                return kit.getAppConfigurationEntry(name);
            }
            Configuration fallback = fallback();
            return fallback == null ? null : fallback.getAppConfigurationEntry(name);
        }

        @Override
        public void refresh() {
            Configuration fallback = fallback();
            if (fallback != null) {
                fallback.refresh();
            }
        }

        /** The configuration of the file named now by the system property, or the one installed before. */
        private @Nullable Configuration fallback() {
            synchronized (fileLock) {
                String now = System.getProperty("java.security.auth.login.config");
                if (now == null || (now.equals(previousFile) && previous != null)) {
                    return previous;
                }
                if (!now.equals(file)) {
                    String location = now.startsWith("=") ? now.substring(1) : now;
                    URI uri = location.contains(":/") ? URI.create(location) : Path.of(location).toUri();
                    try {
                        fromFile = Configuration.getInstance("JavaLoginConfig", new URIParameter(uri));
                    } catch (NoSuchAlgorithmException | RuntimeException e) {
                        throw new SecurityException("cannot read the JAAS configuration " + now, e);
                    }
                    file = now;
                }
                return fromFile;
            }
        }
    }
}
