package dev.baton.recipes.atomic;

import dev.baton.BatonClient;
import dev.baton.BatonPaths;
import dev.baton.BatonTransactionResult;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.retry.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The engine behind {@link DistributedAtomicLong} and {@link DistributedAtomicInteger}: read, compute, write
 * only if nobody wrote meanwhile, and retry under the retry policy after losing a race.
 *
 * <p>Every write that depends on what was read is a transaction, which the client sends once: a plain
 * {@code setData}/{@code create} would be retried by the client after a connection loss and could then report
 * {@code BadVersion}/{@code NodeExists} for a write that had succeeded, and a retry on top of that would apply an
 * increment twice. After such a connection loss the outcome is unknown and the caller gets
 * {@link KeeperException.ConnectionLossException}. Thread-safe; no state besides the configuration.
 */
final class AtomicCore<T> {

    /** How values are stored and compared. */
    interface Codec<T> {
        byte[] encode(T value);

        /** Decodes node data; empty data is the zero value. */
        T decode(String path, byte[] data);

        T zero();
    }

    private final BatonClient client;
    private final String path;
    private final RetryPolicy retryPolicy;
    private final PromotedToLock promotedToLock;
    private final Codec<T> codec;

    AtomicCore(BatonClient client, String path, RetryPolicy retryPolicy, PromotedToLock promotedToLock,
            Codec<T> codec) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = BatonPaths.validate(Objects.requireNonNull(path, "path"));
        this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
        this.promotedToLock = promotedToLock;
        this.codec = codec;
    }

    String path() {
        return path;
    }

    /** What one read found: the value (0 when missing) and the node's stat, or null when it does not exist. */
    private record Read<T>(T value, Stat stat) {
    }

    private Read<T> read() throws KeeperException, InterruptedException {
        Stat stat = new Stat();
        try {
            byte[] data = client.getData().storingStatIn(stat).forPath(path);
            return new Read<>(codec.decode(path, data), stat);
        } catch (KeeperException.NoNodeException e) {
            return new Read<>(codec.zero(), null);
        }
    }

    AtomicValue<T> get() throws KeeperException, InterruptedException {
        T value = read().value();
        return new AtomicValue<>(true, value, value);
    }

    /**
     * Applies {@code change} optimistically, retrying after lost races while the retry policy allows, then (if
     * configured) once more under the mutex.
     */
    AtomicValue<T> update(UnaryOperator<T> change) throws KeeperException, InterruptedException {
        AtomicValue<T> result = retrying(change, retryPolicy);
        if (result.succeeded() || promotedToLock == null) {
            return result;
        }
        InterProcessMutex mutex = new InterProcessMutex(client, promotedToLock.lockPath());
        Optional<Duration> timeout = promotedToLock.timeout();
        boolean locked;
        if (timeout.isPresent()) {
            locked = mutex.acquire(timeout.get().toNanos(), TimeUnit.NANOSECONDS);
        } else {
            mutex.acquire();
            locked = true;
        }
        if (!locked) {
            return result;
        }
        try {
            // Writers that do not use the lock may still race with us: keep checking versions.
            return retrying(change, promotedToLock.retryPolicy());
        } finally {
            mutex.release();
        }
    }

    private AtomicValue<T> retrying(UnaryOperator<T> change, RetryPolicy policy)
            throws KeeperException, InterruptedException {
        long start = System.nanoTime();
        int retryCount = 0;
        while (true) {
            Read<T> before = read();
            T next = Objects.requireNonNull(change.apply(before.value()), "new value");
            if (write(before, next)) {
                return new AtomicValue<>(true, before.value(), next);
            }
            Optional<Duration> delay = policy.delayBeforeRetry(retryCount++, Duration.ofNanos(System.nanoTime() - start));
            if (delay.isEmpty()) {
                return new AtomicValue<>(false, before.value(), before.value());
            }
            if (!delay.get().isZero()) {
                Thread.sleep(delay.get().toMillis(), delay.get().toNanosPart() % 1_000_000);
            }
        }
    }

    /** One attempt: compare-and-set from the given read, no retries. */
    AtomicValue<T> compareAndSet(T expected, T newValue) throws KeeperException, InterruptedException {
        Read<T> before = read();
        if (!before.value().equals(expected)) {
            return new AtomicValue<>(false, before.value(), before.value());
        }
        boolean ok = write(before, newValue);
        return new AtomicValue<>(ok, before.value(), ok ? newValue : before.value());
    }

    /** Writes whatever the value is; always succeeds unless ZooKeeper fails. */
    AtomicValue<T> forceSet(T newValue) throws KeeperException, InterruptedException {
        T before = read().value();
        byte[] data = codec.encode(newValue);
        while (true) {
            try {
                client.setData().forPath(path, data);
                return new AtomicValue<>(true, before, newValue);
            } catch (KeeperException.NoNodeException e) {
                if (create(data)) {
                    return new AtomicValue<>(true, before, newValue);
                }
                // created by someone else meanwhile: overwrite it
            }
        }
    }

    /** Creates the node with the value if it does not exist. */
    AtomicValue<T> initialize(T value) throws KeeperException, InterruptedException {
        Read<T> before = read();
        if (before.stat() == null && create(codec.encode(value))) {
            return new AtomicValue<>(true, before.value(), value);
        }
        T now = before.stat() == null ? read().value() : before.value();
        return new AtomicValue<>(false, now, now);
    }

    /** Writes {@code next} only if the node is still as {@code before} found it. */
    private boolean write(Read<T> before, T next) throws KeeperException, InterruptedException {
        byte[] data = codec.encode(next);
        if (before.stat() == null) {
            return create(data);
        }
        try {
            List<BatonTransactionResult> results = client.transaction()
                    .forOperations(Versions.setIfVersion(client, path, data, before.stat().getVersion()));
            return results.get(0).error() == 0;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return false;
        }
    }

    /**
     * Creates the node, sent once (a transaction); missing parents are created as container nodes first.
     *
     * @return false if the node exists already
     */
    private boolean create(byte[] data) throws KeeperException, InterruptedException {
        for (int attempt = 0; ; attempt++) {
            try {
                client.transaction().forOperations(
                        client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(path, data));
                return true;
            } catch (KeeperException.NodeExistsException e) {
                return false;
            } catch (KeeperException.NoNodeException e) {
                if (attempt > 0) {
                    throw e;
                }
                String parent = BatonPaths.parent(path);
                try {
                    client.create().creatingParentContainersIfNeeded().withMode(CreateMode.CONTAINER).forPath(parent);
                } catch (KeeperException.NodeExistsException raced) {
                    // created meanwhile
                }
            }
        }
    }
}
