package dev.baton;

import dev.baton.internal.Futures;
import dev.baton.internal.ListenerContainer;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import dev.baton.listen.UnhandledErrorListener;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What all views of one client share: configuration, session, the two threads, listener containers and the
 * background retrier. The namespace views ({@link DefaultBatonClient}) are thin.
 */
final class ClientCore {
    private static final Logger LOG = LoggerFactory.getLogger(ClientCore.class);
    private static final AtomicInteger CLIENT_IDS = new AtomicInteger();

    private final ClientConfig config;
    private final int id = CLIENT_IDS.incrementAndGet();
    private final AtomicReference<BatonClient.State> state = new AtomicReference<>(BatonClient.State.LATENT);
    private final Session session = new Session(this);
    private final ServerFeatures features = new ServerFeatures(this);
    private final ScheduledThreadPoolExecutor scheduler;
    private final ThreadPoolExecutor events;
    private final ListenerContainer<ConnectionStateListener> stateListeners;
    private final ListenerContainer<UnhandledErrorListener> errorListeners;
    private final ListenerContainer<BatonListener> eventListeners;
    private final OperationListeners operationListeners = new OperationListeners(this::reportError);
    private final Set<String> ensuredPaths = ConcurrentHashMap.newKeySet();
    /**
     * The retry pauses of asynchronous calls now running. Closing the client drops the scheduler's tasks, so
     * {@link #close()} fails these itself, and the calls waiting on them end rather than wait forever.
     */
    private final Set<CompletableFuture<Void>> pauses = ConcurrentHashMap.newKeySet();
    private final BackgroundRetrier retrier = new BackgroundRetrier(this);
    /** Null when the client does not follow a reconfigured ensemble. */
    private final @Nullable EnsembleTracker ensembleTracker;
    private final Exec blocking = new Exec(this, true);
    private final Exec async = new Exec(this, false);
    private final DefaultBatonClient root;

    ClientCore(ClientConfig config) {
        this.config = config;
        ThreadFactory factory = config.threadFactory();
        this.scheduler = new ScheduledThreadPoolExecutor(1, threadFactory(factory, "baton-scheduler-" + id));
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        // One thread, started on demand and gone when idle, so listeners see events in order and an idle
        // client costs no thread of ours beyond the scheduler's.
        this.events = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                threadFactory(factory, "baton-events-" + id));
        this.events.allowCoreThreadTimeOut(true);
        Executor eventExecutor = events;
        this.errorListeners = new ListenerContainer<>(eventExecutor,
                (message, e) -> LOG.error("Unhandled-error listener failed: {}", message, e));
        this.stateListeners = new ListenerContainer<>(eventExecutor, this::reportError);
        this.eventListeners = new ListenerContainer<>(eventExecutor, this::reportError);
        this.ensembleTracker = config.ensembleTracker() ? new EnsembleTracker(this) : null;
        this.root = new DefaultBatonClient(this, Namespace.of(config.namespace()), true);
    }

    private static ThreadFactory threadFactory(@Nullable ThreadFactory given, String name) {
        if (given != null) {
            return given;
        }
        return runnable -> {
            Thread t = new Thread(runnable, name);
            t.setDaemon(true);
            return t;
        };
    }

    ClientConfig config() {
        return config;
    }

    DefaultBatonClient rootClient() {
        return root;
    }

    Session session() {
        return session;
    }

    /** What the connected server can do. */
    ServerFeatures features() {
        return features;
    }

    ScheduledThreadPoolExecutor scheduler() {
        return scheduler;
    }

    Exec exec(boolean blockingMode) {
        return blockingMode ? blocking : async;
    }

    BackgroundRetrier retrier() {
        return retrier;
    }

    ListenerContainer<ConnectionStateListener> stateListeners() {
        return stateListeners;
    }

    ListenerContainer<UnhandledErrorListener> errorListeners() {
        return errorListeners;
    }

    ListenerContainer<BatonListener> eventListeners() {
        return eventListeners;
    }

    OperationListeners operationListeners() {
        return operationListeners;
    }

    /** {@return true while at least one operation listener is registered} */
    boolean isObserved() {
        return !operationListeners.isEmpty();
    }

    void reportOperation(OperationEvent event) {
        operationListeners.operationCompleted(event);
    }

    // NullAway takes every AtomicReference.get() for nullable; this one starts LATENT and is never set to null.
    @SuppressWarnings("NullAway")
    BatonClient.State state() {
        return state.get();
    }

    boolean isClosed() {
        return state.get() == BatonClient.State.CLOSED;
    }

    /** Marks a path as known to exist (namespace roots). */
    boolean isEnsured(String path) {
        return ensuredPaths.contains(path);
    }

    void markEnsured(String path) {
        ensuredPaths.add(path);
    }

    /**
     * A pause of {@code delay} on the scheduler, for an asynchronous retry; fails with {@link #closedException()}
     * if the client is closed before it ends.
     */
    // A future's equality is its identity, which is what removing this very pause needs.
    @SuppressWarnings("CollectionUndefinedEquality")
    CompletableFuture<Void> pause(Duration delay) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        pauses.add(done);
        Futures.whenDone(done, (v, error) -> pauses.remove(done));
        try {
            root.schedule(() -> done.complete(null), delay);
        } catch (RuntimeException e) {
            done.completeExceptionally(closedException()); // closed already
        }
        return done;
    }

    void start() {
        if (!state.compareAndSet(BatonClient.State.LATENT, BatonClient.State.STARTED)) {
            throw new IllegalStateException("client cannot be started: it is " + state.get());
        }
        session.start();
    }

    void close() {
        BatonClient.State previous = state.getAndSet(BatonClient.State.CLOSED);
        if (previous == BatonClient.State.CLOSED) {
            return;
        }
        if (previous == BatonClient.State.STARTED) {
            eventListeners.forEach(l -> callListener(l, new BatonEvent(BatonEventType.CLOSING, 0, null, null,
                    null, null, null, null, null, null)));
        }
        retrier.close();
        session.close();
        scheduler.shutdownNow();
        pauses.forEach(p -> p.completeExceptionally(closedException()));
        events.shutdown();
        try {
            if (!events.awaitTermination(2, TimeUnit.SECONDS)) {
                events.shutdownNow();
            }
            scheduler.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void checkStarted() {
        BatonClient.State s = state.get();
        if (s != BatonClient.State.STARTED) {
            throw s == BatonClient.State.CLOSED ? closedException()
                    : new IllegalStateException("client is not started; call start() first");
        }
    }

    IllegalStateException closedException() {
        return new IllegalStateException("client is closed");
    }

    void postState(ConnectionState newState) {
        LOG.debug("Connection state {}", newState);
        operationListeners.connectionStateChanged(newState);
        stateListeners.forEach(l -> l.stateChanged(root, newState));
    }

    void onConnected(ZooKeeper handle) {
        if (ensembleTracker != null) {
            ensembleTracker.onConnected(handle);
        }
    }

    void callListener(BatonListener listener, BatonEvent event) {
        try {
            listener.eventReceived(root, event);
        } catch (Exception e) {
            reportError("event listener " + listener + " threw", e);
        }
    }

    void reportError(String message, Throwable e) {
        LOG.debug("Unhandled error: {}", message, e);
        if (isClosed()) {
            return; // listeners and their executor are gone; the debug line above is all that is left to do
        }
        if (errorListeners.size() == 0) {
            LOG.error("{}", message, e);
            return;
        }
        errorListeners.forEach(l -> l.unhandledError(message, e));
    }
}
