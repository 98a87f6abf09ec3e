package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.Pathable;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.CallerExecutor;
import dev.baton.internal.Failures;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Requests;
import dev.baton.internal.SerialExecutor;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
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
 * <h2>One thread of control</h2>
 * Each acquisition is a small state machine: every event of it (a reply, a watch event, a connection state, the
 * deadline, the caller giving up) becomes a task on the attempt's own {@link SerialExecutor}, so its state is
 * touched by one task at a time, in order, without locks, and its decision is made in one place,
 * {@code Attempt.decide}. A blocking acquire runs those tasks on the caller's own thread while it waits
 * ({@link CallerExecutor}): ZooKeeper's event thread only passes results along. An asynchronous acquire runs them
 * on the thread that delivers each event. No thread waits for an asynchronous acquire.
 */
final class LockQueue {
    private static final Logger LOG = LoggerFactory.getLogger(LockQueue.class);

    /** Decides from the queue whether a node may hold the lock, and what it waits for if not. */
    @FunctionalInterface
    interface Driver {
        /**
         * @param sorted the lock's nodes in queue order
         * @param ourIndex the position of the acquirer's node
         * @return {@link Decision#HOLD}, or the nodes to watch
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
        default CompletableFuture<Boolean> withdrawBeforeWaiting() {
            return null;
        }

        /**
         * A sequence the attempt's node takes instead of a fresh one: the node is then created as an ephemeral
         * (not sequential) node named {@code nodeName + sequence}, so it sorts where that sequence sorts. The
         * read lock of a thread that holds the write lock takes the write node's place this way.
         *
         * @return the ten-digit sequence text, or null for a fresh sequence from ZooKeeper
         */
        default String fixedSequence() {
            return null;
        }
    }

    /**
     * What an acquirer does at its place in the queue.
     *
     * @param watch the nodes to watch; empty: it holds the lock now
     * @param firstDeletionHolds true if the deletion of any one of them makes it a holder: nothing can come
     *     ahead of it meanwhile (see the class comment), so it holds on the notice without listing again
     */
    record Decision(List<String> watch, boolean firstDeletionHolds) {
        /** The acquirer holds the lock. */
        static final Decision HOLD = new Decision(List.of(), false);

        Decision {
            watch = List.copyOf(watch);
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
     * A mutex: the first node holds; every other node watches the one just before it, and the second holds as
     * soon as the first goes (no client, Baton's or Curator's, ever creates a mutex node with an old sequence).
     */
    static final Driver MUTEX = (sorted, i) -> i == 0 ? Decision.HOLD : Decision.after(sorted.get(i - 1), i == 1);

    final BatonClient client;
    final String path;
    final String nodeName;
    private final Driver driver;
    final ListenerContainer<HoldListener> holdListeners = new ListenerContainer<>(Runnable::run,
            (message, e) -> LOG.error("Hold listener failed: {}", message, e));
    final SerialExecutor notifications = new SerialExecutor(Runnable::run);
    private final AtomicLong wakeUps = new AtomicLong();
    /**
     * The attempts waiting for each watched node. Every watch of the queue uses {@link #nodeWatcher}, so ZooKeeper
     * keeps one registration per node however many attempts wait for it, and an attempt that ends leaves its
     * watches set instead of sending a request to remove them: every watched node existed when watched (a node
     * found gone sets no watch), and lock nodes are ephemeral, so each such watch fires once its node goes and
     * finds no attempt here.
     */
    private final ConcurrentHashMap<String, Set<Attempt>> waiters = new ConcurrentHashMap<>();
    private final Watcher nodeWatcher = this::nodeEvent;

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
        return new Attempt(data, attemptDriver, Runnable::run).start(timeoutNanos);
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
    Hold acquireBlocking(byte[] data, long timeoutNanos, Driver attemptDriver)
            throws KeeperException, InterruptedException {
        requireNotEventThread(client, "acquire the lock " + path);
        CallerExecutor caller = new CallerExecutor();
        CompletableFuture<Hold> outcome = new Attempt(data, attemptDriver, caller).start(timeoutNanos);
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
     * Fails a blocking call made on ZooKeeper's event thread: the reply or event it would wait for could only be
     * delivered by that very thread.
     */
    static void requireNotEventThread(BatonClient client, String what) {
        if (client.isEventThread()) {
            throw new IllegalStateException("cannot " + what + " on ZooKeeper's event thread (inside a watcher or "
                    + "a callback): the wait could never end; use the asynchronous form there");
        }
    }

    /**
     * Waits for an acquisition made through this package's queues. On interrupt the acquisition is given up (its
     * nodes are deleted); if it won at that very moment, what it won goes to {@code release}. Failures come out as
     * the {@link KeeperException} or runtime exception they are.
     *
     * @throws IllegalStateException on ZooKeeper's event thread, where the wait could never end
     */
    static <T> T await(BatonClient client, CompletableFuture<T> acquisition, Consumer<? super T> release)
            throws KeeperException, InterruptedException {
        if (!acquisition.isDone()) {
            requireNotEventThread(client, "wait for a lock");
        }
        try {
            return Failures.await(acquisition);
        } catch (InterruptedException e) {
            if (!acquisition.complete(null) && !acquisition.isCompletedExceptionally()) {
                T won = acquisition.getNow(null);
                if (won != null) {
                    release.accept(won);
                }
            }
            throw e;
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
        Set<Attempt> attempts = waiters.remove(event.getPath()); // the watch fired: it is gone for all of them
        if (attempts != null) {
            boolean deleted = event.getType() == Watcher.Event.EventType.NodeDeleted;
            for (Attempt attempt : attempts) {
                attempt.post(() -> attempt.watchFired(event.getPath(), deleted));
            }
        }
    }

    private void register(String node, Attempt attempt) {
        waiters.compute(node, (k, set) -> {
            Set<Attempt> attempts = set != null ? set : ConcurrentHashMap.newKeySet();
            attempts.add(attempt);
            return attempts;
        });
    }

    private void unregister(Collection<String> nodes, Attempt attempt) {
        for (String node : nodes) {
            waiters.computeIfPresent(node, (k, set) -> {
                set.remove(attempt);
                return set.isEmpty() ? null : set;
            });
        }
    }

    private boolean isCurrentSession(long session) {
        try {
            return client.isConnected() && client.getZooKeeper().getSessionId() == session;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** Deletes a node, retrying in the background until done; the future completes after the first attempt. */
    private CompletableFuture<Void> deleteQuietly(String node) {
        try {
            return client.delete().guaranteed().quietly().forPathAsync(node).exceptionally(e -> null);
        } catch (IllegalStateException e) {
            return CompletableFuture.completedFuture(null); // client closed: the session's end removes it
        }
    }

    /**
     * One acquisition in progress. Its fields are touched only by tasks of {@link #serial}, one at a time; the
     * futures are the only things other threads complete.
     */
    private final class Attempt implements ConnectionStateListener {
        private final byte[] data;
        private final Driver driver;
        private final SerialExecutor serial;
        /**
         * A blocking acquire: reads are blocking requests on the caller's thread, whose replies wake it directly
         * (see {@link #acquireBlocking}); otherwise they are asynchronous.
         */
        private final boolean inline;
        private final CompletableFuture<Hold> result = new CompletableFuture<>();
        /** Completed once a failed or timed-out attempt has removed its node. */
        private final CompletableFuture<Void> cleaned = new CompletableFuture<>();

        /** Bumped each time the attempt enqueues a node, and when it ends: replies of older rounds are stale. */
        private long round;
        /** Creates and deletes of our nodes in flight: a failed or timed-out attempt is clean when none is left. */
        private int inFlight;
        private String ourPath;
        private long session;
        private long czxid;
        /** A listing that came before the create's reply (the inline one can): decided on once the node is known. */
        private List<String> earlyListing;
        /** The nodes waited for now, and whether the first of them to go makes us a holder. */
        private final Set<String> watched = new HashSet<>();
        private boolean firstDeletionHolds;
        /**
         * Every node with a watch of this attempt set (or being set) that has not fired: not set again on a
         * wake-up, and unregistered from {@code waiters} when the attempt ends.
         */
        private final Set<String> everWatched = new HashSet<>();
        private boolean askedToWithdraw;
        /** The deadline passed before the first decision: the attempt ends as soon as it would have to wait. */
        private boolean expired;
        private boolean decidedOnce;

        Attempt(byte[] data, Driver driver, Executor runner) {
            this.data = data;
            this.driver = driver;
            this.serial = new SerialExecutor(runner);
            this.inline = runner instanceof CallerExecutor;
        }

        /** Queues a task of this attempt. A task that throws (a bug) ends the attempt with that failure. */
        void post(Runnable task) {
            serial.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("Lock attempt on {} failed", path, e);
                    result.completeExceptionally(e);
                }
            });
        }

        CompletableFuture<Hold> start(long timeoutNanos) {
            client.getConnectionStateListenable().addListener(this);
            result.whenComplete((hold, error) -> post(() -> finish(hold)));
            if (timeoutNanos >= 0) {
                try { // on the client's scheduler: the JDK's delay thread would be one more thread
                    ScheduledFuture<?> timer = client.schedule(() -> post(this::deadline),
                            Duration.ofNanos(timeoutNanos));
                    result.whenComplete((hold, error) -> timer.cancel(false));
                } catch (IllegalStateException e) {
                    result.completeExceptionally(e); // client not started, or closed
                }
            }
            post(this::enqueue);
            // Cancelling the returned future (completing it with null) cancels the attempt.
            CompletableFuture<Hold> outcome = result.handle((hold, error) -> hold != null
                    ? CompletableFuture.completedFuture(hold)
                    : cleaned.thenCompose(v -> error != null ? CompletableFuture.<Hold>failedFuture(error)
                            : CompletableFuture.<Hold>completedFuture(null)))
                    .thenCompose(f -> f);
            outcome.whenComplete((hold, error) -> {
                if (hold == null && error == null && !result.complete(null)) {
                    Hold won = heldResult();
                    if (won != null) {
                        won.release(); // the caller gave up just as the lock arrived
                    }
                }
            });
            return outcome;
        }

        /**
         * The time ran out. A lock that is free is still taken, as with Curator, even with a timeout of zero: the
         * deadline ends only a wait, so before the first decision it just marks the attempt.
         */
        private void deadline() {
            if (decidedOnce) {
                result.complete(null);
            } else {
                expired = true;
            }
        }

        /** Adds a node to the queue (again), deleting the one of an earlier round. */
        private void enqueue() {
            if (result.isDone()) {
                return;
            }
            long r = ++round;
            if (ourPath != null) {
                deleteOurs(ourPath);
                ourPath = null;
            }
            stopWatching();
            earlyListing = null;
            askedToWithdraw = false;
            String sequence = driver.fixedSequence();
            Stat stat = new Stat();
            CompletableFuture<String> created;
            try {
                created = client.create().creatingParentContainersIfNeeded().withProtection()
                        .withMode(sequence == null ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL)
                        .storingStatIn(stat)
                        .forPathAsync(BatonPaths.makePath(path, sequence == null ? nodeName : nodeName + sequence),
                                data);
                inFlight++;
                created.whenComplete((node, error) -> post(() -> created(r, node, stat, error)));
                // Pipelined behind the create: the listing shows our node, unless the parent had to be made first.
                read(client.getChildren(), path, (children, error) -> firstListing(r, children));
            } catch (IllegalStateException e) {
                result.completeExceptionally(e); // client closed
            }
        }

        /**
         * Sends a read and handles its reply as a task of the attempt: a blocking request in a blocking acquire
         * (already on the attempt's thread, so the reply is handled right here), an asynchronous one otherwise.
         */
        private <T> void read(Pathable<T> request, String node, BiConsumer<T, Throwable> then) {
            CompletableFuture<T> reply = Requests.send(inline, request, node);
            if (inline) {
                Throwable error = failure(reply);
                then.accept(error == null ? reply.getNow(null) : null, error);
            } else {
                reply.whenComplete((value, error) -> post(() -> then.accept(value, error)));
            }
        }

        /** Lists the lock path and decides on what it shows. */
        private void list(long r) {
            read(client.getChildren(), path, (children, error) -> {
                if (error != null) {
                    onError(error);
                } else {
                    decide(r, children);
                }
            });
        }

        private void created(long r, String node, Stat stat, Throwable error) {
            inFlight--;
            if (error != null) {
                settleIfEnded();
                onError(error);
                return;
            }
            if (result.isDone() || r != round) {
                deleteOurs(node); // the attempt ended, or moved on, meanwhile
                return;
            }
            ourPath = node;
            session = stat.getEphemeralOwner();
            czxid = stat.getCzxid();
            if (earlyListing != null) {
                List<String> children = earlyListing;
                earlyListing = null;
                firstListing(r, children);
            }
        }

        /**
         * The listing sent with the create; null stands for a failed one. It may come before the create's reply
         * (the inline one can): then it waits for it. It must show our node, or it was read too early (the parent
         * had to be created first) and the path is listed again.
         */
        private void firstListing(long r, List<String> children) {
            if (result.isDone() || r != round) {
                return;
            }
            if (ourPath == null) {
                earlyListing = children == null ? List.of() : children;
            } else if (children == null || !children.contains(BatonPaths.nodeName(ourPath))) {
                list(r);
            } else {
                decide(r, children);
            }
        }

        /** The one place where the attempt decides: hold, withdraw, or watch. */
        private void decide(long r, List<String> children) {
            if (result.isDone() || r != round || ourPath == null) {
                return;
            }
            List<String> sorted = driver.sort(children, nodeName);
            int index = sorted.indexOf(BatonPaths.nodeName(ourPath));
            if (index < 0) {
                enqueue(); // our node is gone
                return;
            }
            Decision decision = driver.decide(sorted, index);
            decidedOnce = true;
            if (decision.holds()) {
                hold();
                return;
            }
            if (expired) {
                result.complete(null); // it would have to wait, and its time is up
                return;
            }
            CompletableFuture<Boolean> withdraw = askedToWithdraw ? null : driver.withdrawBeforeWaiting();
            askedToWithdraw = true;
            if (withdraw == null) {
                watch(decision);
                return;
            }
            withdraw.whenComplete((yes, error) -> post(() -> {
                if (result.isDone() || r != round) {
                    return;
                }
                if (Boolean.TRUE.equals(yes)) {
                    result.completeExceptionally(new Withdrawn()); // finish() deletes our node first
                } else {
                    watch(decision);
                }
            }));
        }

        /** Our node's turn has come: it holds if it still belongs to the current session. */
        private void hold() {
            if (!isCurrentSession(session)) {
                enqueue();
                return;
            }
            HoldImpl hold = new HoldImpl(LockQueue.this, ourPath, czxid, session);
            hold.watchConnection();
            if (!result.complete(hold)) {
                hold.release(); // timed out or cancelled at the same moment
            }
        }

        /** Waits for the decision's nodes; watches already set by this attempt are not set again. */
        private void watch(Decision decision) {
            long r = round;
            watched.clear();
            watched.addAll(decision.watch());
            firstDeletionHolds = decision.firstDeletionHolds();
            for (String name : decision.watch()) {
                String node = BatonPaths.makePath(path, name);
                if (everWatched.add(node)) {
                    setWatch(r, node);
                }
            }
        }

        private void setWatch(long r, String node) {
            register(node, this);
            // getData, not exists: on a node already gone it sets no watch (one that would never fire).
            read(client.getData().usingWatcher(nodeWatcher), node, (bytes, error) -> {
                if (error != null) {
                    watchFailed(r, node, error);
                }
            });
        }

        private void watchFailed(long r, String node, Throwable error) {
            everWatched.remove(node); // not set: the next decision sends it again
            unregister(List.of(node), this);
            if (result.isDone() || r != round) {
                return;
            }
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                gone(node); // gone before the watch was set
            } else {
                onError(error);
            }
        }

        /** A watch of ours fired (from {@link #nodeEvent}). */
        void watchFired(String node, boolean deleted) {
            everWatched.remove(node); // a watch that fired is gone
            if (result.isDone() || !watched.contains(BatonPaths.nodeName(node))) {
                return;
            }
            if (deleted) {
                gone(node);
            } else if (everWatched.add(node)) {
                setWatch(round, node); // its data changed (a revocation request, say): keep waiting for it
            }
        }

        /** A node we wait for is gone: we hold if the decision said so, otherwise we look again. */
        private void gone(String node) {
            if (ourPath == null || !watched.remove(BatonPaths.nodeName(node))) {
                return;
            }
            wakeUps.incrementAndGet();
            if (firstDeletionHolds) {
                hold();
            } else {
                watched.clear();
                list(round);
            }
        }

        @Override
        public void stateChanged(BatonClient c, ConnectionState newState) {
            if (newState == ConnectionState.LOST) {
                post(() -> {
                    ourPath = null; // gone with the session, and so are its watches
                    stopWatching();
                });
            } else if (newState == ConnectionState.RECONNECTED) {
                post(this::reconnected);
            }
        }

        private void reconnected() {
            if (result.isDone()) {
                return;
            }
            if (ourPath == null) {
                enqueue(); // a create still in flight belongs to an older round: its node is deleted
                return;
            }
            long r = round;
            String node = ourPath;
            long ourSession = session;
            read(client.checkExists(), node, (stat, error) -> {
                if (result.isDone() || r != round || error != null) {
                    return; // a failure: the next RECONNECTED looks again
                }
                if (stat != null && stat.getEphemeralOwner() == ourSession) {
                    list(r);
                } else {
                    enqueue();
                }
            });
        }

        private void onError(Throwable error) {
            if (result.isDone() || Failures.isConnectionProblem(error)) {
                return; // RECONNECTED (or LOST then RECONNECTED) carries on
            }
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                enqueue(); // the lock path was deleted under us
                return;
            }
            result.completeExceptionally(Failures.unwrap(error));
        }

        /** Forgets the watches of this attempt; they stay set on the server and fire into nothing. */
        private void stopWatching() {
            unregister(List.copyOf(everWatched), this);
            everWatched.clear();
            watched.clear();
        }

        /** The attempt ended: with a hold, or without (then its node, if any, goes before the caller hears). */
        private void finish(Hold hold) {
            client.getConnectionStateListenable().removeListener(this);
            stopWatching();
            round++;
            if (hold == null && ourPath != null) {
                deleteOurs(ourPath);
            }
            ourPath = null; // a hold owns its node now
            settleIfEnded();
        }

        /** Deletes a node of ours (retried in the background until done), counted until the first try ends. */
        private void deleteOurs(String node) {
            inFlight++;
            deleteQuietly(node).whenComplete((v, e) -> post(() -> {
                inFlight--;
                settleIfEnded();
            }));
        }

        /** An ended attempt is clean once no create or delete of its nodes is in flight. */
        private void settleIfEnded() {
            if (result.isDone() && inFlight == 0) {
                cleaned.complete(null);
            }
        }

        /** The failure of a completed future, or null if it succeeded. */
        private static Throwable failure(CompletableFuture<?> done) {
            return done.handle((v, error) -> error).join();
        }

        /** The hold the attempt completed with, or null (not done, timed out, or failed). */
        private Hold heldResult() {
            return result.isDone() && !result.isCompletedExceptionally() ? result.getNow(null) : null;
        }
    }

    /** A hold of this queue's lock. */
    static final class HoldImpl implements Hold, ConnectionStateListener {
        private final LockQueue queue;
        private final String nodePath;
        private final long czxid;
        private final long session;
        private volatile HoldState state = HoldState.HELD;
        private volatile boolean released;

        HoldImpl(LockQueue queue, String nodePath, long czxid, long session) {
            this.queue = queue;
            this.nodePath = nodePath;
            this.czxid = czxid;
            this.session = session;
        }

        void watchConnection() {
            queue.client.getConnectionStateListenable().addListener(this);
        }

        @Override
        public String nodePath() {
            return nodePath;
        }

        @Override
        public long fencingToken() {
            return czxid;
        }

        @Override
        public HoldState state() {
            return state;
        }

        @Override
        public boolean isHeld() {
            return !released && state != HoldState.LOST;
        }

        @Override
        public Duration safeFor() {
            return isHeld() && queue.isCurrentSession(session) ? queue.client.safeFor() : Duration.ZERO;
        }

        @Override
        public void stateChanged(BatonClient c, ConnectionState newState) {
            if (released) {
                return;
            }
            switch (newState) {
                case SUSPENDED -> setState(HoldState.SUSPENDED);
                case LOST -> setState(HoldState.LOST);
                case RECONNECTED -> queue.client.checkExists().forPathAsync(nodePath).whenComplete((stat, e) -> {
                    if (e == null) {
                        boolean ours = stat != null && stat.getEphemeralOwner() == session
                                && queue.isCurrentSession(session);
                        setState(ours ? HoldState.HELD : HoldState.LOST);
                    }
                });
                default -> {
                }
            }
        }

        private void setState(HoldState newState) {
            synchronized (this) {
                if (state == newState || state == HoldState.LOST || released) {
                    return;
                }
                state = newState;
            }
            queue.notifications.execute(() -> queue.holdListeners.forEach(l -> l.holdStateChanged(this, newState)));
        }

        @Override
        public void release() {
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
            }
            queue.client.getConnectionStateListenable().removeListener(this);
            if (!queue.client.isConnected()) {
                queue.deleteQuietly(nodePath); // retried until connected; don't block the releasing thread
                return;
            }
            try {
                queue.client.delete().guaranteed().quietly().forPath(nodePath);
            } catch (KeeperException e) {
                LOG.debug("Delete of {} failed; it is retried in the background", nodePath, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IllegalStateException e) {
                LOG.debug("Client closed before {} was deleted; the session's end removes it", nodePath);
            }
        }

        @Override
        public String toString() {
            return "Hold[" + nodePath + ", token=" + czxid + ", " + (released ? "released" : state) + "]";
        }
    }
}
