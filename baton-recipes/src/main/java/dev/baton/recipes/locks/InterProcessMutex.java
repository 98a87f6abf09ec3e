package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Futures;
import dev.baton.listen.Listenable;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * A re-entrant mutex shared by processes: a thread that holds it may acquire it again, and must release it as
 * many times. Wire-compatible with Apache Curator's {@code InterProcessMutex} on the same path (nodes
 * {@code _c_<uuid>-lock-<seq>}).
 *
 * <pre>{@code
 * InterProcessMutex lock = new InterProcessMutex(client, "/locks/invoices");
 * if (lock.acquire(5, TimeUnit.SECONDS)) {
 *     try {
 *         store.write(invoice, lock.fencingToken().getAsLong());
 *     } finally {
 *         lock.release();
 *     }
 * }
 * }</pre>
 *
 * <p>The blocking forms hold per-thread ownership. {@link #acquireAsync()} holds no thread while waiting and
 * returns a {@link Hold} that any thread may release; such holds are not re-entrant and not owned by a thread.
 * Waiters watch only the node just ahead of them. An uncontended acquire and release cost three ZooKeeper
 * requests: a create and a listing sent back to back, and a delete.
 *
 * <p>Thread-safe. No thread of its own.
 */
public final class InterProcessMutex implements InterProcessLock, Revocable<InterProcessMutex> {
    static final String NODE_NAME = "lock-";
    private static final byte[] NO_DATA = new byte[0];

    private final LockQueue queue;
    private final byte[] nodeData;
    /** Chooses, on the acquiring thread, how an attempt decides (the read lock's downgrade needs this). */
    private final Supplier<LockQueue.Driver> drivers;
    private final Map<Thread, Owned> owners = new ConcurrentHashMap<>();
    private final Map<Hold, Boolean> asyncHolds = new ConcurrentHashMap<>();
    /** Each waiting {@link #acquireAsync()} acquisition, with its attempt's {@link LockAttempt#cleaned()}. */
    private final Map<CompletableFuture<Hold>, CompletableFuture<Void>> cleanups = new ConcurrentHashMap<>();
    /** Null until {@link #makeRevocable} is called. */
    private volatile @Nullable Revocation<InterProcessMutex> revocation;

    private static final class Owned {
        final Hold hold;
        int count = 1;

        Owned(Hold hold) {
            this.hold = hold;
        }
    }

    /**
     * @param client the client
     * @param path the lock's path
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public InterProcessMutex(BatonClient client, String path) {
        this(client, path, NO_DATA);
    }

    /**
     * A mutex whose nodes carry data, such as a participant id that {@code baton inspect} and
     * {@link dev.baton.recipes.leader.LeaderSelector} show.
     *
     * @param client the client
     * @param path the lock's path
     * @param nodeData the data of each node this mutex creates
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public InterProcessMutex(BatonClient client, String path, byte[] nodeData) {
        Objects.requireNonNull(client, "client");
        BatonPaths.validate(Objects.requireNonNull(path, "path"));
        this.nodeData = Objects.requireNonNull(nodeData, "nodeData").clone();
        this.queue = new LockQueue(client, path, NODE_NAME, LockQueue.MUTEX);
        this.drivers = () -> LockQueue.MUTEX;
    }

    /** A re-entrant lock on another queue, such as either half of {@link InterProcessReadWriteLock}. */
    InterProcessMutex(LockQueue queue, byte[] nodeData, Supplier<LockQueue.Driver> drivers) {
        this.queue = queue;
        this.nodeData = nodeData.clone();
        this.drivers = drivers;
    }

    @Override
    public void acquire() throws KeeperException, InterruptedException {
        acquireNanos(-1);
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws KeeperException, InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (time < 0) {
            throw new IllegalArgumentException("time must be >= 0, was " + time);
        }
        return acquireNanos(unit.toNanos(time));
    }

    private boolean acquireNanos(long timeoutNanos) throws KeeperException, InterruptedException {
        Thread me = Thread.currentThread();
        Owned owned = owners.get(me);
        if (owned != null) {
            if (!owned.hold.isHeld()) {
                throw new IllegalStateException("this thread's hold on " + queue.path
                        + " was lost; release() it before acquiring again");
            }
            owned.count++;
            return true;
        }
        Hold hold = queue.acquireBlocking(nodeData, timeoutNanos, drivers.get());
        if (hold == null) {
            return false;
        }
        owners.put(me, new Owned(hold));
        followRevocation(hold);
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The listener gets this mutex; for a hold of a thread, {@link #release()} must come from that thread (a
     * hold of {@link #acquireAsync()} may be released from any).
     */
    @Override
    public void makeRevocable(RevocationListener<InterProcessMutex> listener) {
        makeRevocable(listener, Runnable::run);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The listener gets this mutex.
     */
    @Override
    public void makeRevocable(RevocationListener<InterProcessMutex> listener, java.util.concurrent.Executor executor) {
        revocation = new Revocation<>(listener, executor);
    }

    private void followRevocation(Hold hold) {
        Revocation<InterProcessMutex> r = revocation;
        if (r != null) {
            r.follow(queue.client, hold.nodePath(), this);
        }
    }

    /**
     * Acquires without holding a thread while waiting. Completing the returned future with null gives the
     * acquisition up (its node is deleted); {@link #giveUpAsync(CompletableFuture)} also tells when that is done.
     *
     * @return the hold, to be released by any thread
     */
    public CompletableFuture<Hold> acquireAsync() {
        return start(-1);
    }

    /**
     * Acquires without holding a thread, giving up after a time.
     *
     * @param time how long to wait, {@code >= 0}
     * @param unit the unit of {@code time}
     * @return the hold, or null if the time ran out (nothing of the attempt stays on the server)
     * @throws IllegalArgumentException if {@code time} is negative
     */
    public CompletableFuture<Hold> acquireAsync(long time, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (time < 0) {
            throw new IllegalArgumentException("time must be >= 0, was " + time);
        }
        return start(unit.toNanos(time));
    }

    /**
     * Gives up an acquisition that {@link #acquireAsync()} of this mutex returned, and tells when nothing of it is
     * left on the server. Completing the acquisition with null gives it up too, without telling when its node is
     * gone; this is for a caller that must not return before then, such as a {@code close()}.
     *
     * @param acquisition a future returned by this mutex's {@code acquireAsync}
     * @return a future that completes once the acquisition's node is deleted (if the connection is down then,
     *         the delete goes on in the background and the session's end removes the node in any case); at once if
     *         the acquisition had ended already. An acquisition that had won is released first, as
     *         {@link Hold#release()} does, on the calling thread.
     * @throws NullPointerException if {@code acquisition} is null
     * @throws IllegalArgumentException if {@code acquisition} is still waiting but was not returned by this
     *         mutex
     */
    public CompletableFuture<Void> giveUpAsync(CompletableFuture<Hold> acquisition) {
        Objects.requireNonNull(acquisition, "acquisition");
        // Looked up by identity, which is CompletableFuture's equality: the very future acquireAsync returned.
        @SuppressWarnings("CollectionUndefinedEquality")
        CompletableFuture<Void> cleaned = cleanups.get(acquisition); // kept until the acquisition is clean
        if (cleaned == null && !acquisition.isDone()) {
            throw new IllegalArgumentException("acquisition was not returned by acquireAsync of the mutex "
                    + queue.path + ": " + acquisition);
        }
        if (!acquisition.complete(null)) {
            Hold won = acquisition.isCompletedExceptionally() ? null : acquisition.getNow(null);
            if (won != null) {
                won.release();
            }
        }
        return cleaned != null ? cleaned.copy() : CompletableFuture.completedFuture(null);
    }

    // cleanups is keyed by identity, which is CompletableFuture's equality: the very future returned here.
    @SuppressWarnings("CollectionUndefinedEquality")
    private CompletableFuture<Hold> start(long timeoutNanos) {
        LockAttempt attempt = queue.attempt(nodeData, drivers.get());
        CompletableFuture<Hold> tracked = track(attempt.start(timeoutNanos));
        CompletableFuture<Void> cleaned = attempt.cleaned();
        cleanups.put(tracked, cleaned);
        Futures.whenDone(tracked, (hold, error) -> Futures.whenDone(cleaned, (v, e) -> cleanups.remove(tracked)));
        return tracked;
    }

    /**
     * Wraps an attempt's hold so the mutex knows it, keeping the caller's future connected to the attempt:
     * completing the returned future with null gives the attempt up (its node is deleted).
     */
    private CompletableFuture<Hold> track(CompletableFuture<Hold> attempt) {
        CompletableFuture<Hold> tracked = new CompletableFuture<>();
        Futures.whenDone(attempt, (hold, error) -> {
            if (error != null) {
                tracked.completeExceptionally(error);
            } else if (hold == null) {
                tracked.complete(null);
            } else {
                TrackedHold mine = new TrackedHold(hold);
                if (!tracked.complete(mine)) {
                    mine.release(); // given up just as it arrived
                } else {
                    followRevocation(mine);
                }
            }
        });
        Futures.whenDone(tracked, (hold, error) -> {
            if (hold == null && error == null) {
                attempt.complete(null);
            }
        });
        return tracked;
    }

    /** An asynchronous hold, known to the mutex until released. */
    private final class TrackedHold implements Hold {
        private final Hold hold;

        TrackedHold(Hold hold) {
            this.hold = hold;
            asyncHolds.put(this, Boolean.TRUE);
        }

        @Override
        public String nodePath() {
            return hold.nodePath();
        }

        @Override
        public long fencingToken() {
            return hold.fencingToken();
        }

        @Override
        public HoldState state() {
            return hold.state();
        }

        @Override
        public Duration safeFor() {
            return hold.safeFor();
        }

        @Override
        public boolean isHeld() {
            return hold.isHeld();
        }

        @Override
        public void release() {
            asyncHolds.remove(this);
            hold.release();
        }

        @Override
        public String toString() {
            return hold.toString();
        }
    }

    /**
     * Releases one acquisition by the calling thread; the last one deletes the node.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     */
    @Override
    public void release() {
        Thread me = Thread.currentThread();
        Owned owned = owners.get(me);
        if (owned == null) {
            throw new IllegalMonitorStateException("the current thread does not hold the lock " + queue.path);
        }
        if (--owned.count > 0) {
            return;
        }
        owners.remove(me);
        owned.hold.release();
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        for (Owned owned : owners.values()) {
            if (owned.hold.isHeld()) {
                return true;
            }
        }
        for (Hold hold : asyncHolds.keySet()) {
            if (hold.isHeld()) {
                return true;
            }
        }
        return false;
    }

    /** {@return true if the calling thread holds the lock and has not learned that the hold is lost} */
    public boolean isOwnedByCurrentThread() {
        Owned owned = owners.get(Thread.currentThread());
        return owned != null && owned.hold.isHeld();
    }

    /** The node of the calling thread's hold, or null if the thread does not hold the lock. */
    @Nullable String ownedNodePath() {
        Owned owned = owners.get(Thread.currentThread());
        return owned != null && owned.hold.isHeld() ? owned.hold.nodePath() : null;
    }

    /**
     * {@return the full paths of the lock's nodes in queue order; the first holds the lock}
     *
     * @throws KeeperException if the queue cannot be read
     * @throws InterruptedException if interrupted while waiting
     */
    public Collection<String> getParticipantNodes() throws KeeperException, InterruptedException {
        return queue.participantNodes();
    }

    @Override
    public OptionalLong fencingToken() {
        Owned owned = owners.get(Thread.currentThread());
        return owned != null && owned.hold.isHeld() ? OptionalLong.of(owned.hold.fencingToken())
                : OptionalLong.empty();
    }

    @Override
    public Duration safeFor() {
        Owned owned = owners.get(Thread.currentThread());
        return owned == null ? Duration.ZERO : owned.hold.safeFor();
    }

    @Override
    public Listenable<HoldListener> getHoldListenable() {
        return queue.holdListeners;
    }

    /** {@return the lock's path} */
    public String getPath() {
        return queue.path;
    }

    /** How many times a watch woke this lock's waiters, for tests. */
    long wakeUps() {
        return queue.wakeUps();
    }

    /** Re-entrancy count of the calling thread, for tests. */
    int holdCount() {
        Owned owned = owners.get(Thread.currentThread());
        return owned == null ? 0 : owned.count;
    }

}
