package dev.baton.testing;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The options of a {@link ZooKeeperEnsemble.Builder} and their validation: each option is checked when it is set
 * (and may be set once), and {@link #settings()} checks them together, fills in the defaults and copies them into
 * the {@link EnsembleSettings} of one ensemble, so the builder can make several. Not thread-safe.
 */
final class EnsembleOptions {

    /** The options set so far, to refuse setting one twice. */
    private final Set<String> set = new LinkedHashSet<>();
    private int servers = 3;
    private boolean clientProxies;
    private boolean peerProxies;
    /** Null until set; {@link #settings()} then chooses the default. */
    private @Nullable Boolean reconfigEnabled;
    private Duration tickTime = Duration.ofMillis(250);
    /** Null until set; {@link #settings()} then chooses the default. */
    private @Nullable Duration minSessionTimeout;
    private Duration maxSessionTimeout = Duration.ofSeconds(60);
    private Duration startTimeout = Duration.ofSeconds(90);
    private ServerSecurity security = ServerSecurity.NONE;
    private String heap = "128m";
    private List<String> jvmArgs = List.of();
    /** Null until set; {@link #settings()} then chooses this JVM's. */
    private @Nullable String classpath;
    /** The server release, e.g. {@code 3.8.6}; null until set, then {@link #settings()} chooses this JVM's. */
    private @Nullable String serverVersion;
    private final Map<String, String> extraConfig = new LinkedHashMap<>();

    void servers(int count) {
        once("servers");
        if (count < 1 || count > 9) {
            throw new IllegalArgumentException("servers must be within 1..9: " + count);
        }
        servers = count;
    }

    void clientProxies(boolean enabled) {
        once("clientProxies");
        clientProxies = enabled;
    }

    void peerProxies(boolean enabled) {
        once("peerProxies");
        peerProxies = enabled;
    }

    void reconfigEnabled(boolean enabled) {
        once("reconfigEnabled");
        reconfigEnabled = enabled;
    }

    void tickTime(Duration tick) {
        once("tickTime");
        tickTime = requireRange(tick, "tickTime", Duration.ofMillis(10), Duration.ofSeconds(10));
    }

    void minSessionTimeout(Duration timeout) {
        once("minSessionTimeout");
        minSessionTimeout = requireRange(timeout, "minSessionTimeout", Duration.ofMillis(1), Duration.ofDays(1));
    }

    void maxSessionTimeout(Duration timeout) {
        once("maxSessionTimeout");
        maxSessionTimeout = requireRange(timeout, "maxSessionTimeout", Duration.ofMillis(1), Duration.ofDays(1));
    }

    void startTimeout(Duration timeout) {
        once("startTimeout");
        startTimeout = requireRange(timeout, "startTimeout", Duration.ofMillis(1), Duration.ofDays(1));
    }

    void heap(String maxHeap) {
        once("heap");
        Objects.requireNonNull(maxHeap, "heap");
        if (!maxHeap.matches("[0-9]+[kKmMgG]?")) {
            throw new IllegalArgumentException("heap must look like 128m: " + maxHeap);
        }
        heap = maxHeap;
    }

    void jvmArgs(String... args) {
        once("jvmArgs");
        jvmArgs = List.of(args);
    }

    void classpath(String path) {
        once("classpath");
        if (set.contains("serverVersion")) {
            throw new IllegalStateException("serverVersion and classpath cannot both be set");
        }
        classpath = Objects.requireNonNull(path, "classpath");
    }

    void serverVersion(String version) {
        once("serverVersion");
        if (set.contains("classpath")) {
            throw new IllegalStateException("serverVersion and classpath cannot both be set");
        }
        ServerReleases.Release release = ServerReleases.find(Objects.requireNonNull(version, "version"));
        serverVersion = release.version();
        classpath = release.classpath();
    }

    void security(ServerSecurity serverSecurity) {
        once("security");
        security = Objects.requireNonNull(serverSecurity, "security");
    }

    void serverConfig(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (extraConfig.putIfAbsent(key, value) != null) {
            throw new IllegalStateException("serverConfig " + key + " was already set");
        }
    }

    /**
     * Checks the options together and chooses the defaults of those not set: reconfiguration on unless peer
     * proxies are, a minimum session timeout of two ticks, this JVM's class path and ZooKeeper release.
     *
     * @return a copy of the options, complete
     * @throws IllegalStateException if peer proxies are combined with dynamic reconfiguration, the minimum session
     *     timeout exceeds the maximum, or security is combined with another release than this JVM's
     */
    EnsembleSettings settings() {
        boolean reconfig;
        if (reconfigEnabled == null) {
            reconfig = !peerProxies;
        } else if (reconfigEnabled && peerProxies) {
            throw new IllegalStateException("peer proxies need reconfigEnabled(false): with dynamic "
                    + "reconfiguration a server adopts its leader's view of the peer addresses");
        } else {
            reconfig = reconfigEnabled;
        }
        Duration minSession = minSessionTimeout != null ? minSessionTimeout : tickTime.multipliedBy(2);
        if (minSession.compareTo(maxSessionTimeout) > 0) {
            throw new IllegalStateException("minSessionTimeout " + minSession
                    + " > maxSessionTimeout " + maxSessionTimeout);
        }
        String path = classpath != null ? classpath : JavaCommand.currentClasspath();
        String version;
        if (serverVersion == null) {
            version = EmbeddedZooKeeper.zooKeeperVersion();
        } else if (security != ServerSecurity.NONE) {
            throw new IllegalStateException("security needs the servers of this JVM's ZooKeeper, not "
                    + serverVersion);
        } else {
            version = serverVersion;
        }
        return new EnsembleSettings(servers, clientProxies, peerProxies, reconfig, tickTime, minSession,
                maxSessionTimeout, startTimeout, security, heap, List.copyOf(jvmArgs), path, version,
                Collections.unmodifiableMap(new LinkedHashMap<>(extraConfig)));
    }

    private void once(String option) {
        if (!set.add(option)) {
            throw new IllegalStateException(option + " was already set");
        }
    }

    private static Duration requireRange(Duration d, String name, Duration min, Duration max) {
        Objects.requireNonNull(d, name);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException(name + " must be within " + min + ".." + max + ": " + d);
        }
        return d;
    }
}
