package dev.baton.spring;

import java.util.Objects;

/**
 * Published when this instance stops leading {@code baton.leader.path} (the connection was suspended or lost,
 * or the application is shutting down), after the {@link LeaderOnly} lifecycle beans were stopped.
 *
 * @param path the election's path
 * @param id this instance's id
 * @param fencingToken the token of the leadership that ended
 */
public record LeadershipRevokedEvent(String path, String id, long fencingToken) {
    /**
     * @param path the election's path
     * @param id this instance's id
     * @param fencingToken the token of the leadership that ended
     * @throws NullPointerException if {@code path} or {@code id} is null
     */
    public LeadershipRevokedEvent {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(id, "id");
    }
}
