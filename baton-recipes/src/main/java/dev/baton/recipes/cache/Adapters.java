package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.state.ConnectionState;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** The listeners {@link BatonCacheListener.Builder} makes. */
final class Adapters {
    private Adapters() {
    }

    /**
     * Implemented by built listeners that want the client's connection states (the classic shapes report them).
     * The cache hands them in, in order with its other events.
     */
    interface ConnectionAware {
        void connectionStateChanged(ConnectionState state);
    }

    /** Hands every event to each part; optionally silent until the initial load is done. */
    static final class Composite implements BatonCacheListener, ConnectionAware {
        private final List<BatonCacheListener> parts;
        private final boolean afterInitialized;
        private volatile boolean initialized;

        Composite(List<BatonCacheListener> parts, boolean afterInitialized) {
            this.parts = parts;
            this.afterInitialized = afterInitialized;
        }

        @Override
        public void event(Type type, @Nullable ChildData oldData, @Nullable ChildData data) {
            if (afterInitialized && !initialized) {
                return;
            }
            RuntimeException first = null;
            for (BatonCacheListener part : parts) {
                try {
                    part.event(type, oldData, data);
                } catch (RuntimeException e) {
                    first = keep(first, e);
                }
            }
            if (first != null) {
                throw first;
            }
        }

        @Override
        public void initialized() {
            initialized = true;
            RuntimeException first = null;
            for (BatonCacheListener part : parts) {
                try {
                    part.initialized();
                } catch (RuntimeException e) {
                    first = keep(first, e);
                }
            }
            if (first != null) {
                throw first;
            }
        }

        @Override
        public void connectionStateChanged(ConnectionState state) {
            if (afterInitialized && !initialized) {
                return;
            }
            RuntimeException first = null;
            for (BatonCacheListener part : parts) {
                if (part instanceof ConnectionAware aware) {
                    try {
                        aware.connectionStateChanged(state);
                    } catch (RuntimeException e) {
                        first = keep(first, e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }

        private static RuntimeException keep(@Nullable RuntimeException first, RuntimeException next) {
            if (first == null) {
                return next;
            }
            first.addSuppressed(next);
            return first;
        }
    }

    /** Curator's PathChildrenCacheListener shape. */
    static final class PathChildren implements BatonCacheListener, ConnectionAware {
        private final String path;
        private final BatonClient client;
        private final PathChildrenCacheListener listener;
        /** Whether the end of the initial load is reported ({@code INITIALIZED}). */
        private final boolean sendInitialized;

        PathChildren(String path, BatonClient client, PathChildrenCacheListener listener) {
            this(path, client, listener, true);
        }

        PathChildren(String path, BatonClient client, PathChildrenCacheListener listener, boolean sendInitialized) {
            this.path = path;
            this.client = client;
            this.listener = listener;
            this.sendInitialized = sendInitialized;
        }

        @Override
        public void event(Type type, @Nullable ChildData oldData, @Nullable ChildData data) {
            ChildData node = data != null ? data : Objects.requireNonNull(oldData, "an event without a node");
            if (node.path().equals("/") || !BatonPaths.parent(node.path()).equals(path)) {
                return;
            }
            switch (type) {
                case NODE_CREATED -> send(PathChildrenCacheEvent.Type.CHILD_ADDED, data);
                case NODE_CHANGED -> send(PathChildrenCacheEvent.Type.CHILD_UPDATED, data);
                case NODE_DELETED -> send(PathChildrenCacheEvent.Type.CHILD_REMOVED, oldData);
            }
        }

        @Override
        public void initialized() {
            if (sendInitialized) {
                send(PathChildrenCacheEvent.Type.INITIALIZED, null);
            }
        }

        @Override
        public void connectionStateChanged(ConnectionState state) {
            switch (state) {
                case SUSPENDED -> send(PathChildrenCacheEvent.Type.CONNECTION_SUSPENDED, null);
                case RECONNECTED -> send(PathChildrenCacheEvent.Type.CONNECTION_RECONNECTED, null);
                case LOST -> send(PathChildrenCacheEvent.Type.CONNECTION_LOST, null);
                default -> {
                }
            }
        }

        private void send(PathChildrenCacheEvent.Type type, @Nullable ChildData data) {
            try {
                listener.childEvent(client, new PathChildrenCacheEvent(type, data));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("PathChildrenCacheListener failed on " + type, e);
            }
        }

        @Override
        public String toString() {
            return "PathChildrenCacheListener adapter for " + path + ": " + listener;
        }
    }

    /** Curator's TreeCacheListener shape. */
    static final class Tree implements BatonCacheListener, ConnectionAware {
        private final BatonClient client;
        private final TreeCacheListener listener;

        Tree(BatonClient client, TreeCacheListener listener) {
            this.client = client;
            this.listener = listener;
        }

        @Override
        public void event(Type type, @Nullable ChildData oldData, @Nullable ChildData data) {
            switch (type) {
                case NODE_CREATED -> send(TreeCacheEvent.Type.NODE_ADDED, data, null);
                case NODE_CHANGED -> send(TreeCacheEvent.Type.NODE_UPDATED, data, oldData);
                case NODE_DELETED -> send(TreeCacheEvent.Type.NODE_REMOVED, oldData, null);
            }
        }

        @Override
        public void initialized() {
            send(TreeCacheEvent.Type.INITIALIZED, null, null);
        }

        @Override
        public void connectionStateChanged(ConnectionState state) {
            switch (state) {
                case SUSPENDED -> send(TreeCacheEvent.Type.CONNECTION_SUSPENDED, null, null);
                case RECONNECTED -> send(TreeCacheEvent.Type.CONNECTION_RECONNECTED, null, null);
                case LOST -> send(TreeCacheEvent.Type.CONNECTION_LOST, null, null);
                default -> {
                }
            }
        }

        private void send(TreeCacheEvent.Type type, @Nullable ChildData data, @Nullable ChildData oldData) {
            try {
                listener.childEvent(client, new TreeCacheEvent(type, data, oldData));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("TreeCacheListener failed on " + type, e);
            }
        }

        @Override
        public String toString() {
            return "TreeCacheListener adapter: " + listener;
        }
    }
}
