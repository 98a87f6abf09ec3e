package dev.baton;

import java.util.Objects;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * A call needed a {@link ServerFeature} that the server it was sent to does not have: the server's release is too
 * old, or (for TTL nodes) the server was not started with the setting the feature needs. The message names the
 * feature, what it needs, the server and the server's version when the server tells it (ZooKeeper's {@code srvr}
 * command). When the version shows the server too old, nothing was sent to it.
 *
 * <p>It is ZooKeeper's own {@link KeeperException.UnimplementedException} (code {@code UNIMPLEMENTED}), so code
 * that catches that one catches this one too.
 */
public final class UnsupportedServerFeatureException extends KeeperException.UnimplementedException {
    private static final long serialVersionUID = 1L;

    private final ServerFeature feature;
    private final String server;
    private final @Nullable String serverVersion;

    /**
     * @param feature the feature the call needed
     * @param server the server, {@code host:port}
     * @param serverVersion the server's version, or null if it could not be read
     * @throws NullPointerException if {@code feature} or {@code server} is null
     */
    public UnsupportedServerFeatureException(ServerFeature feature, String server, @Nullable String serverVersion) {
        this.feature = Objects.requireNonNull(feature, "feature");
        this.server = Objects.requireNonNull(server, "server");
        this.serverVersion = serverVersion;
    }

    /** {@return the feature the call needed} */
    public ServerFeature feature() {
        return feature;
    }

    /** {@return the server the call was for, {@code host:port}} */
    public String server() {
        return server;
    }

    /** {@return the server's version, if it told it} */
    public Optional<String> serverVersion() {
        return Optional.ofNullable(serverVersion);
    }

    @Override
    public String getMessage() {
        String found = serverVersion == null
                ? "the server at " + server + " does not implement them (it did not tell its version)"
                : feature.isMissingIn(serverVersion)
                        ? "the server at " + server + " runs ZooKeeper " + serverVersion
                        : "the server at " + server + " (ZooKeeper " + serverVersion + ") does not have them enabled";
        return feature.description() + " need " + feature.requirement() + "; " + found;
    }
}
