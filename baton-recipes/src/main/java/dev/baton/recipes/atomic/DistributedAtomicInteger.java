package dev.baton.recipes.atomic;

import dev.baton.BatonClient;
import dev.baton.retry.RetryPolicy;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.zookeeper.KeeperException;

/**
 * A counter shared by every process that uses the same path, changed atomically: each change reads the value,
 * computes the new one and writes it only if nobody wrote in between; after losing such a race it tries again
 * while the {@link RetryPolicy} allows ({@link RetryPolicy#delayBeforeRetry} decides the pause), and then, if a
 * {@link PromotedToLock} is given, once more while holding a mutex. When every attempt lost, the result's
 * {@link AtomicValue#succeeded()} is false and nothing was written. Wire-compatible with Apache Curator's
 * {@code DistributedAtomicInteger}: the node holds the value as a 4-byte big-endian int; a missing node or empty data reads as 0.
 *
 * <pre>{@code
 * DistributedAtomicInteger hits = new DistributedAtomicInteger(client, "/stats/hits", new ExponentialBackoffRetry(10, 5));
 * AtomicValue<Integer> result = hits.increment();
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
 * <p>Every method blocks; none is affected by another's failure. Thread-safe, stateless apart from its
 * configuration: instances are cheap and hold no thread, watch or node of their own. See also {@link DistributedAtomicLong}.
 */
public final class DistributedAtomicInteger {
    private final AtomicCore<Integer> core;

    /**
     * An optimistic counter.
     *
     * @param client the client
     * @param path the counter's node
     * @param retryPolicy decides whether and when to try again after losing a race
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public DistributedAtomicInteger(BatonClient client, String path, RetryPolicy retryPolicy) {
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
    public DistributedAtomicInteger(BatonClient client, String path, RetryPolicy retryPolicy, PromotedToLock promotedToLock) {
        this.core = new AtomicCore<>(client, path, retryPolicy, Objects.requireNonNull(promotedToLock,
                "promotedToLock"), CODEC);
    }

    /**
     * Reads the value.
     *
     * @return the value as {@code preValue} and {@code postValue}; always succeeded
     * @throws KeeperException if ZooKeeper fails the read
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 4-byte value
     */
    public AtomicValue<Integer> get() throws KeeperException, InterruptedException {
        return core.get();
    }

    /**
     * Adds one.
     *
     * @return the outcome
     * @throws KeeperException if ZooKeeper fails, such as {@link KeeperException.ConnectionLossException}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 4-byte value
     */
    public AtomicValue<Integer> increment() throws KeeperException, InterruptedException {
        return add(1);
    }

    /**
     * Subtracts one.
     *
     * @return the outcome
     * @throws KeeperException if ZooKeeper fails, such as {@link KeeperException.ConnectionLossException}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 4-byte value
     */
    public AtomicValue<Integer> decrement() throws KeeperException, InterruptedException {
        return add(-1);
    }

    /**
     * Adds {@code delta} (wrapping round on overflow, as Java's {@code int} arithmetic does).
     *
     * @param delta the amount to add
     * @return the outcome
     * @throws KeeperException if ZooKeeper fails, such as {@link KeeperException.ConnectionLossException}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 4-byte value
     */
    public AtomicValue<Integer> add(int delta) throws KeeperException, InterruptedException {
        return core.update(v -> v + delta);
    }

    /**
     * Subtracts {@code delta} (wrapping round on overflow).
     *
     * @param delta the amount to subtract
     * @return the outcome
     * @throws KeeperException if ZooKeeper fails, such as {@link KeeperException.ConnectionLossException}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the node holds data that is not a 4-byte value
     */
    public AtomicValue<Integer> subtract(int delta) throws KeeperException, InterruptedException {
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
     * @throws IllegalStateException if the node holds data that is not a 4-byte value
     */
    public AtomicValue<Integer> compareAndSet(int expectedValue, int newValue) throws KeeperException, InterruptedException {
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
     * @throws IllegalStateException if the node holds data that is not a 4-byte value
     */
    public AtomicValue<Integer> trySet(int newValue) throws KeeperException, InterruptedException {
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
     * @throws IllegalStateException if the node holds data that is not a 4-byte value
     */
    public AtomicValue<Integer> forceSet(int newValue) throws KeeperException, InterruptedException {
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
     * @throws IllegalStateException if the node holds data that is not a 4-byte value
     */
    public AtomicValue<Integer> initialize(int value) throws KeeperException, InterruptedException {
        return core.initialize(value);
    }

    /** @return the counter's path */
    public String getPath() {
        return core.path();
    }

    @Override
    public String toString() {
        return "DistributedAtomicInteger[" + core.path() + "]";
    }

    private static final AtomicCore.Codec<Integer> CODEC = new AtomicCore.Codec<>() {
        @Override
        public byte[] encode(Integer value) {
            return ByteBuffer.allocate(4).putInt(value).array();
        }

        @Override
        public Integer decode(String path, byte[] data) {
            if (data == null || data.length == 0) {
                return zero();
            }
            if (data.length != 4) {
                throw new IllegalStateException("counter node " + path + " holds " + data.length
                        + " bytes, not a 4-byte value");
            }
            return ByteBuffer.wrap(data).getInt();
        }

        @Override
        public Integer zero() {
            return 0;
        }
    };
}
