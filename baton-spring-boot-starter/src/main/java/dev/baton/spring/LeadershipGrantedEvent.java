package dev.baton.spring;

import java.util.Objects;

/**
 * Published when this instance becomes leader of {@code baton.leader.path}, after the {@link LeaderOnly}
 * lifecycle beans were started.
 *
 * @param path the election's path
 * @param id this instance's id
 * @param fencingToken the token of this leadership: it grows with every new leader of the path; hand it to the
 *     resources the leader writes to so they can refuse an older leader
 */
public record LeadershipGrantedEvent(String path, String id, long fencingToken) {
    /**
     * @param path the election's path
     * @param id this instance's id
     * @param fencingToken the token of this leadership: it grows with every new leader of the path; hand it to the
     *     resources the leader writes to so they can refuse an older leader
     * @throws NullPointerException if {@code path} or {@code id} is null
     */
    public LeadershipGrantedEvent {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(id, "id");
    }
}
