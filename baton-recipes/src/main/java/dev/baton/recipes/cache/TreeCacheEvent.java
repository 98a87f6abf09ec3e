package dev.baton.recipes.cache;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An event in the shape of Curator's classic {@code TreeCache}, delivered to the {@link TreeCacheListener}s of a
 * {@link TreeCache}, or of a {@link BatonCache} through {@link BatonCacheListener.Builder#forTreeCache}.
 * {@link #getType()}, {@link #getData()} and {@link #getOldData()} are Curator's names for the components.
 *
 * @param type what happened
 * @param data the node concerned: the new data for {@link Type#NODE_ADDED} and {@link Type#NODE_UPDATED}, the
 *        removed node's last data for {@link Type#NODE_REMOVED}; null for the connection events and
 *        {@link Type#INITIALIZED}
 * @param oldData the previous data for {@link Type#NODE_UPDATED}; null otherwise
 */
public record TreeCacheEvent(Type type, @Nullable ChildData data, @Nullable ChildData oldData) {

    /** What a {@link TreeCacheEvent} reports. */
    public enum Type {
        /** A node was created (or found by the initial load or a resync). */
        NODE_ADDED,
        /** A node's data changed. */
        NODE_UPDATED,
        /** A node was deleted. */
        NODE_REMOVED,
        /** The client's connection was suspended; the cache may miss changes until it reconnects. */
        CONNECTION_SUSPENDED,
        /** The client reconnected; the cache resynchronizes and reports what changed meanwhile. */
        CONNECTION_RECONNECTED,
        /** The session was lost; the cache rebuilds on the next session and reports the differences. */
        CONNECTION_LOST,
        /** The initial load is done: every node present at start has been reported. */
        INITIALIZED
    }

    /**
     * Checks the components.
     *
     * @throws NullPointerException if {@code type} is null
     * @param type the type
     * @param data the data
     * @param oldData the oldData
     */
    public TreeCacheEvent {
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

    /** {@return {@link #oldData()}, under Curator's name} */
    public @Nullable ChildData getOldData() {
        return oldData;
    }
}
