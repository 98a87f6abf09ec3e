package dev.baton.recipes.locks;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.listen.Listenable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * A counting semaphore shared by processes: at most {@code maxLeases} leases are out at any time, across every
 * process using the path. Wire-compatible with Apache Curator's {@code InterProcessSemaphoreV2}: each lease is a
 * protected ephemeral-sequential node {@code <path>/leases/_c_<uuid>-lease-<seq>}, and Curator's inner mutex
 * lives at {@code <path>/locks}. All users of a path must agree on {@code maxLeases}.
 *
 * <pre>{@code
 * InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, "/semaphores/exports", 3);
 * try (Lease lease = semaphore.acquire(10, TimeUnit.SECONDS)) {
 *     if (lease != null) {
 *         runExport(lease.fencingToken().getAsLong());
 *     }
 * }
 * }</pre>
 *
 * <h2>The rule: no inner mutex</h2>
 * A lease is held when fewer than {@code maxLeases} lease nodes sort before its own (by sequence). New nodes
 * always sort after every existing node, and deletions only move a node forward, so a node that once had fewer
 * than {@code maxLeases} nodes ahead keeps having so: every holder is, at every instant, among the first
 * {@code maxLeases} nodes, hence at most {@code maxLeases} holders. An uncontended acquire costs two requests
 * sent back to back (the create and the listing) against Curator's mutex acquire, create, listing and mutex
 * release (about six).
 *
 * <h2>What a waiter watches</h2>
 * A waiter at position {@code i >= maxLeases} watches the {@code maxLeases} nodes just ahead of it. Watching only
 * the immediate predecessor would miss a holder further ahead returning its lease; a watch on the children of
 * {@code leases} (Curator's way) wakes every waiter on every create and delete. With the window, the deletion of
 * a node outside a waiter's window cannot make it eligible (it still has at least {@code maxLeases} nodes ahead)
 * and leaves its window unchanged (the same {@code maxLeases} nodes are still just ahead of it); the deletion of
 * a node inside the window wakes it to list again. The cost: up to {@code maxLeases} watches per waiter, and a
 * returned lease wakes the at most {@code maxLeases} waiters within {@code maxLeases} places behind it, each
 * listing once — not every waiter.
 *
 * <h2>Mixed with Curator's semaphore clients</h2>
 * Curator takes its inner mutex, creates its lease node, and holds when the number of <em>all</em> children of
 * {@code leases} is at most {@code maxLeases}; a Curator holder's node therefore also had fewer than
 * {@code maxLeases} nodes ahead when it was granted, and the argument above covers Baton and Curator holders
 * alike: the mix never has more than {@code maxLeases} holders. Liveness needs one more step: a waiting Curator
 * client counts Baton waiters queued <em>behind</em> it, and with {@code maxLeases = 1} a Baton waiter behind
 * a waiting Curator client would wait for it for ever, and it for them. So a Baton acquirer that would have to
 * wait first lists {@code <path>/locks} (one extra read, only when it must wait, and skipped while a watch left by
 * an earlier look that found no Curator client there has not fired); if a Curator client is in the middle of an
 * acquire there, it withdraws its node, queues for Curator's mutex like a Curator client, and only
 * then enqueues its lease node. Without Curator clients on the path, {@code locks} stays empty and Baton never
 * takes the mutex.
 *
 * <h2>Several leases</h2>
 * {@link #acquire(int)} takes its leases one after the other, all or nothing within one deadline. Taken one by
 * one without more, two multi-lease acquirers could each hold part of what they need while their partial holds
 * fill the semaphore, and wait for each other for ever (Curator's semaphore can). So a multi-lease acquire first
 * takes the mutex at {@code <path>/locks} and holds it until it has all its leases: multi-lease acquirers go one
 * at a time, and single-lease acquirers that would have to wait meanwhile queue behind the mutex as they do for a
 * Curator client. Holders never need the mutex to return a lease, so the one multi-lease acquirer in progress
 * always gets its leases once enough are returned. ({@code qty > maxLeases} can never be granted: such an
 * acquire waits until its deadline.)
 *
 * <p>Thread-safe. No thread of its own; {@link #acquireAsync()} holds no thread while waiting. A holder learns
 * when a lease may be lost or is lost through {@link #getHoldListenable()} and {@link Lease#state()}.
 *
 * <p>Why one file of some 530 lines: over a third is the public API's documentation; the waiting itself lives
 * in the shared {@code LockQueue}.
 */
public final class InterProcessSemaphoreV2 implements Revocable<Lease> {
    static final String LEASE_PARENT = "leases";
    static final String LOCK_PARENT = "locks";
    static final String NODE_NAME = "lease-";

    private final BatonClient client;
    private final String path;
    private final int maxLeases;
    private final byte[] nodeData;
    private final LockQueue leases;
    private final LockQueue curatorMutex;
    private final LockQueue.Driver lockFree;
    private final LockQueue.Driver underMutex;
    private final CuratorPresence curatorPresence;
    /** Null until {@link #makeRevocable} is called. */
    private volatile @Nullable Revocation<Lease> revocation;

    /**
     * @param client the client
     * @param path the semaphore's path
     * @param maxLeases how many leases may be out at once, {@code > 0}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid or {@code maxLeases <= 0}
     */
    public InterProcessSemaphoreV2(BatonClient client, String path, int maxLeases) {
        this(client, path, maxLeases, new byte[0]);
    }

    /**
     * @param client the client
     * @param path the semaphore's path
     * @param maxLeases how many leases may be out at once, {@code > 0}
     * @param nodeData the data of each lease node ({@link Lease#getData()})
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid or {@code maxLeases <= 0}
     */
    public InterProcessSemaphoreV2(BatonClient client, String path, int maxLeases, byte[] nodeData) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = BatonPaths.validate(Objects.requireNonNull(path, "path"));
        if (maxLeases <= 0) {
            throw new IllegalArgumentException("maxLeases must be > 0, was " + maxLeases);
        }
        this.maxLeases = maxLeases;
        this.nodeData = Objects.requireNonNull(nodeData, "nodeData").clone();
        String locksPath = BatonPaths.makePath(path, LOCK_PARENT);
        this.curatorPresence = new CuratorPresence(locksPath);
        this.underMutex = new Window(maxLeases, null);
        this.lockFree = new Window(maxLeases, locksPath);
        this.leases = new LockQueue(client, BatonPaths.makePath(path, LEASE_PARENT), NODE_NAME, lockFree);
        this.curatorMutex = new LockQueue(client, locksPath, InterProcessMutex.NODE_NAME, LockQueue.MUTEX);
    }

    /** Holds when fewer than {@code max} nodes are ahead; otherwise watches the {@code max} nodes just ahead. */
    private final class Window implements LockQueue.Driver {
        private final int max;
        /** The path of Curator's mutex, to look for Curator clients there before waiting; null not to look. */
        private final @Nullable String curatorLocks;

        Window(int max, @Nullable String curatorLocks) {
            this.max = max;
            this.curatorLocks = curatorLocks;
        }

        /**
         * With exactly {@code max} nodes ahead, the deletion of any of them leaves fewer than {@code max} ahead,
         * and no node can come ahead meanwhile (lease nodes are sequential, Curator's too): it holds on the notice.
         */
        @Override
        public LockQueue.Decision decide(List<String> sorted, int ourIndex) {
            return ourIndex < max ? LockQueue.Decision.HOLD
                    : new LockQueue.Decision(sorted.subList(ourIndex - max, ourIndex), ourIndex == max);
        }

        @Override
        public @Nullable CompletableFuture<Boolean> withdrawBeforeWaiting() {
            return curatorLocks == null ? null : curatorPresence.check();
        }
    }

    /**
     * Whether a Curator client is in the middle of an acquire: it holds (or queues for) its mutex at
     * {@code <path>/locks}. A look that finds no Curator client leaves a watch on {@code locks} (a child watch, or an
     * exists watch while it does not exist); until that watch fires, the answer stays "no" without a request. The
     * watch fires when a Curator client adds its node; ZooKeeper delivers that event before the answer to any
     * request sent after the node was added, and watch events and asynchronous results run in order on the event
     * thread, so a lease decision made after a Curator client queued sees the cache already cleared, as a fresh
     * listing would.
     */
    private final class CuratorPresence implements org.apache.zookeeper.Watcher {
        private final String locksPath;
        /** Bumped by every event of the watch: an answer from before an event must not be cached. */
        @GuardedBy("this")
        private long generation;
        @GuardedBy("this")
        private boolean knownAbsent;

        CuratorPresence(String locksPath) {
            this.locksPath = locksPath;
        }

        CompletableFuture<Boolean> check() {
            long gen;
            synchronized (this) {
                if (knownAbsent) {
                    return CompletableFuture.completedFuture(false);
                }
                gen = generation;
            }
            return client.getChildren().usingWatcher(this).forPathAsync(locksPath).thenApply(children -> {
                if (children.isEmpty()) {
                    cache(gen);
                }
                return !children.isEmpty();
            }).exceptionallyCompose(error -> {
                if (Failures.code(error) != KeeperException.Code.NONODE) {
                    return CompletableFuture.completedFuture(false);
                }
                // No locks node (no Curator client ever used the path): watch for its creation instead.
                return client.checkExists().usingWatcher(this).forPathAsync(locksPath).handle((stat, e) -> {
                    if (e == null && stat == null) {
                        cache(gen);
                    }
                    return false;
                });
            });
        }

        private synchronized void cache(long gen) {
            if (gen == generation) {
                knownAbsent = true;
            }
        }

        @Override
        public synchronized void process(org.apache.zookeeper.WatchedEvent event) {
            generation++; // any event, including a disconnection, clears the cache
            knownAbsent = false;
        }
    }

    /**
     * Acquires one lease, waiting as long as it takes.
     *
     * @return the lease; close it (or {@link #returnLease return} it) when done
     * @throws KeeperException if ZooKeeper fails in a way retries did not fix
     * @throws InterruptedException if interrupted while waiting; nothing of the attempt stays on the server
     */
    public Lease acquire() throws KeeperException, InterruptedException {
        return Objects.requireNonNull(await(acquireNanos(1, -1)), "no deadline: the wait ends with the lease")
                .iterator().next();
    }

    /**
     * Acquires {@code qty} leases, waiting as long as it takes.
     *
     * @param qty how many leases, {@code > 0}
     * @return the leases
     * @throws IllegalArgumentException if {@code qty <= 0}
     * @throws KeeperException if ZooKeeper fails in a way retries did not fix
     * @throws InterruptedException if interrupted while waiting; nothing of the attempt stays on the server
     */
    public Collection<Lease> acquire(int qty) throws KeeperException, InterruptedException {
        return Objects.requireNonNull(await(acquireNanos(checkQty(qty), -1)),
                "no deadline: the wait ends with the leases");
    }

    /**
     * Acquires one lease, giving up after a time.
     *
     * @param time how long to wait, {@code >= 0}
     * @param unit the unit of {@code time}
     * @return the lease, or null if the time ran out (nothing of the attempt stays on the server)
     * @throws IllegalArgumentException if {@code time} is negative
     * @throws KeeperException if ZooKeeper fails in a way retries did not fix
     * @throws InterruptedException if interrupted while waiting
     */
    public @Nullable Lease acquire(long time, TimeUnit unit) throws KeeperException, InterruptedException {
        Collection<Lease> got = await(acquireNanos(1, timeoutNanos(time, unit)));
        return got == null ? null : got.iterator().next();
    }

    /**
     * Acquires {@code qty} leases, all or nothing, within one deadline.
     *
     * @param qty how many leases, {@code > 0}
     * @param time how long to wait for all of them, {@code >= 0}
     * @param unit the unit of {@code time}
     * @return the leases, or null if the time ran out (the leases already taken are returned first)
     * @throws IllegalArgumentException if {@code qty <= 0} or {@code time} is negative
     * @throws KeeperException if ZooKeeper fails in a way retries did not fix
     * @throws InterruptedException if interrupted while waiting
     */
    public @Nullable Collection<Lease> acquire(int qty, long time, TimeUnit unit) throws KeeperException,
            InterruptedException {
        return await(acquireNanos(checkQty(qty), timeoutNanos(time, unit)));
    }

    /**
     * Acquires one lease without holding a thread while waiting. Completing the returned future with null
     * gives the attempt up (its node is deleted).
     *
     * @return the lease
     */
    public CompletableFuture<Lease> acquireAsync() {
        return single(acquireNanos(1, -1));
    }

    /**
     * Acquires one lease without holding a thread, giving up after a time.
     *
     * @param time how long to wait, {@code >= 0}
     * @param unit the unit of {@code time}
     * @return the lease, or null if the time ran out
     * @throws IllegalArgumentException if {@code time} is negative
     */
    public CompletableFuture<Lease> acquireAsync(long time, TimeUnit unit) {
        return single(acquireNanos(1, timeoutNanos(time, unit)));
    }

    /**
     * Acquires {@code qty} leases, all or nothing, without holding a thread while waiting.
     *
     * @param qty how many leases, {@code > 0}
     * @param time how long to wait for all of them, {@code >= 0}
     * @param unit the unit of {@code time}
     * @return the leases, or null if the time ran out
     * @throws IllegalArgumentException if {@code qty <= 0} or {@code time} is negative
     */
    public CompletableFuture<Collection<Lease>> acquireAsync(int qty, long time, TimeUnit unit) {
        return acquireNanos(checkQty(qty), timeoutNanos(time, unit));
    }

    /**
     * Returns a lease: deletes its node. Returning it twice does nothing.
     *
     * @param lease the lease
     * @throws NullPointerException if {@code lease} is null
     */
    public void returnLease(Lease lease) {
        Objects.requireNonNull(lease, "lease").close();
    }

    /**
     * Returns every lease of a collection.
     *
     * @param leases the leases
     * @throws NullPointerException if {@code leases} is null
     */
    public void returnAll(Collection<Lease> leases) {
        Objects.requireNonNull(leases, "leases").forEach(Lease::close);
    }

    /**
     * {@return the names of the lease nodes, held and waiting, in queue order}
     *
     * @throws KeeperException if the nodes cannot be read
     * @throws InterruptedException if interrupted while waiting
     */
    public Collection<String> getParticipantNodes() throws KeeperException, InterruptedException {
        return leases.participantNodes().stream().map(BatonPaths::nodeName).toList();
    }

    /** {@return listeners told when a lease of this semaphore may be lost, is lost, or is confirmed again} */
    public Listenable<HoldListener> getHoldListenable() {
        return leases.holdListeners;
    }

    /** {@return the semaphore's path} */
    public String getPath() {
        return path;
    }

    /** {@return the maximum number of leases} */
    public int getMaxLeases() {
        return maxLeases;
    }

    private static int checkQty(int qty) {
        if (qty <= 0) {
            throw new IllegalArgumentException("qty must be > 0, was " + qty);
        }
        return qty;
    }

    private static long timeoutNanos(long time, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (time < 0) {
            throw new IllegalArgumentException("time must be >= 0, was " + time);
        }
        return unit.toNanos(time);
    }

    private static CompletableFuture<Lease> single(CompletableFuture<Collection<Lease>> many) {
        CompletableFuture<Lease> one = many.thenApply(got -> got == null ? null : got.iterator().next());
        Futures.whenDone(one, (lease, error) -> {
            if (lease == null && error == null) {
                many.complete(null); // the caller gave up
            }
        });
        return one;
    }

    /** Waits for an acquisition; on interrupt gives it up (its nodes are deleted) and rethrows. */
    private @Nullable Collection<Lease> await(CompletableFuture<Collection<Lease>> acquisition)
            throws KeeperException, InterruptedException {
        return LockQueue.await(client, acquisition, leases -> leases.forEach(Lease::close));
    }

    /**
     * Takes {@code qty} leases one after the other within one deadline. Completing the returned future with null
     * gives up: the attempt in progress is cancelled and the leases taken are returned.
     */
    private CompletableFuture<Collection<Lease>> acquireNanos(int qty, long timeoutNanos) {
        Acquisition acquisition = new Acquisition(qty, timeoutNanos);
        Revocation<Lease> revocable = revocation;
        if (revocable != null) {
            Futures.whenDone(acquisition.result, (got, error) -> {
                if (got != null) {
                    got.forEach(lease -> revocable.follow(client, lease.getNodePath(), lease));
                }
            });
        }
        if (qty > 1) {
            acquisition.viaCuratorMutex(); // multi-lease acquirers one at a time (see the class comment)
        } else {
            acquisition.next();
        }
        return acquisition.result;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Beyond Curator, whose semaphore has no revocation (CURATOR-650): each lease is followed on its own, and
     * the listener gets the {@link Lease} asked for, which it may {@link Lease#close() close} from any thread.
     * Ask with {@link Revoker#attemptRevoke} on {@link Lease#getNodePath()}.
     */
    @Override
    public void makeRevocable(RevocationListener<Lease> listener) {
        makeRevocable(listener, Runnable::run);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The listener gets the {@link Lease} asked for.
     */
    @Override
    public void makeRevocable(RevocationListener<Lease> listener, java.util.concurrent.Executor executor) {
        revocation = new Revocation<>(listener, executor);
    }

    private final class Acquisition {
        final CompletableFuture<Collection<Lease>> result = new CompletableFuture<>();
        @GuardedBy("this")
        private final List<Lease> taken = new ArrayList<>();
        private final AtomicReference<CompletableFuture<Hold>> current = new AtomicReference<>();
        private final int qty;
        private final long deadline;
        private final boolean timed;
        /** Holding the mutex at {@code <path>/locks}: leases are queued without a presence check. */
        @GuardedBy("this")
        private boolean underCuratorMutex;

        Acquisition(int qty, long timeoutNanos) {
            this.qty = qty;
            this.timed = timeoutNanos >= 0;
            this.deadline = System.nanoTime() + (timed ? timeoutNanos : 0);
            Futures.whenDone(result, (got, error) -> {
                if (got == null) {
                    CompletableFuture<Hold> attempt = current.get();
                    if (attempt != null) {
                        attempt.complete(null);
                    }
                    giveBack();
                }
            });
        }

        private long remaining() {
            return timed ? Math.max(0, deadline - System.nanoTime()) : -1;
        }

        void next() {
            boolean viaMutex;
            synchronized (this) {
                if (taken.size() == qty) {
                    result.complete(List.copyOf(taken));
                    return;
                }
                viaMutex = underCuratorMutex;
            }
            track(leases.acquire(nodeData, remaining(), viaMutex ? underMutex : lockFree));
        }

        /** Follows one lease attempt; a withdrawn one queues for Curator's mutex first. */
        private void track(CompletableFuture<Hold> attempt) {
            current.set(attempt);
            if (result.isDone()) {
                attempt.complete(null);
            }
            Futures.whenDone(attempt, (hold, error) -> {
                if (error != null && Failures.unwrap(error) instanceof LockQueue.Withdrawn) {
                    viaCuratorMutex();
                } else if (error != null) {
                    giveBack(); // before the caller hears of it: nothing of the attempt stays
                    result.completeExceptionally(Failures.unwrap(error));
                } else if (hold == null) {
                    giveBack();
                    result.complete(null);
                } else {
                    Lease lease = new Lease(client, hold);
                    synchronized (this) {
                        taken.add(lease);
                    }
                    if (result.isDone()) {
                        giveBack();
                    } else {
                        next();
                    }
                }
            });
        }

        /**
         * Queues like a Curator client: takes the mutex at {@code <path>/locks}, then the remaining leases, and
         * releases the mutex when the acquisition ends, whichever way.
         */
        void viaCuratorMutex() {
            CompletableFuture<Hold> mutex = curatorMutex.acquire(new byte[0], remaining());
            current.set(mutex);
            if (result.isDone()) {
                mutex.complete(null);
            }
            Futures.whenDone(mutex, (mutexHold, error) -> {
                if (error != null) {
                    giveBack();
                    result.completeExceptionally(Failures.unwrap(error));
                } else if (mutexHold == null) {
                    giveBack();
                    result.complete(null);
                } else {
                    synchronized (this) {
                        underCuratorMutex = true;
                    }
                    Futures.whenDone(result, (got, e) -> mutexHold.release());
                    next();
                }
            });
        }

        private void giveBack() {
            List<Lease> back;
            synchronized (this) {
                back = List.copyOf(taken);
                taken.clear();
            }
            back.forEach(Lease::close);
        }
    }
}
