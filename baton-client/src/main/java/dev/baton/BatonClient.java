package dev.baton;

import dev.baton.internal.Failures;
import dev.baton.listen.Listenable;
import dev.baton.listen.UnhandledErrorListener;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateErrorPolicy;
import dev.baton.state.ConnectionStateListener;
import com.google.errorprone.annotations.CanIgnoreReturnValue;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * A ZooKeeper client that keeps its session healthy: it retries operations that failed for connection reasons,
 * reports {@link ConnectionState}s to listeners, and opens a new session by itself after the old one expired.
 * Made by {@link Baton#newClient} or {@link Baton#builder()}.
 *
 * <pre>{@code
 * try (BatonClient client = Baton.newClient("127.0.0.1:2181", new ExponentialBackoffRetry(1000, 3))) {
 *     client.start();
 *     client.blockUntilConnected(10, TimeUnit.SECONDS);
 *     client.create().creatingParentsIfNeeded().forPath("/app/config", "v1".getBytes(UTF_8));
 * }
 * }</pre>
 *
 * <p>Every operation has three forms: blocking ({@code forPath}), a {@link java.util.concurrent.CompletableFuture}
 * ({@code forPathAsync}), and a Curator-style callback ({@code inBackground(callback).forPath}). Failures are
 * ZooKeeper's own {@link org.apache.zookeeper.KeeperException} subclasses.
 *
 * <p>Thread-safe. The client adds at most two threads to the ZooKeeper handle's own two: one that delivers
 * listener events in order, one that runs retries and background work.
 */
public interface BatonClient extends AutoCloseable {

    /** The lifecycle of a client. */
    enum State {
        /** Built, not started. */
        LATENT,
        /** Started; connecting or connected. */
        STARTED,
        /** Closed; no operation is allowed. */
        CLOSED
    }

    /**
     * Starts connecting in the background and returns at once.
     *
     * @throws IllegalStateException if the client was already started or closed
     */
    void start();

    /**
     * Closes the session and releases every thread. Background retries (guaranteed deletes) that have not
     * completed are dropped. Calling it again does nothing.
     */
    @Override
    void close();

    /**
     * Waits until the client is connected.
     *
     * @param maxWait how long to wait, {@code >= 0}
     * @param unit the unit of {@code maxWait}
     * @return true if connected, false if the time ran out or the client was closed
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws IllegalStateException if the client was not started
     */
    boolean blockUntilConnected(long maxWait, TimeUnit unit) throws InterruptedException;

    /**
     * Waits without limit until the client is connected.
     *
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the client is not started, or is closed while waiting
     */
    void blockUntilConnected() throws InterruptedException;

    /** {@return this client's lifecycle state} */
    State getState();

    /**
     * {@return the current connection state; null before the first connection}
     */
    @Nullable ConnectionState getConnectionState();

    /** {@return true if the client is connected to a server now} */
    boolean isConnected();

    /**
     * The release of the ZooKeeper server this client is connected to, as that server tells it (ZooKeeper's
     * {@code srvr} command, on a connection of its own). Asked once per connection, on the calling thread; the
     * calls that need a newer server than the one connected ask it too, and fail with an
     * {@link UnsupportedServerFeatureException} (see {@link ServerFeature}).
     *
     * @return the version, e.g. {@code 3.8.6}; empty while not connected, or if the server did not tell it (a port
     *     that speaks only TLS)
     */
    Optional<String> serverVersion();

    /**
     * {@return the current ZooKeeper handle (it changes after a session expiry), for advanced use and tests}
     *
     * @throws IllegalStateException if the client is not started or is closed
     */
    ZooKeeper getZooKeeper();

    /**
     * {@return the session timeout the server granted, or the requested one before the first connection}
     */
    Duration getSessionTimeout();

    /**
     * How long the current session is sure to stay alive on the server even if this process hears nothing more
     * from it: the time since the client last heard from a server, subtracted from the negotiated session
     * timeout, less a safety margin, on the monotonic clock. A leader or lock holder that acts on shared
     * state should stop before this runs out. Recipes report it per hold as {@code safeFor()}.
     *
     * @return the time left, {@link Duration#ZERO} if the session may already be gone, the session was lost,
     *         or the client is not started or closed
     */
    Duration safeFor();

    /**
     * Runs a short task once, after a delay, on the client's scheduler thread (the thread that also runs retries),
     * so that recipes and users can time out or pause asynchronous work without a thread of their own. The task
     * must not block. Tasks still pending when the client closes are dropped. An exception the task throws is
     * logged at error level.
     *
     * @param task what to run
     * @param delay how long from now, {@code >= 0}
     * @return a handle to cancel the task; cancelling removes it from the scheduler
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code delay} is negative
     * @throws IllegalStateException if the client is not started or is closed
     */
    // A task that is never cancelled needs no handle; what it throws is logged, not kept in the future.
    @CanIgnoreReturnValue
    ScheduledFuture<?> schedule(Runnable task, Duration delay);

    /**
     * Tells whether the calling thread is ZooKeeper's event thread of this client's current session: the thread
     * that runs watchers, {@code inBackground} callbacks and the stages of {@code ...Async} futures. A call that
     * waits there for a later event or reply can never finish, because that thread is the one that would deliver
     * it; recipes check this before they block.
     *
     * @return true on the event thread
     */
    boolean isEventThread();

    /** {@return listeners of {@link ConnectionState} changes, called in order on the client's event thread} */
    Listenable<ConnectionStateListener> getConnectionStateListenable();

    /** {@return listeners of errors in background work and in other listeners} */
    Listenable<UnhandledErrorListener> getUnhandledErrorListenable();

    /** {@return listeners of bare {@code inBackground()} results and {@code watched()} events} */
    Listenable<BatonListener> getEventListenable();

    /**
     * The hook for metrics and tracing: listeners told about every operation (type, path, duration, result
     * code, retries) and every connection state change of this client and of its namespace views. Listeners
     * added without an executor are called on the thread that saw the outcome and must be quick; see
     * {@link OperationListener}. While none is registered, operations pay nothing for the hook.
     *
     * @return the operation listeners
     */
    Listenable<OperationListener> getOperationListenable();

    /** {@return which connection states recipes treat as errors} */
    ConnectionStateErrorPolicy getConnectionStateErrorPolicy();

    /** {@return the namespace without a leading slash, or {@code ""} for none} */
    String getNamespace();

    /**
     * Returns a view of this client whose paths are under another namespace. The view shares the session,
     * listeners and lifecycle of this client: its {@code start()} throws and its {@code close()} does nothing.
     * Its first operation of any kind creates the namespace node where it is missing, as Curator's does; a
     * persistent watch ({@link #watchers()}), which needs no node, is sent ahead of that create, so it is in place
     * before any later request of the session, and its call completes once both are done.
     *
     * @param namespace the namespace, such as {@code "app"} or {@code "app/region"}; null or {@code ""} for none
     * @return the view
     * @throws IllegalArgumentException if the namespace is not a valid path once prefixed with {@code /}
     */
    BatonClient usingNamespace(@Nullable String namespace);

    /** {@return a builder for a create} */
    CreateBuilder create();

    /** {@return a builder for an exists check} */
    ExistsBuilder checkExists();

    /** {@return a builder for a data read} */
    GetDataBuilder getData();

    /** {@return a builder for a data write} */
    SetDataBuilder setData();

    /** {@return a builder for a children listing} */
    GetChildrenBuilder getChildren();

    /** {@return a builder for a delete} */
    DeleteBuilder delete();

    /** {@return a builder for a sync} */
    SyncBuilder sync();

    /** {@return a builder for an ACL read} */
    GetACLBuilder getACL();

    /** {@return a builder for an ACL write} */
    SetACLBuilder setACL();

    /** {@return builders for adding and removing watches} */
    WatchersBuilder watchers();

    /** {@return a builder that runs a transaction} */
    TransactionBuilder transaction();

    /** {@return the factory of transaction operations} */
    TransactionOp transactionOp();
}
