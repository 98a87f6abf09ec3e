package dev.baton.recipes.shared;

import dev.baton.BatonClient;
import dev.baton.internal.ListenerContainer;
import dev.baton.state.ConnectionState;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An integer shared by every process that uses the same path: each sees the latest value and can change it,
 * unconditionally ({@link #setCount}) or only if nobody changed it since it was read ({@link #trySetCount}).
 * Wire-compatible with Apache Curator's {@code SharedCount}: the node holds the value as a 4-byte big-endian int.
 * A {@link SharedValue} underneath, so everything said there about watches, versions, deletion and threads holds
 * here; a node that does not hold 4 bytes fails the start, and such a value written later is ignored (logged).
 *
 * <pre>{@code
 * try (SharedCount count = new SharedCount(client, "/app/workers/target", 3)) {
 *     count.addListener(new SharedCountListener() {
 *         public void countHasChanged(SharedCountReader reader, int newCount) {
 *             resize(newCount);
 *         }
 *         public void stateChanged(BatonClient client, ConnectionState newState) { }
 *     });
 *     count.start();                                  // creates the node with 3 if it does not exist
 *     VersionedValue<Integer> seen = count.getVersionedValue();
 *     if (!count.trySetCount(seen, seen.value() + 1)) {
 *         // someone changed it first; the listener has been or will be told the new value
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #startAsync()}, {@link #setCountAsync(int)} and {@link #trySetCountAsync(VersionedValue, int)} do the
 * same without blocking: their futures complete on ZooKeeper's event thread (or the client's scheduler thread
 * after a retry), which also calls the listeners for the value they wrote; dependent stages that block should use
 * an {@code ...Async} stage with an executor. Thread-safe.
 */
public final class SharedCount implements SharedCountReader, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SharedCount.class);

    private final SharedValue value;
    private final String path;
    private final ListenerContainer<SharedCountListener> listeners;

    /**
     * @param client the client
     * @param path the count's node
     * @param seedValue the value the node is created with if it does not exist when the count starts
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public SharedCount(BatonClient client, String path, int seedValue) {
        this.value = new SharedValue(client, path, toBytes(seedValue), "SharedCount",
                bytes -> fromBytes(path, bytes));
        this.path = path;
        this.listeners = new ListenerContainer<>(Runnable::run,
                (message, e) -> LOG.error("SharedCount {} listener failed: {}", path, message, e));
        // One listener on the value passes its news on, in its order, to the count's own listeners.
        value.getListenable().addListener(new SharedValueListener() {
            @Override
            public void valueHasChanged(SharedValueReader sharedValue, byte[] newValue) {
                int newCount = fromBytes(path, newValue);
                listeners.forEach(l -> {
                    try {
                        l.countHasChanged(SharedCount.this, newCount);
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
            }

            @Override
            public void stateChanged(BatonClient c, ConnectionState newState) {
                listeners.forEach(l -> l.stateChanged(c, newState));
            }
        });
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
        value.start();
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
        return value.startAsync();
    }

    @Override
    public int getCount() {
        return fromBytes(path, value.known().value());
    }

    @Override
    public VersionedValue<Integer> getVersionedValue() {
        VersionedValue<byte[]> known = value.known();
        return new VersionedValue<>(known.version(), fromBytes(path, known.value()));
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
        value.setValue(toBytes(newCount));
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
        return value.setValueAsync(toBytes(newCount));
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
        return value.trySetValue(asBytes(previous), toBytes(newCount));
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
        return value.trySetValueAsync(asBytes(previous), toBytes(newCount));
    }

    private static VersionedValue<byte[]> asBytes(VersionedValue<Integer> previous) {
        Objects.requireNonNull(previous, "previous");
        return new VersionedValue<>(previous.version(), toBytes(previous.value()));
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

    /** {@return the count's path} */
    public String getPath() {
        return value.getPath();
    }

    /**
     * Stops following the value, as {@link SharedValue#close()} does. Closing a closed count does nothing.
     */
    @Override
    public void close() {
        value.close();
        listeners.clear();
    }

    static byte[] toBytes(int value) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(value).array();
    }

    static int fromBytes(String path, byte[] data) {
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
