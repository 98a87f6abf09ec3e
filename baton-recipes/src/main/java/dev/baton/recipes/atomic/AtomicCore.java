package dev.baton.recipes.atomic;

import dev.baton.BatonClient;
import dev.baton.internal.Versions;
import dev.baton.BatonOp;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Requests;
import dev.baton.recipes.locks.Hold;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.retry.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The engine behind {@link DistributedAtomicLong} and {@link DistributedAtomicInteger}: read, compute, write
 * only if nobody wrote meanwhile, and retry under the retry policy after losing a race.
 *
 * <p>Every write that depends on what was read is a transaction, which the client sends once: a plain
 * {@code setData}/{@code create} would be retried by the client after a connection loss and could then report
 * {@code BadVersion}/{@code NodeExists} for a write that had succeeded, and a retry on top of that would apply an
 * increment twice. After such a connection loss the outcome is unknown and the caller gets
 * {@link KeeperException.ConnectionLossException}. Thread-safe; besides the configuration it keeps the quickest
 * attempt it has seen, to tell queueing from the round trip (see {@link #backOff}), and its last successful
 * version-checked write, which lets a change that follows soon skip its read (see {@link #recentlyWritten}).
 *
 * <p>Each operation is written once, as a composition of {@link CompletableFuture}s, and runs in one of two
 * modes (as the client's own operations do). Blocking: every request is a blocking call on the caller's thread,
 * so each future is complete when it is returned and the composition runs inline, like straight-line code, with
 * no thread switch (the benchmarked {@code increment()} costs what it did); pauses between attempts sleep. Not
 * blocking: requests are sent with {@code forPathAsync}, pauses are scheduled, and no thread waits.
 */
final class AtomicCore<T> {
    /** How far a back-off window grows with losses in a row: beyond it, a pause costs more than a lost race. */
    private static final int MAX_BACK_OFF_GROWTH = 4;
    /**
     * How many writes in a row one instance may base on its own last write without reading: then it reads, and the
     * others, who read after its last write, race it on equal terms (see {@link #recentlyWritten}).
     */
    private static final int MAX_WRITES_FROM_MEMORY = 8;

    /** How values are stored and compared. */
    interface Codec<T> {
        byte[] encode(T value);

        /** Decodes node data; null or empty data is the zero value. */
        T decode(String path, byte @Nullable [] data);

        T zero();
    }

    private final BatonClient client;
    private final String path;
    private final RetryPolicy retryPolicy;
    /** The mutex to fall back to; null for a counter that only ever tries optimistically. */
    private final @Nullable PromotedToLock promotedToLock;
    private final Codec<T> codec;
    /** The quickest attempt (read and write) seen so far, in nanoseconds: the round trips without a queue. */
    private volatile long quickestAttemptNanos = Long.MAX_VALUE;
    /** What this instance last wrote with a version check, and when the write was confirmed; null if unknown. */
    private volatile @Nullable Written<T> lastWritten;

    AtomicCore(BatonClient client, String path, RetryPolicy retryPolicy, @Nullable PromotedToLock promotedToLock,
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

    // ---------------------------------------------------------------- the two forms of each operation

    AtomicValue<T> get() throws KeeperException, InterruptedException {
        return Failures.await(get(true));
    }

    CompletableFuture<AtomicValue<T>> getAsync() {
        return async(caller -> get(false));
    }

    AtomicValue<T> update(UnaryOperator<T> change) throws KeeperException, InterruptedException {
        return Failures.await(update(change, true, null));
    }

    CompletableFuture<AtomicValue<T>> updateAsync(UnaryOperator<T> change) {
        return async(caller -> update(change, false, caller));
    }

    AtomicValue<T> compareAndSet(T expected, T newValue) throws KeeperException, InterruptedException {
        return Failures.await(compareAndSet(expected, newValue, true));
    }

    CompletableFuture<AtomicValue<T>> compareAndSetAsync(T expected, T newValue) {
        return async(caller -> compareAndSet(expected, newValue, false));
    }

    AtomicValue<T> forceSet(T newValue) throws KeeperException, InterruptedException {
        return Failures.await(forceSet(newValue, true, null));
    }

    CompletableFuture<AtomicValue<T>> forceSetAsync(T newValue) {
        return async(caller -> forceSet(newValue, false, caller));
    }

    AtomicValue<T> initialize(T value) throws KeeperException, InterruptedException {
        return Failures.await(initialize(value, true));
    }

    CompletableFuture<AtomicValue<T>> initializeAsync(T value) {
        return async(caller -> initialize(value, false));
    }

    // ---------------------------------------------------------------- the operations, written once

    /** What one read found: the value (0 when missing) and the node's stat, or null when it does not exist. */
    private record Read<T>(T value, @Nullable Stat stat) {
    }

    /** A value this instance wrote, the version the write gave the node, and the confirmation's time. */
    private record Written<T>(T value, int version, long atNanos, int streak) {
        Read<T> asRead() {
            Stat stat = new Stat();
            stat.setVersion(version);
            return new Read<>(value, stat);
        }
    }

    private CompletableFuture<Read<T>> read(boolean blocking) {
        Stat stat = new Stat();
        return Requests.send(blocking, client.getData().storingStatIn(stat), path).handle((data, error) -> {
            if (error == null) {
                return new Read<>(codec.decode(path, data), stat);
            }
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                return new Read<>(codec.zero(), null);
            }
            throw Failures.asCompletion(error);
        });
    }

    /**
     * Reads the value after a sync: a server answers reads from what it has applied, which after a pause or a
     * partition can be behind a write another client already saw completed. The sync makes it catch up with the
     * leader first, so what {@code get} returns is never older than a write that completed before it was called.
     */
    private CompletableFuture<AtomicValue<T>> get(boolean blocking) {
        return Requests.send(blocking, client.sync(), path)
                .thenCompose(synced -> read(blocking))
                .thenApply(read -> new AtomicValue<>(true, read.value(), read.value()));
    }

    /**
     * Applies {@code change} optimistically, retrying after lost races while the retry policy allows, then (if
     * configured) once more under the mutex. {@code caller}: the future handed to an asynchronous caller (null
     * when blocking); once it is done (cancelled), no further attempt starts.
     */
    private CompletableFuture<AtomicValue<T>> update(UnaryOperator<T> change, boolean blocking,
            @Nullable CompletableFuture<?> caller) {
        PromotedToLock promoted = promotedToLock;
        return retrying(change, retryPolicy, blocking, caller).thenCompose(result -> {
            if (result.succeeded() || promoted == null) {
                return CompletableFuture.completedFuture(result);
            }
            // Writers that do not use the lock may still race with us: keep checking versions.
            return underLock(promoted, blocking, caller, () -> retrying(change, promoted.retryPolicy(), blocking,
                    caller))
                    .thenApply(locked -> locked != null ? locked : result); // no lock in time: the optimistic outcome
        });
    }

    private CompletableFuture<AtomicValue<T>> retrying(UnaryOperator<T> change, RetryPolicy policy, boolean blocking,
            @Nullable CompletableFuture<?> caller) {
        long start = System.nanoTime();
        int[] retryCount = {0}; // one attempt at a time: each round happens after the previous one
        AtomicReference<Written<T>> known = new AtomicReference<>(recentlyWritten(start));
        return Requests.repeat(() -> {
            long attemptStart = System.nanoTime();
            Written<T> cached = known.getAndSet(null); // used once: a lost race or a later round reads
            CompletableFuture<Read<T>> reading = cached != null
                    ? CompletableFuture.completedFuture(cached.asRead()) : read(blocking);
            return reading.thenCompose(before -> {
                T next = Objects.requireNonNull(change.apply(before.value()), "new value");
                return write(before, next, blocking).thenCompose(written -> {
                    long now = System.nanoTime();
                    if (written) {
                        lastWritten = new Written<>(next, before.stat() == null ? 0 : before.stat().getVersion() + 1,
                                now, cached == null ? 0 : cached.streak() + 1);
                        if (cached == null) {
                            queuedPart(now - attemptStart); // a win may be the quickest attempt yet
                        }
                        return CompletableFuture.completedFuture(new AtomicValue<>(true, before.value(), next));
                    }
                    if (cached != null) {
                        return CompletableFuture.completedFuture(null); // someone wrote since: read, at once
                    }
                    long queued = queuedPart(now - attemptStart);
                    Optional<Duration> delay = policy.delayBeforeRetry(retryCount[0]++, Duration.ofNanos(now - start));
                    if (delay.isEmpty()) {
                        return CompletableFuture.completedFuture(
                                new AtomicValue<>(false, before.value(), before.value()));
                    }
                    Duration wait = backOff(delay.get(), retryCount[0], queued);
                    return pause(wait, blocking).thenApply(v -> null); // null: another round
                });
            });
        }, caller);
    }

    /**
     * The last write, if a change starting at {@code now} may take it instead of a read, else null. The value and
     * version this instance wrote are what a read would find unless someone wrote since, and then the version check
     * fails the write and the change reads. Only within one quick attempt (read and write) of the write's
     * confirmation, so that the version is trusted no longer than between a read and its write; and only for
     * {@value #MAX_WRITES_FROM_MEMORY} writes in a row, as a client that never reads would win every race against
     * those that must (its write reaches the server a round trip sooner).
     */
    private @Nullable Written<T> recentlyWritten(long now) {
        Written<T> last = lastWritten;
        boolean usable = last != null && now - last.atNanos() < quickestAttemptNanos
                && last.streak() < MAX_WRITES_FROM_MEMORY;
        return usable ? last : null;
    }

    /** One attempt: compare-and-set from one read, no retries. */
    private CompletableFuture<AtomicValue<T>> compareAndSet(T expected, T newValue, boolean blocking) {
        return read(blocking).thenCompose(before -> {
            if (!before.value().equals(expected)) {
                return CompletableFuture.completedFuture(new AtomicValue<>(false, before.value(), before.value()));
            }
            return write(before, newValue, blocking)
                    .thenApply(ok -> new AtomicValue<>(ok, before.value(), ok ? newValue : before.value()));
        });
    }

    /** Writes whatever the value is; always succeeds unless ZooKeeper fails. */
    private CompletableFuture<AtomicValue<T>> forceSet(T newValue, boolean blocking,
            @Nullable CompletableFuture<?> caller) {
        byte[] data = codec.encode(newValue);
        return read(blocking).thenCompose(before -> {
            AtomicValue<T> done = new AtomicValue<>(true, before.value(), newValue);
            return Requests.repeat(() -> Requests.send(blocking, client.setData(), path, data)
                    .thenApply(stat -> true)
                    .exceptionallyCompose(error -> Failures.code(error) == KeeperException.Code.NONODE
                            ? create(data, blocking) : CompletableFuture.failedFuture(error))
                    // Not written: created by someone else meanwhile; overwrite it.
                    .thenApply(written -> written ? done : null), caller);
        });
    }

    /** Creates the node with the value if it does not exist. */
    private CompletableFuture<AtomicValue<T>> initialize(T value, boolean blocking) {
        return read(blocking).thenCompose(before -> {
            if (before.stat() != null) {
                return CompletableFuture.completedFuture(new AtomicValue<>(false, before.value(), before.value()));
            }
            return create(codec.encode(value), blocking).thenCompose(created -> created
                    ? CompletableFuture.completedFuture(new AtomicValue<>(true, before.value(), value))
                    : read(blocking).thenApply(now -> new AtomicValue<>(false, now.value(), now.value())));
        });
    }

    /** Writes {@code next} only if the node is still as {@code before} found it. */
    private CompletableFuture<Boolean> write(Read<T> before, T next, boolean blocking) {
        byte[] data = codec.encode(next);
        if (before.stat() == null) {
            return create(data, blocking);
        }
        List<BatonOp> write = Versions.setIfVersion(client, path, data, before.stat().getVersion());
        return Requests.send(blocking, client.transaction(), write).handle((results, error) -> {
            if (error == null) {
                return results.get(0).error() == 0;
            }
            KeeperException.Code code = Failures.code(error);
            if (code == KeeperException.Code.BADVERSION || code == KeeperException.Code.NONODE) {
                return false;
            }
            throw Failures.asCompletion(error);
        });
    }

    /**
     * Creates the node, sent once (a transaction); if its parent is missing, creates the missing parents as
     * container nodes and tries once more.
     *
     * @return false if the node exists already
     */
    private CompletableFuture<Boolean> create(byte[] data, boolean blocking) {
        return createNode(data, blocking).exceptionallyCompose(error -> {
            if (Failures.code(error) != KeeperException.Code.NONODE) {
                return CompletableFuture.failedFuture(error);
            }
            String parent = BatonPaths.parent(path);
            return Requests.send(blocking, client.create().creatingParentContainersIfNeeded().withMode(CreateMode.CONTAINER),
                    parent).handle((created, e) -> {
                        if (e != null && Failures.code(e) != KeeperException.Code.NODEEXISTS) {
                            throw Failures.asCompletion(e);
                        }
                        return null; // created, or created meanwhile
                    }).thenCompose(v -> createNode(data, blocking));
        });
    }

    private CompletableFuture<Boolean> createNode(byte[] data, boolean blocking) {
        List<BatonOp> create = List.of(client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(path,
                data));
        return Requests.send(blocking, client.transaction(), create).handle((results, error) -> {
            if (error == null) {
                return true;
            }
            if (Failures.code(error) == KeeperException.Code.NODEEXISTS) {
                return false;
            }
            throw Failures.asCompletion(error);
        });
    }

    /**
     * Runs {@code work} holding the {@code promoted} mutex, released afterwards.
     *
     * @return what {@code work} gave, or null if the mutex was not had within the configured time
     */
    private <R> CompletableFuture<R> underLock(PromotedToLock promoted, boolean blocking,
            @Nullable CompletableFuture<?> caller, Supplier<CompletableFuture<R>> work) {
        InterProcessMutex mutex = new InterProcessMutex(client, promoted.lockPath());
        Optional<Duration> timeout = promoted.timeout();
        if (blocking) {
            boolean locked;
            try {
                if (timeout.isPresent()) {
                    locked = mutex.acquire(timeout.get().toNanos(), TimeUnit.NANOSECONDS);
                } else {
                    mutex.acquire();
                    locked = true;
                }
            } catch (KeeperException | InterruptedException | RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
            if (!locked) {
                return CompletableFuture.completedFuture(null);
            }
            // Complete on return (blocking), so released on this thread, which holds the mutex.
            return guarded(work).whenComplete((r, e) -> mutex.release());
        }
        CompletableFuture<Hold> acquiring;
        try {
            acquiring = timeout.isPresent()
                    ? mutex.acquireAsync(timeout.get().toNanos(), TimeUnit.NANOSECONDS) : mutex.acquireAsync();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (caller != null) {
            // A caller who gives up gives up the acquisition too (completing it with null withdraws it).
            Futures.whenDone(caller, (v, e) -> acquiring.complete(null));
        }
        return acquiring.thenCompose(hold -> hold == null ? CompletableFuture.<R>completedFuture(null)
                : guarded(work).whenComplete((r, e) -> hold.release()));
    }

    /**
     * Waits between attempts: sleeps when blocking; otherwise a completion scheduled on the client's scheduler
     * thread, from which the next attempt is sent, so no thread waits.
     */
    private CompletableFuture<Void> pause(Duration delay, boolean blocking) {
        if (delay.isZero() || delay.isNegative()) {
            return CompletableFuture.completedFuture(null);
        }
        if (blocking) {
            try {
                Thread.sleep(delay.toMillis(), delay.toNanosPart() % 1_000_000);
                return CompletableFuture.completedFuture(null);
            } catch (InterruptedException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        CompletableFuture<Void> paused = new CompletableFuture<>();
        try {
            client.schedule(() -> paused.complete(null), delay);
        } catch (IllegalStateException e) {
            paused.completeExceptionally(e); // the client closed
        }
        return paused;
    }

    // ---------------------------------------------------------------- helpers

    /**
     * How much of an attempt that took {@code attemptNanos} was spent queued behind other requests: its time less
     * the quickest attempt seen. The rest is the network and the server's own work, which no pause shortens
     * (scaling the back-off to the whole round trip made increments through a 1 ms round trip slower than
     * retrying at once).
     */
    long queuedPart(long attemptNanos) {
        long quickest = quickestAttemptNanos;
        if (attemptNanos < quickest) {
            quickestAttemptNanos = attemptNanos; // a lost update only leaves the floor a little higher for a while
            return 0;
        }
        return attemptNanos - quickest;
    }

    /**
     * How long to wait after the {@code lost}-th race lost in a row, given how long the losing attempt spent queued
     * (see {@link #queuedPart}). A delay the retry policy sets is honoured as given. A zero delay ("at once") would
     * send every loser straight into the next collision, so it becomes a random time up to a window of twice the
     * queued time (a first pause is on average as long as the queue was), doubling with each further loss, to
     * {@value #MAX_BACK_OFF_GROWTH} times that. A queue is contention on a busy server, where contenders that
     * spread out save it work; a long round trip without one is not, and waiting it out leaves the server idle.
     */
    static Duration backOff(Duration policyDelay, int lost, long queuedNanos) {
        if (!policyDelay.isZero()) {
            return policyDelay;
        }
        long window = (2 * Math.max(500, queuedNanos))
                << Math.min(lost - 1, Integer.numberOfTrailingZeros(MAX_BACK_OFF_GROWTH));
        return Duration.ofNanos(ThreadLocalRandom.current().nextLong(window + 1));
    }

    private static <R> CompletableFuture<R> guarded(Supplier<CompletableFuture<R>> step) {
        try {
            return step.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Starts an asynchronous operation and hands the caller a future that fails with the cause itself (not a
     * {@link CompletionException}); the operation sees that future, to stop when the caller gives up.
     */
    private static <R> CompletableFuture<R> async(Function<CompletableFuture<R>, CompletableFuture<R>> operation) {
        CompletableFuture<R> caller = new CompletableFuture<>();
        Futures.whenDone(guarded(() -> operation.apply(caller)), (value, error) -> {
            if (error == null) {
                caller.complete(value);
            } else {
                caller.completeExceptionally(Failures.unwrap(error));
            }
        });
        return caller;
    }
}
