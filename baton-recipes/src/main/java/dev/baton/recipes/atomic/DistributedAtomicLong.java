package dev.baton.recipes.atomic;

import dev.baton.BatonClient;
import dev.baton.retry.RetryPolicy;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * A counter shared by every process that uses the same path, changed atomically: each change reads the value,
 * computes the new one and writes it only if nobody wrote in between; after losing such a race it tries again
 * while the {@link RetryPolicy} allows ({@link RetryPolicy#delayBeforeRetry} decides the pause), and then, if a
 * {@link PromotedToLock} is given, once more while holding a mutex. A pause of zero ("retry at once") becomes a
 * short random back-off: on average as long as the lost attempt waited in the server's queue (its time beyond the
 * quickest attempt seen), doubling with each race lost in a row, to four times that. Contending clients that all
 * retried at once would collide again; spread out, they need about half the requests per successful change, and a
 * long round trip with no queue (a distant server) costs no extra wait. A change that starts right after this
 * instance's own last successful write (sooner than one read and write take) skips the read: it writes at once,
 * from the value and version it wrote, and reads only if that write fails on the version. In a loop that is one
 * request per change; after eight such writes in a row the instance reads again, so that other clients, who read
 * after its last write, race it on equal terms. When every attempt lost, the result's
 * {@link AtomicValue#succeeded()} is false and nothing was written. Wire-compatible with Apache Curator's
 * {@code DistributedAtomicLong}: the node holds the value as a 8-byte big-endian long; a missing node or empty data reads as 0.
 *
 * <pre>{@code
 * DistributedAtomicLong hits = new DistributedAtomicLong(client, "/stats/hits", new ExponentialBackoffRetry(10, 5));
 * AtomicValue<Long> result = hits.increment();
 * if (result.succeeded()) {
 *     System.out.println(result.preValue() + " -> " + result.postValue());
 * }
 * }</pre>
 *
 * <p>Differences from Curator, all on the safe side: a version-checked write is sent once and never blindly
 * retried after a connection loss (Curator's retry can apply an increment twice); if the connection drops
 * while such a write is in flight the call throws {@link KeeperException.ConnectionLossException} and the
 * write may or may not have happened. Version checks are exact even when the node's data version wraps round
 * to -1. {@code compareAndSet(0, x)} on a missing node creates it (a missing node reads as 0).
 *
 * <p>Every operation has a blocking form and a {@link CompletableFuture} form ({@code ...Async}) that holds no
 * thread while waiting: requests are sent without blocking, the retry policy's pauses between attempts are
 * scheduled rather than slept, and with a {@link PromotedToLock} the mutex is taken with
 * {@link dev.baton.recipes.locks.InterProcessMutex#acquireAsync()}. Futures complete on ZooKeeper's event thread
 * (or the thread that ended a pause), so dependent stages that block should use an {@code ...Async} stage with
 * an executor. A future fails with what the blocking form throws: a {@link KeeperException}, or
 * {@link IllegalStateException} for malformed node data or a client that is not started or is closed. Cancelling
 * a future stops further attempts; a write already sent may still apply.
 *
 * <pre>{@code
 * hits.incrementAsync().thenAccept(result -> System.out.println(result.postValue()));
 * }</pre>
 *
 * <p>No operation is affected by another's failure. Thread-safe; besides its configuration an instance remembers
 * only its last write and the quickest attempt it has seen. Instances are cheap and hold no thread, watch or node
 * of their own. See also {@link DistributedAtomicInteger}.
 */
public final class DistributedAtomicLong {
    private final AtomicCore<Long> core;

    /**
     * An optimistic counter.
     *
     * @param client the client
     * @param path the counter's node
     * @param retryPolicy decides whether and when to try again after losing a race
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public DistributedAtomicLong(BatonClient client, String path, RetryPolicy retryPolicy) {
        this.core = new AtomicCore<>(client, path, retryPolicy, null, CODEC);
    }

    /**
     * A counter that falls back to a mutex when its optimistic attempts run out.
     *
     * @param client the client
     * @param path the counter's node
     * @param retryPolicy decides whether and when to try again after losing a race
     * @param promotedToLock the mutex to fall back to
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public DistributedAtomicLong(BatonClient client, String path, RetryPolicy retryPolicy, PromotedToLock promotedToLock) {
        this.core = new AtomicCore<>(client, path, retryPolicy, Objects.requireNonNull(promotedToLock,
                "promotedToLock"), CODEC);
    }

    /**
     * Reads the value: never older than a write that completed before the call (a sync makes the session's server
     * catch up with the leader before it reads, one more request than Curator's read, which can be stale).
     *
     * @return the value as {@code preValue} and {@code postValue}; always succeeded
     * @throws KeeperException if ZooKeeper fails the read
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 8-byte value
     */
    public AtomicValue<Long> get() throws KeeperException, InterruptedException {
        return core.get();
    }

    /**
     * Adds one.
     *
     * @return the outcome
     * @throws KeeperException if ZooKeeper fails, such as {@link KeeperException.ConnectionLossException}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 8-byte value
     */
    public AtomicValue<Long> increment() throws KeeperException, InterruptedException {
        return add(1);
    }

    /**
     * Subtracts one.
     *
     * @return the outcome
     * @throws KeeperException if ZooKeeper fails, such as {@link KeeperException.ConnectionLossException}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 8-byte value
     */
    public AtomicValue<Long> decrement() throws KeeperException, InterruptedException {
        return add(-1);
    }

    /**
     * Adds {@code delta} (wrapping round on overflow, as Java's {@code long} arithmetic does).
     *
     * @param delta the amount to add
     * @return the outcome
     * @throws KeeperException if ZooKeeper fails, such as {@link KeeperException.ConnectionLossException}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 8-byte value
     */
    public AtomicValue<Long> add(long delta) throws KeeperException, InterruptedException {
        return core.update(v -> v + delta);
    }

    /**
     * Subtracts {@code delta} (wrapping round on overflow).
     *
     * @param delta the amount to subtract
     * @return the outcome
     * @throws KeeperException if ZooKeeper fails, such as {@link KeeperException.ConnectionLossException}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 8-byte value
     */
    public AtomicValue<Long> subtract(long delta) throws KeeperException, InterruptedException {
        return core.update(v -> v - delta);
    }

    /**
     * Sets the value to {@code newValue} if it is {@code expectedValue}, in one attempt (no retries, no lock).
     *
     * @param expectedValue the value the counter must have
     * @param newValue the value to set
     * @return succeeded if the value was {@code expectedValue} and is now {@code newValue}
     * @throws KeeperException if ZooKeeper fails, such as {@link KeeperException.ConnectionLossException}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 8-byte value
     */
    public AtomicValue<Long> compareAndSet(long expectedValue, long newValue) throws KeeperException, InterruptedException {
        return core.compareAndSet(expectedValue, newValue);
    }

    /**
     * Sets the value, as a version-checked write retried under the retry policy (and the lock, if configured),
     * like the other changes.
     *
     * @param newValue the value to set
     * @return the outcome
     * @throws KeeperException if ZooKeeper fails, such as {@link KeeperException.ConnectionLossException}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 8-byte value
     */
    public AtomicValue<Long> trySet(long newValue) throws KeeperException, InterruptedException {
        return core.update(v -> newValue);
    }

    /**
     * Writes the value unconditionally, creating the node if needed. {@code preValue} is the value read just
     * before the write; another process may have written in between.
     *
     * @param newValue the value to set
     * @return the outcome, always succeeded
     * @throws KeeperException if ZooKeeper fails
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 8-byte value
     */
    public AtomicValue<Long> forceSet(long newValue) throws KeeperException, InterruptedException {
        return core.forceSet(newValue);
    }

    /**
     * Creates the counter's node with {@code value} if it does not exist (missing parents as container nodes).
     *
     * @param value the initial value
     * @return succeeded if this call created the node; otherwise {@code preValue} and {@code postValue} are the
     *         value it has
     * @throws KeeperException if ZooKeeper fails
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 8-byte value
     */
    public AtomicValue<Long> initialize(long value) throws KeeperException, InterruptedException {
        return core.initialize(value);
    }

    /**
     * Reads the value, as {@link #get()} does, without holding a thread while waiting.
     *
     * @return a future that completes with the value as {@code preValue} and {@code postValue} (always
     *         succeeded); or fails with the {@link KeeperException} ZooKeeper answered (such as
     *         {@link KeeperException.ConnectionLossException}), or with {@link IllegalStateException} if the node
     *         holds data that is not a 8-byte value
     */
    public CompletableFuture<AtomicValue<Long>> getAsync() {
        return core.getAsync();
    }

    /**
     * Adds one, as {@link #increment()} does, without holding a thread while waiting.
     *
     * @return a future that completes with the outcome once a write won, or once the attempts ran out (then not
     *         succeeded and nothing written); or fails with the {@link KeeperException} ZooKeeper answered (such as
     *         {@link KeeperException.ConnectionLossException}), or with {@link IllegalStateException} if the node
     *         holds data that is not a 8-byte value
     */
    public CompletableFuture<AtomicValue<Long>> incrementAsync() {
        return addAsync(1);
    }

    /**
     * Subtracts one, as {@link #decrement()} does, without holding a thread while waiting.
     *
     * @return a future that completes with the outcome once a write won, or once the attempts ran out (then not
     *         succeeded and nothing written); or fails with the {@link KeeperException} ZooKeeper answered (such as
     *         {@link KeeperException.ConnectionLossException}), or with {@link IllegalStateException} if the node
     *         holds data that is not a 8-byte value
     */
    public CompletableFuture<AtomicValue<Long>> decrementAsync() {
        return addAsync(-1);
    }

    /**
     * Adds {@code delta}, as {@link #add(long)} does, without holding a thread while waiting.
     *
     * @param delta the amount to add
     * @return a future that completes with the outcome once a write won, or once the attempts ran out (then not
     *         succeeded and nothing written); or fails with the {@link KeeperException} ZooKeeper answered (such as
     *         {@link KeeperException.ConnectionLossException}), or with {@link IllegalStateException} if the node
     *         holds data that is not a 8-byte value
     */
    public CompletableFuture<AtomicValue<Long>> addAsync(long delta) {
        return core.updateAsync(v -> v + delta);
    }

    /**
     * Subtracts {@code delta}, as {@link #subtract(long)} does, without holding a thread while waiting.
     *
     * @param delta the amount to subtract
     * @return a future that completes with the outcome once a write won, or once the attempts ran out (then not
     *         succeeded and nothing written); or fails with the {@link KeeperException} ZooKeeper answered (such as
     *         {@link KeeperException.ConnectionLossException}), or with {@link IllegalStateException} if the node
     *         holds data that is not a 8-byte value
     */
    public CompletableFuture<AtomicValue<Long>> subtractAsync(long delta) {
        return core.updateAsync(v -> v - delta);
    }

    /**
     * Sets the value to {@code newValue} if it is {@code expectedValue}, in one attempt (no retries, no lock), as
     * {@link #compareAndSet(long, long)} does, without holding a thread while waiting.
     *
     * @param expectedValue the value the counter must have
     * @param newValue the value to set
     * @return a future that completes with the outcome: succeeded if the value was {@code expectedValue} and is
     *         now {@code newValue}; or fails with the {@link KeeperException} ZooKeeper answered (such as
     *         {@link KeeperException.ConnectionLossException}), or with {@link IllegalStateException} if the node
     *         holds data that is not a 8-byte value
     */
    public CompletableFuture<AtomicValue<Long>> compareAndSetAsync(long expectedValue, long newValue) {
        return core.compareAndSetAsync(expectedValue, newValue);
    }

    /**
     * Sets the value (a version-checked write, retried like the other changes), as {@link #trySet(long)} does,
     * without holding a thread while waiting.
     *
     * @param newValue the value to set
     * @return a future that completes with the outcome once a write won, or once the attempts ran out (then not
     *         succeeded and nothing written); or fails with the {@link KeeperException} ZooKeeper answered (such as
     *         {@link KeeperException.ConnectionLossException}), or with {@link IllegalStateException} if the node
     *         holds data that is not a 8-byte value
     */
    public CompletableFuture<AtomicValue<Long>> trySetAsync(long newValue) {
        return core.updateAsync(v -> newValue);
    }

    /**
     * Writes the value unconditionally, creating the node if needed, as {@link #forceSet(long)} does, without
     * holding a thread while waiting.
     *
     * @param newValue the value to set
     * @return a future that completes with the outcome (always succeeded) once the value is written; or fails
     *         with the {@link KeeperException} ZooKeeper answered (such as
     *         {@link KeeperException.ConnectionLossException}), or with {@link IllegalStateException} if the node
     *         holds data that is not a 8-byte value
     */
    public CompletableFuture<AtomicValue<Long>> forceSetAsync(long newValue) {
        return core.forceSetAsync(newValue);
    }

    /**
     * Creates the counter's node with {@code value} if it does not exist (missing parents as container nodes), as
     * {@link #initialize(long)} does, without holding a thread while waiting.
     *
     * @param value the initial value
     * @return a future that completes as {@code initialize} returns (succeeded if this call created the node;
     *         otherwise {@code preValue} and {@code postValue} are the value it has), or fails with the
     *         {@link KeeperException} ZooKeeper answered (such as
     *         {@link KeeperException.ConnectionLossException}), or with {@link IllegalStateException} if the node
     *         holds data that is not a 8-byte value
     */
    public CompletableFuture<AtomicValue<Long>> initializeAsync(long value) {
        return core.initializeAsync(value);
    }

    /** {@return the counter's path} */
    public String getPath() {
        return core.path();
    }

    @Override
    public String toString() {
        return "DistributedAtomicLong[" + core.path() + "]";
    }

    private static final AtomicCore.Codec<Long> CODEC = new AtomicCore.Codec<>() {
        @Override
        public byte[] encode(Long value) {
            return ByteBuffer.allocate(8).putLong(value).array();
        }

        @Override
        public Long decode(String path, byte @Nullable [] data) {
            if (data == null || data.length == 0) {
                return zero();
            }
            if (data.length != 8) {
                throw new IllegalStateException("counter node " + path + " holds " + data.length
                        + " bytes, not a 8-byte value");
            }
            return ByteBuffer.wrap(data).getLong();
        }

        @Override
        public Long zero() {
            return 0L;
        }
    };
}
