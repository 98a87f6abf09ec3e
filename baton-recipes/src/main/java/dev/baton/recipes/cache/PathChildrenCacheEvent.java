package dev.baton.recipes.cache;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An event in the shape of Curator's classic {@code PathChildrenCache}, delivered to the
 * {@link PathChildrenCacheListener}s of a {@link PathChildrenCache}, or of a {@link BatonCache} through
 * {@link BatonCacheListener.Builder#forPathChildrenCache}. {@link #getType()} and {@link #getData()} are Curator's
 * names for the components.
 *
 * @param type what happened
 * @param data the child concerned: the new data for {@link Type#CHILD_ADDED} and {@link Type#CHILD_UPDATED}, the
 *        removed child's last data for {@link Type#CHILD_REMOVED}; null for the connection events and
 *        {@link Type#INITIALIZED}
 */
public record PathChildrenCacheEvent(Type type, @Nullable ChildData data) {

    /** What a {@link PathChildrenCacheEvent} reports. */
    public enum Type {
        /** A direct child of the path was created (or found by the initial load or a resync). */
        CHILD_ADDED,
        /** A direct child's data changed. */
        CHILD_UPDATED,
        /** A direct child was deleted. */
        CHILD_REMOVED,
        /** The client's connection was suspended; the cache may miss changes until it reconnects. */
        CONNECTION_SUSPENDED,
        /** The client reconnected; the cache resynchronizes and reports what changed meanwhile. */
        CONNECTION_RECONNECTED,
        /** The session was lost; the cache rebuilds on the next session and reports the differences. */
        CONNECTION_LOST,
        /** The initial load is done: every child present at start has been reported. */
        INITIALIZED
    }

    /**
     * Checks the components.
     *
     * @throws NullPointerException if {@code type} is null
     * @param type the type
     * @param data the data
     */
    public PathChildrenCacheEvent {
        Objects.requireNonNull(type, "type");
    }

    /** {@return {@link #type()}, under Curator's name} */
    public Type getType() {
        return type;
    }

    /** {@return {@link #data()}, under Curator's name} */
    public @Nullable ChildData getData() {
        return data;
    }
}
