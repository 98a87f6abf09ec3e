package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Told about the changes a {@link BatonCache} sees. Add one with {@code cache.listenable().addListener(l)}, or
 * build one from smaller parts, and the classic Curator listener shapes, with {@link #builder()}:
 *
 * <pre>{@code
 * cache.listenable().addListener(BatonCacheListener.builder()
 *         .forCreates(node -> System.out.println("created " + node.path()))
 *         .forChanges((oldNode, node) -> System.out.println("changed " + node.path()))
 *         .forDeletes(oldNode -> System.out.println("deleted " + oldNode.path()))
 *         .afterInitialized()
 *         .build());
 * }</pre>
 *
 * <p>Calls arrive one at a time and in order for a listener added without an executor (see {@link BatonCache}).
 * A listener that throws is logged and does not stop the others.
 */
@FunctionalInterface
public interface BatonCacheListener {

    /** The kind of change. */
    enum Type {
        /** A node was created, or found by the initial load or a resync: {@code oldData} is null. */
        NODE_CREATED,
        /** A node's data changed (its {@code mzxid} moved): both {@code oldData} and {@code data} are set. */
        NODE_CHANGED,
        /** A node was deleted: {@code oldData} is its last cached state and {@code data} is null. */
        NODE_DELETED
    }

    /**
     * Called for each change.
     *
     * @param type the kind of change
     * @param oldData the node before the change; null for {@link Type#NODE_CREATED}
     * @param data the node after the change; null for {@link Type#NODE_DELETED}
     */
    void event(Type type, @Nullable ChildData oldData, @Nullable ChildData data);

    /**
     * Called once, when the initial load is done: every node that existed when the cache started has been
     * reported as {@link Type#NODE_CREATED} before this call. Does nothing by default.
     */
    default void initialized() {
    }

    /**
     * Starts building a listener from parts.
     *
     * @return a new builder
     */
    static Builder builder() {
        return new Builder();
    }

    /**
     * Builds a {@link BatonCacheListener} from parts: each part receives the events it asks for. Not
     * thread-safe; {@link #build()} copies the parts, so a builder can be reused.
     */
    final class Builder {
        private final List<BatonCacheListener> parts = new ArrayList<>();
        private boolean afterInitialized;

        Builder() {
        }

        /**
         * {@return this builder}
         *
         * @param listener told the created node for each {@link Type#NODE_CREATED}
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder forCreates(Consumer<ChildData> listener) {
            Objects.requireNonNull(listener, "listener");
            parts.add((type, oldData, data) -> {
                if (type == Type.NODE_CREATED) {
                    listener.accept(data);
                }
            });
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param listener told the old and the new node for each {@link Type#NODE_CHANGED}
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder forChanges(BiConsumer<ChildData, ChildData> listener) {
            Objects.requireNonNull(listener, "listener");
            parts.add((type, oldData, data) -> {
                if (type == Type.NODE_CHANGED) {
                    listener.accept(oldData, data);
                }
            });
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param listener told the deleted node (its last cached state) for each {@link Type#NODE_DELETED}
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder forDeletes(Consumer<ChildData> listener) {
            Objects.requireNonNull(listener, "listener");
            parts.add((type, oldData, data) -> {
                if (type == Type.NODE_DELETED) {
                    listener.accept(oldData);
                }
            });
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param listener told every event and the end of the initial load
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder forAll(BatonCacheListener listener) {
            parts.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Delivers nothing until the initial load is done: the nodes found by the initial load are not reported
         * as creations, only the changes after it (and the {@code INITIALIZED} events of the classic shapes).
         *
         * @return this builder
         * @throws IllegalStateException if already set
         */
        public Builder afterInitialized() {
            if (afterInitialized) {
                throw new IllegalStateException("afterInitialized() was already set");
            }
            afterInitialized = true;
            return this;
        }

        /**
         * Adapts Curator's {@code NodeCacheListener} shape: {@code listener} runs after every change. Meant for a
         * {@link BatonCache.Option#SINGLE_NODE_CACHE} cache, where every change is a change of the one node.
         *
         * @param listener run after each change
         * @return this builder
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder forNodeCache(Runnable listener) {
            Objects.requireNonNull(listener, "listener");
            parts.add((type, oldData, data) -> listener.run());
            return this;
        }

        /**
         * Adapts Curator's {@code PathChildrenCacheListener} shape: {@code CHILD_ADDED}, {@code CHILD_UPDATED}
         * and {@code CHILD_REMOVED} for the direct children of {@code path} only, the connection events, and
         * {@code INITIALIZED}.
         *
         * @param path the parent whose children are reported, usually the cache's path
         * @param client passed to {@code listener} with each event
         * @param listener the classic listener
         * @return this builder
         * @throws NullPointerException if an argument is null
         * @throws IllegalArgumentException if {@code path} is invalid
         */
        public Builder forPathChildrenCache(String path, BatonClient client, PathChildrenCacheListener listener) {
            parts.add(new Adapters.PathChildren(BatonPaths.validate(Objects.requireNonNull(path, "path")),
                    Objects.requireNonNull(client, "client"), Objects.requireNonNull(listener, "listener")));
            return this;
        }

        /**
         * Adapts Curator's {@code TreeCacheListener} shape: {@code NODE_ADDED}, {@code NODE_UPDATED} and
         * {@code NODE_REMOVED} for every node, the connection events, and {@code INITIALIZED}.
         *
         * @param client passed to {@code listener} with each event
         * @param listener the classic listener
         * @return this builder
         * @throws NullPointerException if an argument is null
         */
        public Builder forTreeCache(BatonClient client, TreeCacheListener listener) {
            parts.add(new Adapters.Tree(Objects.requireNonNull(client, "client"),
                    Objects.requireNonNull(listener, "listener")));
            return this;
        }

        /**
         * Builds the listener from the parts added so far.
         *
         * @return a listener that hands each event to every part, in the order they were added
         */
        public BatonCacheListener build() {
            return new Adapters.Composite(List.copyOf(parts), afterInitialized);
        }
    }
}
