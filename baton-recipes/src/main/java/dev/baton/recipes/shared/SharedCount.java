package dev.baton.recipes.shared;

import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Requests;
import dev.baton.internal.SerialExecutor;
import dev.baton.internal.Versions;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An integer shared by every process that uses the same path: each sees the latest value and can change it,
 * unconditionally ({@link #setCount}) or only if nobody changed it since it was read ({@link #trySetCount}).
 * Wire-compatible with Apache Curator's {@code SharedCount}: the node holds the value as a 4-byte big-endian int.
 *
 * <pre>{@code
 * try (SharedCount count = new SharedCount(client, "/app/workers/target", 3)) {
 *     count.addListener((reader, newCount) -> resize(newCount));   // plus stateChanged(...) for connection news
 *     count.start();                                  // creates the node with 3 if it does not exist
 *     VersionedValue<Integer> seen = count.getVersionedValue();
 *     if (!count.trySetCount(seen, seen.value() + 1)) {
 *         // someone changed it first; the listener has been or will be told the new value
 *     }
 * }
 * }</pre>
 *
 * <p>The value is kept current by a data watch, re-read after every change and after every reconnection; there is
 * no thread of its own. {@link #getCount()} answers from memory. Versions are compared as serial numbers, so a
 * value is never taken for stale (or stale for new) when the node's data version wraps around from
 * {@code Integer.MAX_VALUE} to {@code Integer.MIN_VALUE}; {@code trySetCount} is exact even at version
 * {@code -1}, which ZooKeeper's {@code setData} would read as "any version". If the node is deleted, the count
 * keeps its last value and picks up the node again when it is re-created.
 *
 * <p>A conditional write ({@code trySetCount}) is sent once and never blindly retried after a connection loss
 * (a retry would report {@code BadVersion} for a write that succeeded): if the connection drops while it is in
 * flight, it throws {@link KeeperException.ConnectionLossException} and the write may or may not have happened;
 * the watch will tell. Listeners are called in order, one value at a time, on the thread that learned of the
 * value (ZooKeeper's event thread, or the caller of {@code setCount}/{@code trySetCount}) unless added with an
 * executor.
 *
 * <p>{@link #startAsync()}, {@link #setCountAsync(int)} and {@link #trySetCountAsync(VersionedValue, int)} do the
 * same without blocking: their futures complete on ZooKeeper's event thread (or the client's scheduler thread
 * after a retry), which also calls the listeners for the value they wrote; dependent stages that block should use
 * an {@code ...Async} stage with an executor. Thread-safe.
 */
public final class SharedCount implements SharedCountReader, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SharedCount.class);

    private final BatonClient client;
    private final Lifecycle lifecycle;
    private final String path;
    private final int seedValue;
    private final ListenerContainer<SharedCountListener> listeners;
    private final SerialExecutor notifications = new SerialExecutor(Runnable::run);
    private final Watcher watcher = this::nodeChanged;
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;

    // Guarded by this.
    private VersionedValue<Integer> current;
    private long currentCzxid;

    /**
     * @param client the client
     * @param path the count's node
     * @param seedValue the value the node is created with if it does not exist when the count starts
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public SharedCount(BatonClient client, String path, int seedValue) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = BatonPaths.validate(Objects.requireNonNull(path, "path"));
        this.lifecycle = new Lifecycle("SharedCount " + path);
        this.seedValue = seedValue;
        this.listeners = new ListenerContainer<>(Runnable::run,
                (message, e) -> LOG.error("SharedCount {} listener failed: {}", path, message, e));
    }

    /**
     * Creates the node with the seed value if it does not exist (missing parents as container nodes), reads the
     * value and sets the watch. Returns once the value is known.
     *
     * @throws KeeperException if ZooKeeper fails; the count is then closed
     * @throws InterruptedException if interrupted; the count is then closed
     * @throws IllegalStateException if already started or closed, or the node does not hold a 4-byte value
     */
    public void start() throws KeeperException, InterruptedException {
        Failures.await(start(true));
    }

    /**
     * Starts the count as {@link #start()} does, without holding a thread while waiting: the count is started at
     * once, and its value is known once the future completes ({@link #getCount()} throws
     * {@link IllegalStateException} until then).
     *
     * @return a future that completes once the value is known and the watch is set; or fails with the
     *         {@link KeeperException} ZooKeeper answered, such as {@link KeeperException.ConnectionLossException}
     *         when retries ran out, or with {@link IllegalStateException} if the node does not hold a 4-byte value
     *         or the client is not started or is closed. If it fails, the count is closed.
     * @throws IllegalStateException if the count was already started or is closed
     */
    public CompletableFuture<Void> startAsync() {
        return Failures.unwrapped(start(false));
    }

    private CompletableFuture<Void> start(boolean blocking) {
        lifecycle.start();
        CompletableFuture<Void> started;
        try {
            client.getConnectionStateListenable().addListener(connectionListener);
            started = readValue(blocking).exceptionallyCompose(error -> {
                if (Failures.code(error) != KeeperException.Code.NONODE) {
                    return CompletableFuture.failedFuture(error);
                }
                return Requests.send(blocking, client.create().creatingParentContainersIfNeeded(), path, toBytes(seedValue))
                        .handle((created, e) -> {
                            if (e != null && Failures.code(e) != KeeperException.Code.NODEEXISTS) {
                                throw Failures.asCompletion(e);
                            }
                            return null; // created, or another process seeded it at the same moment
                        })
                        .thenCompose(created -> readValue(blocking));
            });
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        return started.whenComplete((v, error) -> {
            if (error != null) {
                close();
            }
        });
    }

    /** Reads the value, setting the watch, and takes it as the first value known. */
    private CompletableFuture<Void> readValue(boolean blocking) {
        Stat stat = new Stat();
        return Requests.send(blocking, client.getData().usingWatcher(watcher).storingStatIn(stat), path)
                .thenAccept(data -> update(stat, fromBytes(data), false));
    }

    @Override
    public int getCount() {
        return getVersionedValue().value();
    }

    @Override
    public synchronized VersionedValue<Integer> getVersionedValue() {
        lifecycle.requireStarted();
        if (current == null) {
            throw new IllegalStateException("SharedCount " + path + " is starting: its value is not known yet");
        }
        return current;
    }

    /**
     * Sets the value, whatever it is now.
     *
     * @param newCount the new value
     * @throws KeeperException if ZooKeeper fails the write, such as {@link KeeperException.NoNodeException} if
     *         the node was deleted
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the count is not started or is closed
     */
    public void setCount(int newCount) throws KeeperException, InterruptedException {
        Failures.await(setCount(newCount, true));
    }

    /**
     * Sets the value as {@link #setCount(int)} does, without holding a thread while waiting.
     *
     * @param newCount the new value
     * @return a future that completes once the value is written (and known to this count and its listeners); or
     *         fails with the {@link KeeperException} ZooKeeper answered, such as
     *         {@link KeeperException.NoNodeException} if the node was deleted or
     *         {@link KeeperException.ConnectionLossException} when retries ran out
     * @throws IllegalStateException if the count is not started or is closed
     */
    public CompletableFuture<Void> setCountAsync(int newCount) {
        return Failures.unwrapped(setCount(newCount, false));
    }

    private CompletableFuture<Void> setCount(int newCount, boolean blocking) {
        lifecycle.requireStarted();
        return Requests.send(blocking, client.setData(), path, toBytes(newCount))
                .thenAccept(stat -> update(stat, newCount, true));
    }

    /**
     * Sets the value only if it is still the one given, at the same version: nobody changed it since
     * {@code previous} was read with {@link #getVersionedValue()}. Returns false at once, without writing, if
     * this process already knows of a newer value.
     *
     * @param previous the value as read
     * @param newCount the new value
     * @return true if the value was set, false if it had changed (or the node was deleted)
     * @throws KeeperException.ConnectionLossException if the connection was lost while the write was in flight
     *         (it may or may not have been applied) or could not be restored
     * @throws KeeperException if ZooKeeper fails otherwise
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code previous} is null
     * @throws IllegalStateException if the count is not started (or its {@link #startAsync()} has not completed)
     *         or is closed
     */
    public boolean trySetCount(VersionedValue<Integer> previous, int newCount)
            throws KeeperException, InterruptedException {
        return Failures.await(trySetCount(previous, newCount, true));
    }

    /**
     * Sets the value as {@link #trySetCount(VersionedValue, int)} does, without holding a thread while waiting:
     * only if nobody changed it since {@code previous} was read. The write is sent once, never retried.
     *
     * @param previous the value as read
     * @param newCount the new value
     * @return a future that completes with true if the value was set, with false if it had changed (or the node
     *         was deleted; at once, without writing, if this process already knows of a newer value); or fails
     *         with {@link KeeperException.ConnectionLossException} if the connection was lost while the write
     *         was in flight (it may or may not have been applied) or could not be restored, or with another
     *         {@link KeeperException} ZooKeeper answered
     * @throws NullPointerException if {@code previous} is null
     * @throws IllegalStateException if the count is not started (or its {@link #startAsync()} has not completed)
     *         or is closed
     */
    public CompletableFuture<Boolean> trySetCountAsync(VersionedValue<Integer> previous, int newCount) {
        return Failures.unwrapped(trySetCount(previous, newCount, false));
    }

    private CompletableFuture<Boolean> trySetCount(VersionedValue<Integer> previous, int newCount, boolean blocking) {
        Objects.requireNonNull(previous, "previous");
        VersionedValue<Integer> known = getVersionedValue();
        if (known.version() != previous.version() || !known.value().equals(previous.value())) {
            return CompletableFuture.completedFuture(false); // stale: the write could only fail
        }
        List<BatonOp> write = Versions.setIfVersion(client, path, toBytes(newCount), previous.version());
        return Requests.send(blocking, client.transaction(), write).handle((results, error) -> {
            if (error == null) {
                update(results.get(0).resultStat(), newCount, true);
                return true;
            }
            KeeperException.Code code = Failures.code(error);
            if (code == KeeperException.Code.BADVERSION || code == KeeperException.Code.NONODE) {
                return false;
            }
            throw Failures.asCompletion(error);
        });
    }

    @Override
    public void addListener(SharedCountListener listener) {
        listeners.addListener(listener);
    }

    @Override
    public void addListener(SharedCountListener listener, Executor executor) {
        listeners.addListener(listener, executor);
    }

    @Override
    public void removeListener(SharedCountListener listener) {
        listeners.removeListener(listener);
    }

    /** @return the count's path */
    public String getPath() {
        return path;
    }

    /**
     * Stops following the value: removes the watch (from the server too), the connection listener and every
     * listener. Closing a closed count does nothing.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (lifecycle.close() == Lifecycle.State.CLOSED) {
                return;
            }
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        listeners.clear();
        try {
            client.watchers().remove(watcher).quietly().forPathAsync(path).exceptionally(e -> null);
        } catch (RuntimeException e) {
            // client closed: the watch went with the session
        }
    }

    // ---------------------------------------------------------------- keeping current

    private void nodeChanged(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            return; // connection news: RECONNECTED re-reads
        }
        refresh();
    }

    private void connectionStateChanged(BatonClient c, ConnectionState newState) {
        synchronized (this) {
            if (!lifecycle.isStarted()) {
                return;
            }
        }
        if (newState == ConnectionState.RECONNECTED) {
            refresh(); // the value may have changed meanwhile, and a new session has no watch
        }
        notifications.execute(() -> listeners.forEach(l -> l.stateChanged(c, newState)));
    }

    private void refresh() {
        synchronized (this) {
            if (!lifecycle.isStarted()) {
                return;
            }
        }
        Stat stat = new Stat();
        client.getData().usingWatcher(watcher).storingStatIn(stat).forPathAsync(path).whenComplete((data, error) -> {
            if (error == null) {
                try {
                    update(stat, fromBytes(data), true);
                } catch (IllegalStateException e) {
                    LOG.error("SharedCount {} ignores a malformed value", path, e);
                }
            } else if (Failures.code(error) == KeeperException.Code.NONODE) {
                // Deleted: keep the last value and wait for the node to come back.
                client.checkExists().usingWatcher(watcher).forPathAsync(path).whenComplete((s, e) -> {
                    if (e == null && s != null) {
                        refresh();
                    }
                });
            } else if (!Failures.isConnectionProblem(error)) {
                LOG.error("SharedCount {} could not read its value", path, Failures.unwrap(error));
            }
        });
    }

    /** Takes a value read or written if it is newer than the one known, and tells the listeners. */
    private void update(Stat stat, int value, boolean notify) {
        VersionedValue<Integer> next = new VersionedValue<>(stat.getVersion(), value);
        synchronized (this) {
            if (!lifecycle.isStarted()) {
                return;
            }
            if (current != null && !isNewer(stat.getCzxid(), stat.getVersion(), currentCzxid, current.version())) {
                return;
            }
            current = next;
            currentCzxid = stat.getCzxid();
        }
        if (notify) {
            notifications.execute(() -> listeners.forEach(l -> {
                try {
                    l.countHasChanged(this, value);
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
    }

    /** A re-created node (larger czxid) is newer whatever its version; within one node, versions are serial. */
    static boolean isNewer(long czxid, int version, long knownCzxid, int knownVersion) {
        if (czxid != knownCzxid) {
            return czxid > knownCzxid;
        }
        return Versions.isNewer(version, knownVersion);
    }

    static byte[] toBytes(int value) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(value).array();
    }

    int fromBytes(byte[] data) {
        if (data == null || data.length != Integer.BYTES) {
            throw new IllegalStateException("SharedCount node " + path + " holds "
                    + (data == null ? 0 : data.length) + " bytes, not a 4-byte count");
        }
        return ByteBuffer.wrap(data).getInt();
    }

    @Override
    public String toString() {
        return "SharedCount[" + path + "]";
    }
}
