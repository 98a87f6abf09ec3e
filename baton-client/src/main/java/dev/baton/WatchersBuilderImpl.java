package dev.baton;

import dev.baton.internal.Failures;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;

final class WatchersBuilderImpl implements WatchersBuilder {
    private final DefaultBatonClient client;

    WatchersBuilderImpl(DefaultBatonClient client) {
        this.client = client;
    }

    @Override
    public AddWatchBuilder add() {
        return new Add(client);
    }

    @Override
    public RemoveWatchesBuilder remove(Watcher watcher) {
        return new Remove(client, client.wrap(watcher));
    }

    @Override
    public RemoveWatchesBuilder removeAll() {
        return new Remove(client, null);
    }

    static final class Add extends OpBuilder<Void> implements AddWatchBuilder {
        private AddWatchMode mode = AddWatchMode.PERSISTENT;
        private @Nullable Watcher watcher;

        Add(DefaultBatonClient client) {
            super(client);
        }

        @Override
        public AddWatchBuilder withMode(AddWatchMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        @Override
        public AddWatchBuilder usingWatcher(Watcher watcher) {
            this.watcher = client.wrap(watcher);
            return this;
        }

        @Override
        CompletableFuture<Void> run(Exec exec, String path, byte @Nullable [] data) {
            Watcher w = watcher != null ? watcher : client.eventWatcher();
            ServerFeatures features = client.core().features();
            boolean blocking = exec.isBlocking();
            // A watch needs no node: it goes ahead of the namespace node, so it is in place before the caller's
            // next request.
            return features.explainFailure(ServerFeature.PERSISTENT_WATCHES,
                    features.require(ServerFeature.PERSISTENT_WATCHES, blocking).thenCompose(v -> exec
                            .retryingAheadOfNamespace(Calls.addWatch(client.fullPath(path, false), path, w, mode))),
                    blocking);
        }

        @Override
        BatonEvent successEvent(String path, Void result) {
            return new BatonEvent(BatonEventType.ADD_WATCH, 0, path, path, null, null, null, null, null, null);
        }

        @Override
        BatonEventType eventType() {
            return BatonEventType.ADD_WATCH;
        }
    }

    static final class Remove extends OpBuilder<Void> implements RemoveWatchesBuilder {
        /** The watcher to remove; null to remove every watcher of the type. */
        private final @Nullable Watcher watcher;
        private Watcher.WatcherType type = Watcher.WatcherType.Any;
        private boolean local;
        private boolean quietly;

        Remove(DefaultBatonClient client, @Nullable Watcher watcher) {
            super(client);
            this.watcher = watcher;
        }

        @Override
        public RemoveWatchesBuilder ofType(Watcher.WatcherType type) {
            this.type = Objects.requireNonNull(type, "type");
            return this;
        }

        @Override
        public RemoveWatchesBuilder locally() {
            local = true;
            return this;
        }

        @Override
        public RemoveWatchesBuilder quietly() {
            quietly = true;
            return this;
        }

        @Override
        CompletableFuture<Void> run(Exec exec, String path, byte @Nullable [] data) {
            CompletableFuture<Void> removed = exec.retrying(
                    Calls.removeWatches(client.fullPath(path, false), path, watcher, type, local));
            if (!quietly) {
                return removed;
            }
            return removed.exceptionallyCompose(error -> Failures.code(error) == KeeperException.Code.NOWATCHER
                    ? CompletableFuture.completedFuture(null) : Exec.failed(Failures.unwrap(error)));
        }

        @Override
        BatonEvent successEvent(String path, Void result) {
            return new BatonEvent(BatonEventType.REMOVE_WATCHES, 0, path, path, null, null, null, null, null,
                    null);
        }

        @Override
        BatonEventType eventType() {
            return BatonEventType.REMOVE_WATCHES;
        }
    }
}
