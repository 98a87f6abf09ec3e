package dev.baton;

import dev.baton.internal.BatonPaths;
import dev.baton.internal.ErrorSink;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.listen.Listenable;
import dev.baton.listen.UnhandledErrorListener;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateErrorPolicy;
import dev.baton.state.ConnectionStateListener;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A {@link BatonClient} over a shared {@link ClientCore}, with its own namespace. */
final class DefaultBatonClient implements BatonClient, ErrorSink {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultBatonClient.class);
    private static final Duration NEVER = Duration.ofDays(365L * 100);
    private final ClientCore core;
    private final Namespace namespace;
    private final boolean root;
    private final Watcher eventWatcher;
    private final Exec blockingExec;
    private final Exec asyncExec;

    DefaultBatonClient(ClientCore core, Namespace namespace, boolean root) {
        this.core = core;
        this.namespace = namespace;
        this.root = root;
        String nsRoot = namespace.rootPath();
        this.blockingExec = nsRoot == null ? core.exec(true) : new Exec(core, true, nsRoot);
        this.asyncExec = nsRoot == null ? core.exec(false) : new Exec(core, false, nsRoot);
        this.eventWatcher = event -> {
            if (core.isClosed()) {
                return; // the handle's closing event, or a late one: nobody is listening any more
            }
            WatchedEvent userEvent = userEvent(event);
            BatonEvent batonEvent = new BatonEvent(BatonEventType.WATCHED, 0, userEvent.getPath(),
                    userEvent.getPath(), null, null, null, userEvent, null, null);
            core.eventListeners().forEach(l -> core.callListener(l, batonEvent));
        };
    }

    ClientCore core() {
        return core;
    }

    @Override
    public void reportError(String message, Throwable error) {
        core.reportError(message, error);
    }

    Namespace namespace() {
        return namespace;
    }

    /** Runs this view's requests; with a namespace, the first one makes sure the namespace node exists. */
    Exec exec(boolean blocking) {
        core.checkStarted();
        return blocking ? blockingExec : asyncExec;
    }

    // ---- lifecycle ----

    @Override
    public void start() {
        if (!root) {
            throw new IllegalStateException("a namespace view shares its parent's lifecycle; start the parent");
        }
        core.start();
    }

    @Override
    public void close() {
        if (root) {
            core.close();
        }
    }

    @Override
    public boolean blockUntilConnected(long maxWait, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (maxWait < 0) {
            throw new IllegalArgumentException("maxWait must be >= 0, was " + maxWait);
        }
        core.checkStarted();
        return core.session().awaitConnected(unit.toMillis(maxWait));
    }

    @Override
    public void blockUntilConnected() throws InterruptedException {
        core.checkStarted();
        if (!core.session().awaitConnected(-1)) {
            core.checkStarted(); // closed while waiting
        }
    }

    @Override
    public State getState() {
        return core.state();
    }

    @Override
    public @Nullable ConnectionState getConnectionState() {
        return core.session().lastState();
    }

    @Override
    public boolean isConnected() {
        return core.state() == State.STARTED && core.session().isConnected();
    }

    @Override
    public Optional<String> serverVersion() {
        return isConnected() ? core.features().connectedVersion() : Optional.empty();
    }

    @Override
    public ZooKeeper getZooKeeper() {
        core.checkStarted();
        return core.session().handle();
    }

    @Override
    public Duration getSessionTimeout() {
        if (core.state() == State.STARTED) {
            int negotiated = core.session().handle().getSessionTimeout();
            if (negotiated > 0 && core.session().lastState() != null) {
                return Duration.ofMillis(negotiated);
            }
        }
        return core.config().sessionTimeout();
    }

    @Override
    public Duration safeFor() {
        return core.state() == State.STARTED ? core.session().safeFor() : Duration.ZERO;
    }

    @Override
    public boolean isEventThread() {
        return core.session().isEventThread();
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Duration delay) {
        Objects.requireNonNull(task, "task");
        if (Objects.requireNonNull(delay, "delay").isNegative()) {
            throw new IllegalArgumentException("delay must be >= 0, was " + delay);
        }
        core.checkStarted();
        // Duration.toNanos overflows past ~292 years; such a delay means never.
        long nanos = delay.compareTo(NEVER) > 0 ? NEVER.toNanos() : delay.toNanos();
        try {
            return core.scheduler().schedule(() -> {
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    LOG.error("A task scheduled on the client failed", e);
                }
            }, nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            throw core.closedException();
        }
    }

    @Override
    public Listenable<ConnectionStateListener> getConnectionStateListenable() {
        return core.stateListeners();
    }

    @Override
    public Listenable<UnhandledErrorListener> getUnhandledErrorListenable() {
        return core.errorListeners();
    }

    @Override
    public Listenable<BatonListener> getEventListenable() {
        return core.eventListeners();
    }

    @Override
    public Listenable<OperationListener> getOperationListenable() {
        return core.operationListeners();
    }

    @Override
    public ConnectionStateErrorPolicy getConnectionStateErrorPolicy() {
        return core.config().errorPolicy();
    }

    @Override
    public String getNamespace() {
        return namespace.name();
    }

    @Override
    public BatonClient usingNamespace(@Nullable String newNamespace) {
        return new DefaultBatonClient(core, Namespace.of(newNamespace), false);
    }

    // ---- operations ----

    @Override
    public CreateBuilder create() {
        return new CreateBuilderImpl(this);
    }

    @Override
    public ExistsBuilder checkExists() {
        return new ReadBuilders.Exists(this);
    }

    @Override
    public GetDataBuilder getData() {
        return new ReadBuilders.GetData(this);
    }

    @Override
    public SetDataBuilder setData() {
        return new WriteBuilders.SetData(this);
    }

    @Override
    public GetChildrenBuilder getChildren() {
        return new ReadBuilders.GetChildren(this);
    }

    @Override
    public DeleteBuilder delete() {
        return new DeleteBuilderImpl(this);
    }

    @Override
    public SyncBuilder sync() {
        return new WriteBuilders.Sync(this);
    }

    @Override
    public GetACLBuilder getACL() {
        return new ReadBuilders.GetACL(this);
    }

    @Override
    public SetACLBuilder setACL() {
        return new WriteBuilders.SetACL(this);
    }

    @Override
    public WatchersBuilder watchers() {
        return new WatchersBuilderImpl(this);
    }

    @Override
    public TransactionBuilder transaction() {
        return new TransactionImpl(this);
    }

    @Override
    public TransactionOp transactionOp() {
        return new TransactionImpl.Ops(this);
    }

    // ---- helpers shared by the builders ----

    /** Validates a user path and puts it under the namespace. */
    String fullPath(String userPath, boolean sequential) {
        return namespace.fix(BatonPaths.validate(userPath, sequential));
    }

    String userPath(String fullPath) {
        return namespace.unfix(fullPath);
    }

    /** A watch that reports to the user with namespace-free paths; the user's own watcher when no namespace. */
    Watcher wrap(Watcher watcher) {
        Objects.requireNonNull(watcher, "watcher");
        return namespace.rootPath() == null ? watcher : new NamespacedWatcher(watcher, this);
    }

    Watcher eventWatcher() {
        return eventWatcher;
    }

    WatchedEvent userEvent(WatchedEvent event) {
        if (namespace.rootPath() == null || event.getPath() == null) {
            return event;
        }
        return new WatchedEvent(event.getType(), event.getState(), userPath(event.getPath()), event.getZxid());
    }

    /** Hands a background operation's outcome to its callback, or to the event listeners. */
    <T> void deliver(CompletableFuture<T> future, BatonEventType type, @Nullable String path,
            Function<T, BatonEvent> onSuccess, @Nullable BackgroundCallback callback, @Nullable Executor executor) {
        Futures.whenDone(future, (result, error) -> {
            BatonEvent event;
            if (error == null) {
                event = onSuccess.apply(result);
            } else {
                Throwable cause = Failures.unwrap(error);
                KeeperException.Code code = cause instanceof KeeperException ke ? ke.code()
                        : KeeperException.Code.SYSTEMERROR;
                if (!(cause instanceof KeeperException)) {
                    core.reportError("background " + type + " of " + path + " failed", cause);
                }
                event = new BatonEvent(type, code.intValue(), path, path, null, null, null, null, null, null);
            }
            if (callback == null) {
                core.eventListeners().forEach(l -> core.callListener(l, event));
                return;
            }
            Runnable call = () -> {
                try {
                    callback.processResult(this, event);
                } catch (Exception e) {
                    core.reportError("background callback for " + type + " of " + path + " threw", e);
                }
            };
            if (executor == null) {
                call.run();
            } else {
                try {
                    executor.execute(call);
                } catch (RuntimeException e) {
                    core.reportError("could not run the background callback for " + path, e);
                }
            }
        });
    }

    /** Wraps a user watcher so that event paths are namespace-free; equal when the user watchers are equal. */
    private static final class NamespacedWatcher implements Watcher {
        private final Watcher delegate;
        private final DefaultBatonClient client;

        NamespacedWatcher(Watcher delegate, DefaultBatonClient client) {
            this.delegate = delegate;
            this.client = client;
        }

        @Override
        public void process(WatchedEvent event) {
            delegate.process(client.userEvent(event));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof NamespacedWatcher other && delegate.equals(other.delegate);
        }

        @Override
        public int hashCode() {
            return delegate.hashCode();
        }
    }
}
