package dev.baton.recipes.shared;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Requests;
import dev.baton.internal.SerialExecutor;
import dev.baton.internal.Versions;
import dev.baton.listen.Listenable;
import dev.baton.recipes.cache.PersistentWatcher;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A value of bytes shared by every process that uses the same path: each sees the latest value and can change
 * it, unconditionally ({@link #setValue}) or only if nobody changed it since it was read ({@link #trySetValue}).
 * Wire-compatible with Apache Curator's {@code SharedValue}: the node holds the bytes as they are.
 * {@link SharedCount} is this with a 4-byte big-endian int.
 *
 * <pre>{@code
 * try (SharedValue mode = new SharedValue(client, "/app/mode", "normal".getBytes(UTF_8))) {
 *     mode.getListenable().addListener(new SharedValueListener() {
 *         public void valueHasChanged(SharedValueReader value, byte[] newValue) {
 *             switchTo(new String(newValue, UTF_8));
 *         }
 *         public void stateChanged(BatonClient client, ConnectionState newState) { }
 *     });
 *     mode.start();                                   // creates the node with the seed if it does not exist
 *     VersionedValue<byte[]> seen = mode.getVersionedValue();
 *     if (!mode.trySetValue(seen, "drain".getBytes(UTF_8))) {
 *         // someone changed it first; the listener has been or will be told the new value
 *     }
 * }
 * }</pre>
 *
 * <p>The value is kept current by a persistent watch on the node (a {@link PersistentWatcher}; on a server
 * before ZooKeeper 3.6, one-shot watches set again after each event), re-read after every change and after every
 * reconnection; there is no thread of its own. {@link #getValue()} answers from memory, with a copy. Versions are compared as serial
 * numbers, so a value is never taken for stale (or stale for new) when the node's data version wraps around from
 * {@code Integer.MAX_VALUE} to {@code Integer.MIN_VALUE}; {@code trySetValue} is exact even at version {@code -1},
 * which ZooKeeper's {@code setData} would read as "any version". If the node is deleted, the value keeps its last
 * state and picks up the node again when it is re-created.
 *
 * <p>A conditional write ({@code trySetValue}) is sent once and never blindly retried after a connection loss
 * (a retry would report {@code BadVersion} for a write that succeeded): if the connection drops while it is in
 * flight, it throws {@link KeeperException.ConnectionLossException} and the write may or may not have happened;
 * the watch will tell. Listeners are called in order, one value at a time, on the thread that learned of the
 * value (ZooKeeper's event thread, or the caller of {@code setValue}/{@code trySetValue}) unless added with an
 * executor.
 *
 * <p>{@link #startAsync()}, {@link #setValueAsync(byte[])} and {@link #trySetValueAsync(VersionedValue, byte[])}
 * do the same without blocking: their futures complete on ZooKeeper's event thread (or the client's scheduler
 * thread after a retry), which also calls the listeners for the value they wrote; dependent stages that block
 * should use an {@code ...Async} stage with an executor. Thread-safe.
 */
public final class SharedValue implements SharedValueReader, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SharedValue.class);

    private final Object lock = new Object();
    private final BatonClient client;
    private final Lifecycle lifecycle;
    private final String path;
    private final String name;
    private final byte[] seedValue;
    /** Throws {@link IllegalStateException} for bytes the owner cannot take (a {@link SharedCount}'s 4 bytes). */
    private final Consumer<byte[]> check;
    private final ListenerContainer<SharedValueListener> listeners;
    private final SerialExecutor notifications = new SerialExecutor(Runnable::run);
    /** Tells every creation, change and deletion of the node; re-registered after reconnects and session loss. */
    private final PersistentWatcher nodeWatch;
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;

    /** The value known; null until the first read. The array is never handed out: readers get copies. */
    @GuardedBy("lock")
    private @Nullable VersionedValue<byte[]> current;
    @GuardedBy("lock")
    private long currentCzxid;

    /**
     * @param client the client
     * @param path the value's node
     * @param seedValue the value the node is created with if it does not exist when the value starts (copied)
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public SharedValue(BatonClient client, String path, byte[] seedValue) {
        this(client, path, seedValue, "SharedValue", bytes -> { });
    }

    SharedValue(BatonClient client, String path, byte[] seedValue, String name, Consumer<byte[]> check) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = BatonPaths.validate(Objects.requireNonNull(path, "path"));
        this.seedValue = Objects.requireNonNull(seedValue, "seedValue").clone();
        this.name = name;
        this.check = check;
        this.lifecycle = new Lifecycle(name + " " + path);
        this.listeners = new ListenerContainer<>(Runnable::run,
                (message, e) -> LOG.error("{} {} listener failed: {}", name, path, message, e));
        this.nodeWatch = new PersistentWatcher(client, this.path, false);
        nodeWatch.getListenable().addListener(event -> {
            if (event.getType() != Watcher.Event.EventType.None) {
                refresh(); // connection news come through the connection listener
            }
        });
        nodeWatch.getResetListenable().addListener(this::refresh); // (re-)registered: changes may have been missed
    }

    /**
     * Creates the node with the seed value if it does not exist (missing parents as container nodes), reads the
     * value and sets the watch. Returns once the value is known.
     *
     * @throws KeeperException if ZooKeeper fails; the value is then closed
     * @throws InterruptedException if interrupted; the value is then closed
     * @throws IllegalStateException if already started or closed
     */
    public void start() throws KeeperException, InterruptedException {
        Failures.await(start(true));
    }

    /**
     * Starts the value as {@link #start()} does, without holding a thread while waiting: the value is started at
     * once, and known once the future completes ({@link #getValue()} throws {@link IllegalStateException} until
     * then).
     *
     * @return a future that completes once the value is known and the watch is set; or fails with the
     *         {@link KeeperException} ZooKeeper answered, such as {@link KeeperException.ConnectionLossException}
     *         when retries ran out, or with {@link IllegalStateException} if the client is not started or is
     *         closed. If it fails, the value is closed.
     * @throws IllegalStateException if the value was already started or is closed
     */
    public CompletableFuture<Void> startAsync() {
        return Failures.unwrapped(start(false));
    }

    private CompletableFuture<Void> start(boolean blocking) {
        lifecycle.start();
        CompletableFuture<Void> started;
        try {
            client.getConnectionStateListenable().addListener(connectionListener);
            nodeWatch.start();
            started = readValue(blocking).exceptionallyCompose(error -> {
                if (Failures.code(error) != KeeperException.Code.NONODE) {
                    return CompletableFuture.failedFuture(error);
                }
                return Requests.send(blocking, client.create().creatingParentContainersIfNeeded(), path, seedValue)
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

    /** Reads the value and takes it as the first value known. */
    private CompletableFuture<Void> readValue(boolean blocking) {
        Stat stat = new Stat();
        return Requests.send(blocking, client.getData().storingStatIn(stat), path)
                .thenAccept(read -> {
                    byte[] data = orEmpty(read);
                    check.accept(data);
                    update(stat, data, false);
                });
    }

    @Override
    public byte[] getValue() {
        return known().value().clone();
    }

    @Override
    public VersionedValue<byte[]> getVersionedValue() {
        VersionedValue<byte[]> known = known();
        return new VersionedValue<>(known.version(), known.value().clone());
    }

    /** {@return the value known, not copied} */
    VersionedValue<byte[]> known() {
        synchronized (lock) {
            lifecycle.requireStarted();
            if (current == null) {
                throw new IllegalStateException(name + " " + path + " is starting: its value is not known yet");
            }
            return current;
        }
    }

    @Override
    public Listenable<SharedValueListener> getListenable() {
        return listeners;
    }

    /**
     * Sets the value, whatever it is now.
     *
     * @param newValue the new value (copied)
     * @throws KeeperException if ZooKeeper fails the write, such as {@link KeeperException.NoNodeException} if
     *         the node was deleted
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code newValue} is null
     * @throws IllegalStateException if the value is not started or is closed
     */
    public void setValue(byte[] newValue) throws KeeperException, InterruptedException {
        Failures.await(setValue(newValue, true));
    }

    /**
     * Sets the value as {@link #setValue(byte[])} does, without holding a thread while waiting.
     *
     * @param newValue the new value (copied)
     * @return a future that completes once the value is written (and known to this value and its listeners); or
     *         fails with the {@link KeeperException} ZooKeeper answered, such as
     *         {@link KeeperException.NoNodeException} if the node was deleted or
     *         {@link KeeperException.ConnectionLossException} when retries ran out
     * @throws NullPointerException if {@code newValue} is null
     * @throws IllegalStateException if the value is not started or is closed
     */
    public CompletableFuture<Void> setValueAsync(byte[] newValue) {
        return Failures.unwrapped(setValue(newValue, false));
    }

    private CompletableFuture<Void> setValue(byte[] newValue, boolean blocking) {
        byte[] bytes = Objects.requireNonNull(newValue, "newValue").clone();
        lifecycle.requireStarted();
        return Requests.send(blocking, client.setData(), path, bytes).thenAccept(stat -> update(stat, bytes, true));
    }

    /**
     * Sets the value only if it is still the one given, at the same version: nobody changed it since
     * {@code previous} was read with {@link #getVersionedValue()}. Returns false at once, without writing, if
     * this process already knows of a newer value.
     *
     * @param previous the value as read
     * @param newValue the new value (copied)
     * @return true if the value was set, false if it had changed (or the node was deleted)
     * @throws KeeperException.ConnectionLossException if the connection was lost while the write was in flight
     *         (it may or may not have been applied) or could not be restored
     * @throws KeeperException if ZooKeeper fails otherwise
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if the value is not started (or its {@link #startAsync()} has not completed)
     *         or is closed
     */
    public boolean trySetValue(VersionedValue<byte[]> previous, byte[] newValue)
            throws KeeperException, InterruptedException {
        return Failures.await(trySetValue(previous, newValue, true));
    }

    /**
     * Sets the value as {@link #trySetValue(VersionedValue, byte[])} does, without holding a thread while
     * waiting: only if nobody changed it since {@code previous} was read. The write is sent once, never retried.
     *
     * @param previous the value as read
     * @param newValue the new value (copied)
     * @return a future that completes with true if the value was set, with false if it had changed (or the node
     *         was deleted; at once, without writing, if this process already knows of a newer value); or fails
     *         with {@link KeeperException.ConnectionLossException} if the connection was lost while the write
     *         was in flight (it may or may not have been applied) or could not be restored, or with another
     *         {@link KeeperException} ZooKeeper answered
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if the value is not started (or its {@link #startAsync()} has not completed)
     *         or is closed
     */
    public CompletableFuture<Boolean> trySetValueAsync(VersionedValue<byte[]> previous, byte[] newValue) {
        return Failures.unwrapped(trySetValue(previous, newValue, false));
    }

    private CompletableFuture<Boolean> trySetValue(VersionedValue<byte[]> previous, byte[] newValue,
            boolean blocking) {
        Objects.requireNonNull(previous, "previous");
        byte[] bytes = Objects.requireNonNull(newValue, "newValue").clone();
        VersionedValue<byte[]> known = known();
        if (known.version() != previous.version() || !Arrays.equals(known.value(), previous.value())) {
            return CompletableFuture.completedFuture(false); // stale: the write could only fail
        }
        List<BatonOp> write = Versions.setIfVersion(client, path, bytes, previous.version());
        return Requests.send(blocking, client.transaction(), write).handle((results, error) -> {
            if (error == null) {
                Stat written = Objects.requireNonNull(results.get(0).resultStat(), "a setData result has a stat");
                update(written, bytes, true);
                return true;
            }
            KeeperException.Code code = Failures.code(error);
            if (code == KeeperException.Code.BADVERSION || code == KeeperException.Code.NONODE) {
                return false;
            }
            throw Failures.asCompletion(error);
        });
    }

    /** {@return the value's path} */
    public String getPath() {
        return path;
    }

    /**
     * Stops following the value: removes the watch (from the server too), the connection listener and every
     * listener. Closing a closed value does nothing.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (lifecycle.close() == Lifecycle.State.CLOSED) {
                return;
            }
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        listeners.clear();
        nodeWatch.close();
    }

    // ---------------------------------------------------------------- keeping current

    private void connectionStateChanged(BatonClient c, ConnectionState newState) {
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
        }
        notifications.execute(() -> listeners.forEach(l -> l.stateChanged(c, newState)));
    }

    private void refresh() {
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
        }
        Stat stat = new Stat();
        Futures.whenDone(client.getData().storingStatIn(stat).forPathAsync(path), (read, error) -> {
            if (error == null) {
                byte[] data = orEmpty(read);
                try {
                    check.accept(data);
                    update(stat, data, true);
                } catch (IllegalStateException e) {
                    LOG.error("{} {} ignores a malformed value", name, path, e);
                }
            } else if (Failures.code(error) == KeeperException.Code.NONODE) {
                LOG.debug("{} {} is deleted: the last value stays until it is created again", name, path);
            } else if (!Failures.isConnectionProblem(error)) {
                LOG.error("{} {} could not read its value", name, path, Failures.unwrap(error));
            }
        });
    }

    /** Takes a value read or written if it is newer than the one known, and tells the listeners. */
    private void update(Stat stat, byte[] value, boolean notify) {
        VersionedValue<byte[]> next = new VersionedValue<>(stat.getVersion(), value);
        boolean first;
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            if (current != null && !isNewer(stat.getCzxid(), stat.getVersion(), currentCzxid, current.version())) {
                return;
            }
            first = current == null; // the value found at start is not a change
            current = next;
            currentCzxid = stat.getCzxid();
        }
        if (notify && !first) {
            notifications.execute(() -> listeners.forEach(l -> {
                try {
                    l.valueHasChanged(this, value.clone());
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
    }

    /** A node created without data (by a client other than Baton's) reads as empty bytes. */
    private static byte[] orEmpty(byte @Nullable [] data) {
        return data == null ? new byte[0] : data;
    }

    /** A re-created node (larger czxid) is newer whatever its version; within one node, versions are serial. */
    static boolean isNewer(long czxid, int version, long knownCzxid, int knownVersion) {
        if (czxid != knownCzxid) {
            return czxid > knownCzxid;
        }
        return Versions.isNewer(version, knownVersion);
    }

    @Override
    public String toString() {
        return name + "[" + path + "]";
    }
}
