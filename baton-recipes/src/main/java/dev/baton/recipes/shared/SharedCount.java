package dev.baton.recipes.shared;

import dev.baton.BatonClient;
import dev.baton.BatonPaths;
import dev.baton.BatonTransactionResult;
import dev.baton.Failures;
import dev.baton.listen.ListenerContainer;
import dev.baton.listen.SerialExecutor;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
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
 * executor. Thread-safe.
 */
public final class SharedCount implements SharedCountReader, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SharedCount.class);

    private enum State { LATENT, STARTED, CLOSED }

    private final BatonClient client;
    private final String path;
    private final int seedValue;
    private final ListenerContainer<SharedCountListener> listeners;
    private final SerialExecutor notifications = new SerialExecutor(Runnable::run);
    private final Watcher watcher = this::nodeChanged;
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;

    // Guarded by this.
    private State state = State.LATENT;
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
        synchronized (this) {
            if (state != State.LATENT) {
                throw new IllegalStateException("SharedCount cannot be started: it is " + state);
            }
            state = State.STARTED;
        }
        boolean ok = false;
        try {
            client.getConnectionStateListenable().addListener(connectionListener);
            Stat stat = new Stat();
            byte[] data;
            try {
                data = client.getData().usingWatcher(watcher).storingStatIn(stat).forPath(path);
            } catch (KeeperException.NoNodeException e) {
                try {
                    client.create().creatingParentContainersIfNeeded().forPath(path, toBytes(seedValue));
                } catch (KeeperException.NodeExistsException raced) {
                    // Another process seeded it at the same moment.
                }
                data = client.getData().usingWatcher(watcher).storingStatIn(stat).forPath(path);
            }
            update(stat, fromBytes(data), false);
            ok = true;
        } finally {
            if (!ok) {
                close();
            }
        }
    }

    @Override
    public int getCount() {
        return getVersionedValue().value();
    }

    @Override
    public synchronized VersionedValue<Integer> getVersionedValue() {
        if (state != State.STARTED) {
            throw new IllegalStateException("SharedCount " + path + " is " + state);
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
        requireStarted();
        Stat stat = client.setData().forPath(path, toBytes(newCount));
        update(stat, newCount, true);
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
     * @throws IllegalStateException if the count is not started or is closed
     */
    public boolean trySetCount(VersionedValue<Integer> previous, int newCount)
            throws KeeperException, InterruptedException {
        Objects.requireNonNull(previous, "previous");
        VersionedValue<Integer> known = getVersionedValue();
        if (known.version() != previous.version() || !known.value().equals(previous.value())) {
            return false; // stale: the write could only fail
        }
        List<BatonTransactionResult> results;
        try {
            results = client.transaction().forOperations(
                    Versions.setIfVersion(client, path, toBytes(newCount), previous.version()));
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return false;
        }
        update(results.get(0).resultStat(), newCount, true);
        return true;
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
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        listeners.clear();
        try {
            client.watchers().remove(watcher).quietly().forPathAsync(path).exceptionally(e -> null);
        } catch (RuntimeException e) {
            // client closed: the watch went with the session
        }
    }

    private synchronized void requireStarted() {
        if (state != State.STARTED) {
            throw new IllegalStateException("SharedCount " + path + " is " + state);
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
            if (state != State.STARTED) {
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
            if (state != State.STARTED) {
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
            if (state != State.STARTED) {
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
