package dev.baton.spring;

import dev.baton.BatonClient;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code baton} health ({@code /actuator/health/baton}): UP while the client is connected, and through a
 * suspended connection shorter than the connection timeout; DOWN before the first connection, after a
 * suspension longer than the connection timeout, and after the session was lost until a new one is connected.
 * Details: {@code state}, {@code sessionId}, {@code connectString}, and {@code leader} when leader-gating is on.
 * Thread-safe; reading it sends nothing to ZooKeeper.
 */
public final class BatonHealthIndicator implements HealthIndicator, AutoCloseable {
    private final BatonClient client;
    private final String connectString;
    private final Duration grace;
    private final @Nullable Supplier<Boolean> leader;
    private final ConnectionStateListener listener = this::stateChanged;
    /** When the current suspension began (System.nanoTime), or null when not suspended. */
    private volatile @Nullable Long suspendedSince;

    /**
     * @param client the client
     * @param connectString shown in the details
     * @param grace how long a suspended connection still counts as UP
     * @param leader tells whether this instance leads, for the details; null when there is no leader-gating
     * @throws NullPointerException if {@code client}, {@code connectString} or {@code grace} is null
     */
    public BatonHealthIndicator(BatonClient client, String connectString, Duration grace,
            @Nullable Supplier<Boolean> leader) {
        this.client = Objects.requireNonNull(client, "client");
        this.connectString = Objects.requireNonNull(connectString, "connectString");
        this.grace = Objects.requireNonNull(grace, "grace");
        this.leader = leader;
        if (client.getConnectionState() == ConnectionState.SUSPENDED) {
            suspendedSince = System.nanoTime();
        }
        client.getConnectionStateListenable().addListener(listener);
    }

    private void stateChanged(BatonClient c, ConnectionState state) {
        if (state == ConnectionState.SUSPENDED) {
            suspendedSince = System.nanoTime();
        } else {
            suspendedSince = null;
        }
    }

    @Override
    public Health health() {
        ConnectionState state = client.getConnectionState();
        boolean up = state != null && state != ConnectionState.LOST
                && (state != ConnectionState.SUSPENDED || withinGrace());
        Health.Builder health = up ? Health.up() : Health.down();
        health.withDetail("state", state == null ? "CONNECTING" : state.name())
                .withDetail("connectString", connectString);
        if (client.isConnected()) {
            try {
                health.withDetail("sessionId", "0x" + Long.toHexString(client.getZooKeeper().getSessionId()));
            } catch (IllegalStateException e) {
                // closed meanwhile: no session to show
            }
        }
        if (leader != null) {
            health.withDetail("leader", leader.get());
        }
        return health.build();
    }

    /** A suspension whose listener call has not come yet has only just begun. */
    private boolean withinGrace() {
        Long since = suspendedSince;
        return since == null || System.nanoTime() - since < grace.toNanos();
    }

    /** Stops listening to the client. */
    @Override
    public void close() {
        client.getConnectionStateListenable().removeListener(listener);
    }
}
