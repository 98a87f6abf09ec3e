package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.SerialExecutor;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
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
 * the {@link Driver} says its position allows it; until then it watches one node ahead of it, so a release
 * wakes one waiter, not all.
 *
 * <p>An acquisition costs one write and one read when uncontended: the create and the first listing are sent
 * back to back (ZooKeeper answers one session's requests in order, so the listing already contains the new
 * node). A hand-over costs the deletion notification and one listing. No thread waits: each attempt is a small
 * state machine driven by callbacks, watch events and connection states.
 */
final class LockQueue {
    private static final Logger LOG = LoggerFactory.getLogger(LockQueue.class);

    /** Decides from the queue whether a node may hold the lock. */
    interface Driver {
        /**
         * @param sorted the lock's nodes in queue order
         * @param ourIndex the position of the acquirer's node
         * @return null if the acquirer holds the lock now, otherwise the node name to watch
         */
        String nodeToWatch(List<String> sorted, int ourIndex);

        /**
         * The nodes to watch, for drivers that must hear of the deletion of any of several nodes (the semaphore
         * watches the {@code maxLeases} nodes just ahead of it).
         *
         * @return an empty list if the acquirer holds the lock now, otherwise the node names to watch
         */
        default List<String> nodesToWatch(List<String> sorted, int ourIndex) {
            String node = nodeToWatch(sorted, ourIndex);
            return node == null ? List.of() : List.of(node);
        }

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

    /** The failure of an attempt its {@link Driver} withdrew; thrown only after the attempt's node is deleted. */
    static final class Withdrawn extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Withdrawn() {
            super("withdrawn before waiting", null, false, false);
        }
    }

    /** A mutex: the first node holds; every other node watches the one just before it. */
    static final Driver MUTEX = (sorted, i) -> i == 0 ? null : sorted.get(i - 1);

    final BatonClient client;
    final String path;
    final String nodeName;
    private final Driver driver;
    final ListenerContainer<HoldListener> holdListeners = new ListenerContainer<>(Runnable::run,
            (message, e) -> LOG.error("Hold listener failed: {}", message, e));
    final SerialExecutor notifications = new SerialExecutor(Runnable::run);
    private final java.util.concurrent.atomic.AtomicLong wakeUps = new java.util.concurrent.atomic.AtomicLong();
    /**
     * The attempts waiting for each watched node. Every watch of the queue uses {@link #nodeWatcher}, so ZooKeeper
     * keeps one registration per node however many attempts wait for it, and an attempt that ends leaves its
     * watches set instead of sending a request to remove them: every watched node existed when watched (a node
     * found gone sets no watch), and lock nodes are ephemeral, so each such watch fires once its node goes and
     * finds no attempt here.
     */
    private final java.util.concurrent.ConcurrentHashMap<String, Set<Attempt>> waiters =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final Watcher nodeWatcher = this::nodeEvent;

    LockQueue(BatonClient client, String path, String nodeName, Driver driver) {
        this.client = client;
        this.path = path;
        this.nodeName = nodeName;
        this.driver = driver;
    }

    /**
     * Starts an acquisition.
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
        return new Attempt(data, attemptDriver, false).start(timeoutNanos);
    }

    /**
     * As {@link #acquire(byte[], long, Driver)}, for a caller that is about to block on the result: the first
     * listing, pipelined behind the create as always, is a blocking request on the caller's thread. Its reply
     * then wakes the caller directly, and an uncontended acquire is decided on the caller's thread, without the
     * hand-off from ZooKeeper's event thread that an asynchronous listing costs. Must not be called on
     * ZooKeeper's event thread.
     */
    CompletableFuture<Hold> acquireBlocking(byte[] data, long timeoutNanos, Driver attemptDriver) {
        return new Attempt(data, attemptDriver, true).start(timeoutNanos);
    }

    /** How many times a watch woke an attempt of this queue (for tests: readers must not wake on readers). */
    long wakeUps() {
        return wakeUps.get();
    }

    /**
     * Waits for an acquisition made through this package's queues. On interrupt the acquisition is given up (its
     * nodes are deleted); if it won at that very moment, what it won goes to {@code release}. Failures come out as
     * the {@link KeeperException} or runtime exception they are.
     */
    static <T> T await(CompletableFuture<T> acquisition, Consumer<? super T> release)
            throws KeeperException, InterruptedException {
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
            for (Attempt attempt : attempts) {
                attempt.process(event);
            }
        }
    }

    private void register(String node, Attempt attempt) {
        waiters.compute(node, (k, set) -> {
            Set<Attempt> attempts = set != null ? set : java.util.concurrent.ConcurrentHashMap.newKeySet();
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

    /** One acquisition in progress. All fields are guarded by {@code this}. */
    private final class Attempt implements ConnectionStateListener {
        private final byte[] data;
        private final Driver driver;
        private final CompletableFuture<Hold> result = new CompletableFuture<>();
        /** Completed once a failed or timed-out attempt has removed its node. */
        private final CompletableFuture<Void> cleaned = new CompletableFuture<>();
        private boolean creating;
        private String ourPath;
        private long session;
        private long czxid;
        /** The nodes watched now; the first deletion among them wakes the attempt. */
        private final Set<String> watched = new HashSet<>();
        /**
         * Every node with a watch of this attempt set (or being set) that has not fired: not set again on a
         * wake-up, and unregistered from {@code waiters} when the attempt ends.
         */
        private final Set<String> everWatched = new HashSet<>();
        private long watchGeneration;
        private boolean askedToWithdraw;
        private long round;

        /** The first listing is sent from the (blocking) caller's thread; see {@link #acquireBlocking}. */
        private final boolean listFirstInline;

        Attempt(byte[] data, Driver driver, boolean listFirstInline) {
            this.data = data;
            this.driver = driver;
            this.listFirstInline = listFirstInline;
        }

        CompletableFuture<Hold> start(long timeoutNanos) {
            client.getConnectionStateListenable().addListener(this);
            result.whenComplete((hold, error) -> finish(hold));
            if (timeoutNanos >= 0) {
                try { // on the client's scheduler: the JDK's delay thread would be one more thread
                    ScheduledFuture<?> timer = client.schedule(() -> result.complete(null),
                            Duration.ofNanos(timeoutNanos));
                    result.whenComplete((hold, error) -> timer.cancel(false));
                } catch (IllegalStateException e) {
                    result.completeExceptionally(e); // client not started, or closed
                }
            }
            enqueue();
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

        private void enqueue() {
            long r;
            String old;
            synchronized (this) {
                if (result.isDone()) {
                    return;
                }
                r = ++round;
                old = ourPath;
                ourPath = null;
                watched.clear();
                askedToWithdraw = false;
            }
            if (old != null) {
                deleteQuietly(old);
            }
            boolean inline;
            synchronized (this) {
                creating = true;
                inline = listFirstInline && r == 1;
            }
            Stat stat = new Stat();
            String sequence = driver.fixedSequence();
            CompletableFuture<String> created;
            CompletableFuture<List<String>> listed;
            try {
                created = client.create().creatingParentContainersIfNeeded().withProtection()
                        .withMode(sequence == null ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL)
                        .storingStatIn(stat)
                        .forPathAsync(BatonPaths.makePath(path, sequence == null ? nodeName : nodeName + sequence),
                                data);
                // Pipelined behind the create; the listing must show our node, or it is taken again.
                listed = inline ? new CompletableFuture<>() : client.getChildren().forPathAsync(path);
            } catch (IllegalStateException e) {
                result.completeExceptionally(e); // client closed
                return;
            }
            created.whenComplete((node, error) -> {
                boolean cleanUp;
                synchronized (this) {
                    creating = false;
                    cleanUp = result.isDone() && heldResult() == null;
                }
                if (error != null) {
                    if (cleanUp) {
                        cleaned.complete(null);
                    }
                    onError(error);
                    return;
                }
                synchronized (this) {
                    if (result.isDone() || r != round) {
                        CompletableFuture<Void> deleted = deleteQuietly(node);
                        if (cleanUp) {
                            deleted.thenRun(() -> cleaned.complete(null));
                        }
                        return;
                    }
                    ourPath = node;
                    session = stat.getEphemeralOwner();
                    czxid = stat.getCzxid();
                }
                listed.whenComplete((children, listError) -> {
                    if (listError == null && children.contains(BatonPaths.nodeName(node))) {
                        decide(r, children);
                    } else {
                        relist(r); // the parent had to be created first, so the listing came too early
                    }
                });
            });
            if (inline) {
                listInline(listed);
            }
        }

        /**
         * Lists on this (the blocking caller's) thread. When the create's callback has run by the time the reply
         * is read, the decision is made right here. A failure only costs the asynchronous listing that follows.
         */
        private void listInline(CompletableFuture<List<String>> listed) {
            try {
                listed.complete(client.getChildren().forPath(path));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the caller's wait sees it and gives the attempt up
                listed.completeExceptionally(e);
            } catch (KeeperException | RuntimeException e) {
                listed.completeExceptionally(e);
            }
        }

        /** The hold the attempt completed with, or null (not done, timed out, or failed). */
        private Hold heldResult() {
            return result.isDone() && !result.isCompletedExceptionally() ? result.getNow(null) : null;
        }

        private void relist(long r) {
            client.getChildren().forPathAsync(path).whenComplete((children, error) -> {
                if (error != null) {
                    onError(error);
                } else {
                    decide(r, children);
                }
            });
        }

        private void decide(long r, List<String> children) {
            List<String> toWatch; // null: our node is gone; empty: we hold the lock
            long ourSession;
            boolean ask;
            synchronized (this) {
                if (result.isDone() || r != round || ourPath == null) {
                    return;
                }
                List<String> sorted = driver.sort(children, nodeName);
                int index = sorted.indexOf(BatonPaths.nodeName(ourPath));
                toWatch = index < 0 ? null : driver.nodesToWatch(sorted, index).stream()
                        .map(n -> BatonPaths.makePath(path, n)).toList();
                ourSession = session;
                ask = toWatch != null && !toWatch.isEmpty() && !askedToWithdraw;
                askedToWithdraw |= ask;
            }
            if (toWatch == null) {
                enqueue(); // our node is gone
            } else if (toWatch.isEmpty()) {
                if (isCurrentSession(ourSession)) {
                    succeed();
                } else {
                    enqueue();
                }
            } else {
                CompletableFuture<Boolean> withdraw = ask ? driver.withdrawBeforeWaiting() : null;
                if (withdraw == null) {
                    watch(r, toWatch);
                } else {
                    withdraw.whenComplete((yes, error) -> {
                        if (Boolean.TRUE.equals(yes)) {
                            result.completeExceptionally(new Withdrawn()); // finish() deletes our node first
                        } else {
                            watch(r, toWatch);
                        }
                    });
                }
            }
        }

        /** Watches nodes ahead; the first of them to go (or to be found gone) makes the attempt list again. */
        private void watch(long r, List<String> nodes) {
            long generation;
            List<String> toSet;
            synchronized (this) {
                if (result.isDone() || r != round) {
                    return;
                }
                watched.clear();
                watched.addAll(nodes);
                generation = ++watchGeneration;
                // A watch set earlier by this attempt that has not fired is still set on the server (a node only
                // moves forward in the queue, so the semaphore's window keeps most of its nodes on a wake-up):
                // set watches only on the nodes without one.
                toSet = new java.util.ArrayList<>(nodes.size());
                for (String node : nodes) {
                    if (everWatched.add(node)) {
                        toSet.add(node);
                    }
                }
            }
            for (String node : toSet) {
                register(node, this);
                // getData, not exists: on a node already gone it sets no watch (one that would never fire).
                client.getData().usingWatcher(nodeWatcher).forPathAsync(node).whenComplete((bytes, error) -> {
                    if (error == null) {
                        return;
                    }
                    synchronized (this) {
                        everWatched.remove(node); // not set: the next decision sends it again
                    }
                    unregister(List.of(node), this);
                    if (Failures.code(error) == KeeperException.Code.NONODE) {
                        wake(r, generation); // gone before the watch was set
                    } else {
                        onError(error);
                    }
                });
            }
        }

        private void wake(long r, long generation) {
            synchronized (this) {
                if (result.isDone() || generation != watchGeneration) {
                    return;
                }
                watchGeneration++;
                watched.clear();
            }
            relist(r);
        }

        /** An event of a watched node (never of type None), from {@link #nodeEvent}. */
        void process(WatchedEvent event) {
            long r;
            synchronized (this) {
                everWatched.remove(event.getPath()); // a watch that fired is gone: set it again if still ahead
                if (result.isDone() || !watched.contains(event.getPath())) {
                    return;
                }
                watched.clear();
                watchGeneration++;
                r = round;
            }
            wakeUps.incrementAndGet();
            relist(r);
        }

        @Override
        public void stateChanged(BatonClient c, ConnectionState newState) {
            if (newState == ConnectionState.LOST) {
                List<String> gone;
                synchronized (this) {
                    ourPath = null; // gone with the session
                    gone = List.copyOf(everWatched); // and so are its watches
                    everWatched.clear();
                }
                unregister(gone, this);
            } else if (newState == ConnectionState.RECONNECTED) {
                String node;
                long r;
                long ourSession;
                synchronized (this) {
                    node = ourPath;
                    r = round;
                    ourSession = session;
                }
                if (node == null) {
                    enqueue();
                    return;
                }
                client.checkExists().forPathAsync(node).whenComplete((stat, error) -> {
                    if (error == null && stat != null && stat.getEphemeralOwner() == ourSession) {
                        relist(r);
                    } else if (error == null) {
                        enqueue();
                    }
                });
            }
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

        private void succeed() {
            HoldImpl hold;
            synchronized (this) {
                if (result.isDone()) {
                    return;
                }
                hold = new HoldImpl(LockQueue.this, ourPath, czxid, session);
            }
            hold.watchConnection();
            if (!result.complete(hold)) {
                hold.release(); // timed out or cancelled at the same moment
            }
        }

        private void finish(Hold hold) {
            client.getConnectionStateListenable().removeListener(this);
            String node;
            List<String> watching;
            synchronized (this) {
                node = ourPath;
                watching = List.copyOf(everWatched);
                watched.clear();
                everWatched.clear();
                round++;
            }
            unregister(watching, this); // the watches stay set; each fires once its node goes (see waiters)
            boolean createInFlight;
            synchronized (this) {
                createInFlight = creating;
            }
            if (hold == null && node != null) {
                deleteQuietly(node).thenRun(() -> cleaned.complete(null));
            } else if (!createInFlight) {
                cleaned.complete(null); // nothing on the server (or the hold owns the node)
            }
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
