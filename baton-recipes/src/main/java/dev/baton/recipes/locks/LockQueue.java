package dev.baton.recipes.locks;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.CallerExecutor;
import dev.baton.internal.Failures;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Requests;
import dev.baton.internal.SerialExecutor;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue under a lock path: each acquirer adds a protected ephemeral-sequential node and owns the lock when
 * the {@link Driver} says its place allows it; until then it watches the nodes the driver names (one node ahead,
 * for a mutex), so a release wakes one waiter, not all.
 *
 * <h2>Round trips</h2>
 * An uncontended acquisition costs one write and one read: the create and the first listing are sent back to
 * back (ZooKeeper answers one session's requests in order, so the listing already contains the new node). A
 * waiter costs one more read, the one that sets its watch. A hand-over costs nothing more when the waiter's
 * decision said so ({@link Decision#firstDeletionHolds()}): a waiter that saw only its predecessor ahead of it
 * knows, when that node is deleted, that it is first, because sequence numbers only grow: a node created later
 * sorts behind it, so nobody can have queued ahead of it since it listed. It holds on the deletion notice,
 * without listing again: four requests per hand-over (create, listing, watch read, delete) where Curator's
 * mutex sends five (it lists again). Drivers use the rule only where it holds for every client on the path,
 * Curator's included (see each driver).
 *
 * <p>A mutex waiter further back watches the node two ahead instead ({@link Decision#thenWatch()}): when that
 * node goes, the node just ahead usually holds, and the waiter lists again with a watch read on the node just
 * ahead sent alongside. The listing finds it second in line, so the hand-over to it waits for no listing: the
 * listing happens while the one ahead holds, off the hand-over's path. That costs a read more than Curator's
 * mutex in a long queue (six requests per hand-over against five) and saves a round trip on every hand-over. The
 * third in line lists nothing when the first goes ({@link Decision#thenHolds()}): only the second can still be
 * ahead of it then, so it reads the second's node, setting its watch, and holds once that node is gone.
 *
 * <h2>One thread of control</h2>
 * Each acquisition is a small state machine: every event of it (a reply, a watch event, a connection state, the
 * deadline, the caller giving up) becomes a task on the attempt's own {@link SerialExecutor}, so its state is
 * touched by one task at a time, in order, without locks, and its decision is made in one place,
 * {@code LockAttempt.decide}. A blocking acquire runs those tasks on the caller's own thread while it waits
 * ({@link CallerExecutor}): ZooKeeper's event thread only passes results along. An asynchronous acquire runs them
 * on the thread that delivers each event. No thread waits for an asynchronous acquire.
 */
final class LockQueue {
    private static final Logger LOG = LoggerFactory.getLogger(LockQueue.class);

    /** Decides from the queue whether a node may hold the lock, and what it waits for if not. */
    @FunctionalInterface
    interface Driver {
        /**
         * {@return {@link Decision#HOLD}, or the nodes to watch}
         *
         * @param sorted the lock's nodes in queue order
         * @param ourIndex the position of the acquirer's node
         */
        Decision decide(List<String> sorted, int ourIndex);

        /**
         * Puts the queue's nodes in order; the read-write lock orders two node names together.
         *
         * @param children the children of the lock path
         * @param nodeName the queue's node name
         * @return the queue's nodes in order
         */
        default List<String> sort(Collection<String> children, String nodeName) {
            return BatonPaths.sortBySequence(children, nodeName);
        }

        /**
         * Asked once per node, the first time the acquirer would have to wait: a future of true withdraws the
         * attempt instead (its node is deleted, then it fails with {@link Withdrawn}).
         *
         * @return null to wait without asking
         */
        default @Nullable CompletableFuture<Boolean> withdrawBeforeWaiting() {
            return null;
        }

        /**
         * A sequence the attempt's node takes instead of a fresh one: the node is then created as an ephemeral
         * (not sequential) node named {@code nodeName + sequence}, so it sorts where that sequence sorts. The
         * read lock of a thread that holds the write lock takes the write node's place this way.
         *
         * @return the ten-digit sequence text, or null for a fresh sequence from ZooKeeper
         */
        default @Nullable String fixedSequence() {
            return null;
        }
    }

    /**
     * What an acquirer does at its place in the queue.
     *
     * @param watch the nodes to watch; empty: it holds the lock now
     * @param firstDeletionHolds true if the deletion of any one of them makes it a holder: nothing can come
     *     ahead of it meanwhile (see the class comment), so it holds on the notice without listing again
     * @param thenWatch a node to watch next when a watched node goes; null for none. Unless {@code thenHolds},
     *     the acquirer lists the queue again then, and the watch read is sent alongside that listing, so it is set
     *     when the listing says to wait for this node
     * @param thenHolds true if {@code thenWatch} is the only other node the listing showed ahead: when a watched
     *     node goes, the acquirer lists nothing and holds as soon as {@code thenWatch} is gone too
     */
    record Decision(List<String> watch, boolean firstDeletionHolds, @Nullable String thenWatch, boolean thenHolds) {
        /** The acquirer holds the lock. */
        static final Decision HOLD = new Decision(List.of(), false);

        Decision {
            watch = List.copyOf(watch);
            if (thenHolds && thenWatch == null) {
                throw new IllegalArgumentException("thenHolds needs a thenWatch node");
            }
        }

        /** A decision with no node to watch besides {@code watch}. */
        Decision(List<String> watch, boolean firstDeletionHolds) {
            this(watch, firstDeletionHolds, null, false);
        }

        /** Waits for one node to go. */
        static Decision after(String node, boolean holdsWhenGone) {
            return new Decision(List.of(node), holdsWhenGone);
        }

        boolean holds() {
            return watch.isEmpty();
        }
    }

    /** The failure of an attempt its {@link Driver} withdrew; thrown only after the attempt's node is deleted. */
    static final class Withdrawn extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Withdrawn() {
            super("withdrawn before waiting", null, false, false);
        }
    }

    /**
     * A mutex: the first node holds, and the second holds as soon as the first goes (no client, Baton's or
     * Curator's, ever creates a mutex node with an old sequence). A node further back watches the node two ahead
     * of it: that node's deletion usually means the node just ahead now holds, so the listing it prompts finds
     * this one second in line while there is still a holder to wait for, and the watch on the node just ahead,
     * sent with that listing, is already set: the hand-over to it needs no listing. The third in line needs no
     * listing at all: when the first goes, only the second can still be ahead of it, so it watches the second and
     * holds once that one is gone.
     */
    static final Driver MUTEX = (sorted, i) -> i == 0 ? Decision.HOLD
            : i == 1 ? Decision.after(sorted.get(0), true)
            : new Decision(List.of(sorted.get(i - 2)), false, sorted.get(i - 1), i == 2);

    final BatonClient client;
    final String path;
    final String nodeName;
    private final Driver driver;
    final ListenerContainer<HoldListener> holdListeners = new ListenerContainer<>(Runnable::run,
            (message, e) -> LOG.error("Hold listener failed: {}", message, e));
    final SerialExecutor notifications = new SerialExecutor(Runnable::run);
    final AtomicLong wakeUps = new AtomicLong();
    /**
     * The attempts waiting for each watched node. Every watch of the queue uses {@link #nodeWatcher}, so ZooKeeper
     * keeps one registration per node however many attempts wait for it, and an attempt that ends leaves its
     * watches set instead of sending a request to remove them: every watched node existed when watched (a node
     * found gone sets no watch), and lock nodes are ephemeral, so each such watch fires once its node goes and
     * finds no attempt here.
     */
    private final ConcurrentHashMap<String, Set<LockAttempt>> waiters = new ConcurrentHashMap<>();
    final Watcher nodeWatcher = this::nodeEvent;

    LockQueue(BatonClient client, String path, String nodeName, Driver driver) {
        this.client = client;
        this.path = path;
        this.nodeName = nodeName;
        this.driver = driver;
    }

    /**
     * Starts an acquisition with the queue's own driver.
     *
     * @param data the node's data
     * @param timeoutNanos how long to wait; negative for no limit
     * @return the hold, or null if the time ran out; a null arrives only after the attempt's node is deleted
     */
    CompletableFuture<Hold> acquire(byte[] data, long timeoutNanos) {
        return acquire(data, timeoutNanos, driver);
    }

    /** As {@link #acquire(byte[], long)}, deciding with the given driver instead of the queue's own. */
    CompletableFuture<Hold> acquire(byte[] data, long timeoutNanos, Driver attemptDriver) {
        return attempt(data, attemptDriver).start(timeoutNanos);
    }

    /**
     * An attempt not started yet, for a caller that also needs its {@link LockAttempt#cleaned()}; driven by
     * ZooKeeper's callbacks once started.
     */
    LockAttempt attempt(byte[] data, Driver attemptDriver) {
        return new LockAttempt(this, data, attemptDriver, Runnable::run);
    }

    /**
     * Acquires on the calling thread: the attempt's tasks run here while it waits, and the first listing, sent
     * back to back with the create as always, is a blocking request, so an uncontended acquire is decided on
     * this thread without a hand-off from ZooKeeper's event thread.
     *
     * @return the hold, or null if the time ran out (nothing of the attempt stays on the server)
     * @throws IllegalStateException on ZooKeeper's event thread, where the wait could never end
     * @throws InterruptedException if interrupted; the attempt is given up
     */
    @Nullable Hold acquireBlocking(byte[] data, long timeoutNanos, Driver attemptDriver)
            throws KeeperException, InterruptedException {
        Requests.requireNotEventThread(client, "acquire the lock " + path);
        CallerExecutor caller = new CallerExecutor();
        CompletableFuture<Hold> outcome = new LockAttempt(this, data, attemptDriver, caller).start(timeoutNanos);
        try {
            caller.runUntil(outcome);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // await below gives the attempt up
        }
        return await(client, outcome, Hold::release);
    }

    /** How many times a watch woke an attempt of this queue (for tests: readers must not wake on readers). */
    long wakeUps() {
        return wakeUps.get();
    }

    /**
     * Waits for an acquisition made through this package's queues. On interrupt the acquisition is given up (its
     * nodes are deleted); if it won at that very moment, what it won goes to {@code release}. Failures come out as
     * the {@link KeeperException} or runtime exception they are.
     *
     * @return what the acquisition won, or null if it ended without (its time ran out)
     * @throws IllegalStateException on ZooKeeper's event thread, where the wait could never end
     */
    static <T> @Nullable T await(BatonClient client, CompletableFuture<T> acquisition, Consumer<? super T> release)
            throws KeeperException, InterruptedException {
        if (!acquisition.isDone() && client.isEventThread()) {
            giveUp(acquisition, release); // nothing of the attempt may stay on the server
            Requests.requireNotEventThread(client, "wait for a lock");
        }
        try {
            return Failures.await(acquisition);
        } catch (InterruptedException e) {
            giveUp(acquisition, release);
            throw e;
        }
    }

    /** Ends an acquisition the caller no longer waits for: its nodes are deleted, or what it won released. */
    private static <T> void giveUp(CompletableFuture<T> acquisition, Consumer<? super T> release) {
        if (!acquisition.complete(null) && !acquisition.isCompletedExceptionally()) {
            T won = acquisition.getNow(null);
            if (won != null) {
                release.accept(won);
            }
        }
    }

    /** The lock's nodes in queue order, as full paths. */
    List<String> participantNodes() throws KeeperException, InterruptedException {
        try {
            return BatonPaths.sortBySequence(client.getChildren().forPath(path), nodeName).stream()
                    .map(n -> BatonPaths.makePath(path, n)).toList();
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    private void nodeEvent(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None || event.getPath() == null) {
            return;
        }
        Set<LockAttempt> attempts = waiters.remove(event.getPath()); // the watch fired: it is gone for all of them
        if (attempts != null) {
            boolean deleted = event.getType() == Watcher.Event.EventType.NodeDeleted;
            for (LockAttempt attempt : attempts) {
                attempt.post(() -> attempt.watchFired(event.getPath(), deleted));
            }
        }
    }

    void register(String node, LockAttempt attempt) {
        waiters.compute(node, (k, set) -> {
            Set<LockAttempt> attempts = set != null ? set : ConcurrentHashMap.newKeySet();
            attempts.add(attempt);
            return attempts;
        });
    }

    void unregister(Collection<String> nodes, LockAttempt attempt) {
        for (String node : nodes) {
            waiters.computeIfPresent(node, (k, set) -> {
                set.remove(attempt);
                return set.isEmpty() ? null : set;
            });
        }
    }

    boolean isCurrentSession(long session) {
        try {
            return client.isConnected() && client.getZooKeeper().getSessionId() == session;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /**
     * Deletes a node, retrying in the background until done; the future completes after the first attempt and
     * never fails, so a caller that need not know when may ignore it.
     */
    @CanIgnoreReturnValue
    CompletableFuture<Void> deleteQuietly(String node) {
        try {
            return client.delete().guaranteed().quietly().forPathAsync(node).exceptionally(e -> null);
        } catch (IllegalStateException e) {
            return CompletableFuture.completedFuture(null); // client closed: the session's end removes it
        }
    }
}
