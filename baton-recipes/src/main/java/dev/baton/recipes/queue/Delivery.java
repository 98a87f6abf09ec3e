package dev.baton.recipes.queue;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Monitor;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer side of a queue: a state machine driven by ZooKeeper's answers and watch events, with no thread
 * of its own. It lists the queue once with a child watch, then takes the items of that listing in order until
 * they run out (new items always sort after those listed, except in the priority and delay queues, which list
 * again as their builder asks); it lists again only when the watch says the children changed. Each item is one
 * round trip to claim and one to settle:
 * <ul>
 *   <li>without a lock path, the item's {@code getData} and {@code delete} are sent back to back (ZooKeeper
 *       answers one session's requests in order, so the read sees the node the delete then removes); the
 *       consumer that deleted it consumes it: at most once;</li>
 *   <li>with a lock path, the ephemeral lock node {@code <lockPath>/<item name>} (Curator's) and the item's
 *       {@code getData} are sent back to back; the consumer that created the lock node consumes the item, and
 *       then removes the item and its lock node in one transaction (or, after a failure in {@link
 *       ErrorMode#REQUEUE}, puts the item back at the end of the queue in the same transaction). If the session
 *       that owns the lock node has ended meanwhile, the item is left alone: the lock node went with the
 *       session, so another consumer may be consuming it now (Curator deletes it anyway: CURATOR-605).</li>
 * </ul>
 * Items are consumed one at a time, on the executor, and claimed in delivery order even when other consumers win
 * races for them: a consumer never takes an item ahead of one it has yet to try, so the items it receives come
 * in sequence order (for the plain and id queues, the order in which each thread put them).
 *
 * <p>Thread-safety: thread-safe; state guarded by {@code lock}.
 *
 * <p>Why one file of some 700 lines: listing, claiming, consuming and settling are one state machine over one
 * window of claimed items and one set of watches, guarded by one lock; each step hands the next its state, so
 * apart they would share every field. The constants that tune the window are documented where they are
 * declared.
 */
final class Delivery<T> implements Watcher, ConnectionStateListener {
    private static final Logger LOG = LoggerFactory.getLogger(Delivery.class);
    private static final Duration RETRY = Duration.ofMillis(500);
    /**
     * Items claimed at once, the one being consumed included, while messages take long (or before the first):
     * 1, so no item waits claimed behind a slow message where another consumer could have had it. The next claim
     * is then sent right after the settle of the item just consumed, in the same round trip.
     */
    private static final int WINDOW_SLOW = 1;
    /**
     * Items claimed at once while the last message took less than {@link #FAST_NANOS}: a few claims overlap the
     * consumption, and an item claimed ahead waits at most a few fast messages.
     */
    private static final int WINDOW_FAST = 4;
    private static final long FAST_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /**
     * After this many races lost to other consumers since the last listing, list again (if the queue changed)
     * rather than go on through a listing that other consumers are emptying: a read, where each stale claim
     * is a write the server logs.
     */
    private static final int STALE_AFTER = 2;
    /** At most this many lock nodes of items held by others are watched at once. */
    private static final int MAX_LOCK_WATCHES = 16;

    /** An item claimed and read, waiting to be consumed; {@code lockNode} null without a lock path. */
    private record Claimed(
            String name,
            // The item node's bytes as ZooKeeper returned them, handed to the decoder once; never compared or hashed.
            @SuppressWarnings("ArrayRecordComponent") byte[] data,
            @Nullable String lockNode,
            long session) {
    }

    private final Monitor lock = new Monitor();
    private final BatonClient client;
    private final String queuePath;
    /** Where the lock nodes go; null without a lock path (items are taken at most once). */
    private final @Nullable String lockPath;
    private final Layout layout;
    private final QueueSerializer<T> serializer;
    private final QueueConsumer<T> consumer;
    private final Executor executor;
    private final int minItemsBeforeRefresh;
    private final Listing lister;
    private volatile ErrorMode errorMode = ErrorMode.REQUEUE;
    private volatile int lastCount;
    /** How long the last item took to consume; {@code Long.MAX_VALUE} before the first. */
    private volatile long lastConsumeNanos = Long.MAX_VALUE;

    @GuardedBy("lock")
    private boolean running;
    @GuardedBy("lock")
    private final ArrayDeque<String> pending = new ArrayDeque<>();
    @GuardedBy("lock")
    private final Set<String> inFlight = new HashSet<>();
    @GuardedBy("lock")
    private boolean listing;
    @GuardedBy("lock")
    private boolean listed;
    @GuardedBy("lock")
    private boolean dirty;
    @GuardedBy("lock")
    private int claims;
    @GuardedBy("lock")
    private boolean pumping;
    @GuardedBy("lock")
    private boolean repump;
    @GuardedBy("lock")
    private final ArrayDeque<Claimed> ready = new ArrayDeque<>();
    @GuardedBy("lock")
    private boolean consuming;
    @GuardedBy("lock")
    private int lostSinceListing;
    @GuardedBy("lock")
    private int takenSinceListing;
    /** The wake-up for the head item's due time (delay queues); null if none is scheduled. */
    @GuardedBy("lock")
    private @Nullable ScheduledFuture<?> timer;
    /** The thread consuming an item now; null if none. */
    @GuardedBy("lock")
    private @Nullable Thread consumingThread;
    @GuardedBy("lock")
    private final Set<String> heldElsewhere = new java.util.LinkedHashSet<>();
    @GuardedBy("lock")
    private final Set<String> watchedLocks = new HashSet<>();
    private final Watcher lockWatcher = this::lockEvent;

    Delivery(BatonClient client, String queuePath, @Nullable String lockPath, Layout layout,
            QueueSerializer<T> serializer, QueueConsumer<T> consumer, Executor executor, int minItemsBeforeRefresh) {
        this.client = client;
        this.queuePath = queuePath;
        this.lockPath = lockPath;
        this.layout = layout;
        this.serializer = serializer;
        this.consumer = consumer;
        this.executor = executor;
        this.minItemsBeforeRefresh = minItemsBeforeRefresh;
        this.lister = new Listing(client, queuePath, layout);
    }

    void setErrorMode(ErrorMode mode) {
        errorMode = mode;
    }

    int lastCount() {
        return lastCount;
    }

    /** {@return the consumer the items go to} */
    QueueConsumer<T> consumer() {
        return consumer;
    }

    void start() {
        synchronized (lock) {
            running = true;
        }
        client.getConnectionStateListenable().addListener(this);
        pump();
    }

    /**
     * Stops taking items, removes the watch, and waits up to {@code waitNanos} for an item being consumed to be
     * settled (unless called from the consumer itself).
     */
    void close(long waitNanos) {
        List<Claimed> release = new ArrayList<>();
        synchronized (lock) {
            running = false;
            pending.clear();
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
            if (lockPath != null) {
                release.addAll(ready); // claimed but not begun: give their lock nodes back
                ready.clear();
                release.forEach(c -> inFlight.remove(c.name()));
            } // without a lock path, claimed items are out of the queue already: they are still consumed
        }
        for (Claimed c : release) {
            String lockNode = c.lockNode(); // set: claimed with a lock path
            if (lockNode != null) {
                releaseOwnLock(lockNode, c.session());
            }
        }
        client.getConnectionStateListenable().removeListener(this);
        removeWatch();
        List<String> locks;
        synchronized (lock) {
            locks = List.copyOf(watchedLocks);
            watchedLocks.clear();
        }
        for (String lockNode : locks) {
            if (client.getState() == BatonClient.State.STARTED) {
                client.watchers().remove(lockWatcher).ofType(Watcher.WatcherType.Data).quietly()
                        .forPathAsync(lockNode).exceptionally(e -> null);
            }
        }
        awaitSettled(waitNanos);
    }

    /** Waits up to {@code waitNanos} until no item is in flight (or the caller is the consumer itself). */
    // Monitor.await evaluates the condition with lock held, which Error Prone cannot see in a lambda.
    @SuppressWarnings("GuardedBy")
    private void awaitSettled(long waitNanos) {
        synchronized (lock) {
            long deadline = System.nanoTime() + waitNanos;
            Thread self = Thread.currentThread();
            try {
                lock.await(() -> inFlight.isEmpty() || consumingThread == self, deadline);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void removeWatch() {
        if (client.getState() != BatonClient.State.STARTED) {
            return;
        }
        var removal = client.watchers().remove(this).ofType(Watcher.WatcherType.Children).quietly();
        try {
            if (client.isConnected()) {
                removal.forPath(queuePath);
            } else {
                client.watchers().remove(this).ofType(Watcher.WatcherType.Children).locally().quietly()
                        .forPathAsync(queuePath).exceptionally(e -> null);
            }
        } catch (KeeperException | RuntimeException e) {
            LOG.debug("could not remove the watch on {}", queuePath, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == Event.EventType.None) {
            return; // connection events come through the client's listener
        }
        synchronized (lock) {
            dirty = true;
        }
        pump();
    }

    @Override
    public void stateChanged(BatonClient c, ConnectionState newState) {
        if (newState == ConnectionState.RECONNECTED) {
            synchronized (lock) {
                dirty = true; // a new session has no watch; and items may have come meanwhile
                watchedLocks.clear();
            }
        }
        pump(); // claimed items wait while disconnected, and are dropped once their session is known lost
    }

    /**
     * Decides the next steps: list when the listing ran out and the queue changed; claim items ahead, up to the
     * window; start consuming the next claimed item; wait for a due time.
     */
    private void pump() {
        synchronized (lock) {
            if (pumping) {
                repump = true; // the thread pumping now goes round once more (no recursion, one pump at a time)
                return;
            }
            pumping = true;
        }
        while (true) {
            pumpOnce();
            synchronized (lock) {
                if (!repump) {
                    pumping = false;
                    return;
                }
                repump = false;
            }
        }
    }

    private void pumpOnce() {
        Runnable consume = null;
        synchronized (lock) {
            if (running && !listing) {
                String head = pending.peek();
                boolean headWaits = head != null && layout.delayMillis(head, System.currentTimeMillis()) > 0;
                boolean refresh = pending.isEmpty() || takenSinceListing >= minItemsBeforeRefresh || headWaits
                        || lostSinceListing >= STALE_AFTER;
                if (!listed || (dirty && refresh)) {
                    listing = true;
                    listed = true;
                    dirty = false;
                    heldElsewhere.clear();
                    Futures.whenDone(lister.list(this), (result, error) -> {
                        if (error != null) {
                            listFailed(error);
                        } else {
                            listed(result);
                        }
                    });
                } else {
                    claimAhead();
                }
            }
            if (!consuming && !ready.isEmpty() && (running || lockPath == null)) {
                Claimed next = ready.poll();
                consuming = true;
                consume = () -> consume(next);
            } else if (running && !listing && idle()) {
                watchHeldLocks();
            }
        }
        if (consume != null) {
            consume.run();
        }
    }

    @GuardedBy("lock")
    private boolean idle() {
        return pending.isEmpty() && claims == 0 && ready.isEmpty() && !consuming;
    }

    /** Claims pending items until the window is full. Holds the lock. */
    @GuardedBy("lock")
    private void claimAhead() {
        int window = lastConsumeNanos < FAST_NANOS ? WINDOW_FAST : WINDOW_SLOW;
        while (claims + ready.size() + (consuming ? 1 : 0) < window && !pending.isEmpty()) {
            String head = pending.peek();
            long delay = layout.delayMillis(head, System.currentTimeMillis());
            if (delay > 0) {
                if (timer == null) {
                    timer = client.schedule(this::due, Duration.ofMillis(delay));
                }
                return;
            }
            String name = pending.poll();
            inFlight.add(name);
            claims++;
            takenSinceListing++;
            claim(name);
        }
    }

    private void due() {
        synchronized (lock) {
            timer = null;
        }
        pump();
    }

    /** A listing failed: list again after a while. */
    private void listFailed(Throwable error) {
        synchronized (lock) {
            if (!listingDone()) {
                return;
            }
            dirty = true;
            if (!Failures.isConnectionProblem(error)) {
                LOG.warn("could not list queue {}; trying again", queuePath, Failures.unwrap(error));
            }
            client.schedule(this::pump, RETRY);
        }
    }

    /**
     * With the lock held: the listing in flight is over. Closed meanwhile, the watch it set (which came after close
     * removed it) is removed too.
     *
     * @return whether the delivery still runs
     */
    @GuardedBy("lock")
    private boolean listingDone() {
        listing = false;
        if (!running) {
            client.watchers().remove(this).ofType(Watcher.WatcherType.Children).quietly()
                    .forPathAsync(queuePath).exceptionally(e -> null);
            return false;
        }
        return true;
    }

    private void listed(Listing.Result result) {
        synchronized (lock) {
            if (!listingDone()) {
                return;
            }
            pending.clear();
            List<String> items = result.items();
            if (result.unwatched()) {
                dirty = true; // no watch was set: look again once these run out
            }
            for (String name : items) {
                if (!inFlight.contains(name)) {
                    pending.add(name);
                }
            }
            takenSinceListing = 0;
            lostSinceListing = 0;
            lastCount = items.size();
        }
        pump();
    }

    /** Claims item {@code name}: both requests are sent at once. Called under the lock. */
    @GuardedBy("lock")
    private void claim(String name) {
        String itemPath = BatonPaths.makePath(queuePath, name);
        String lockParent = lockPath;
        if (lockParent == null) {
            CompletableFuture<byte[]> data = read(itemPath);
            CompletableFuture<Void> delete = send(() -> client.delete().forPathAsync(itemPath));
            Futures.whenDone(data, (bytes, readError) -> Futures.whenDone(delete, (v, deleteError) -> {
                if (deleteError == null && readError == null) {
                    claimed(new Claimed(name, bytes, null, 0));
                    return;
                }
                if (deleteError == null) {
                    LOG.warn("queue item {} was removed but could not be read", itemPath, readError);
                } else if (Failures.isConnectionProblem(deleteError)) {
                    markDirty();
                }
                lostRace(name, Failures.code(deleteError) == KeeperException.Code.NONODE);
            }));
            return;
        }
        String lockNode = BatonPaths.makePath(lockParent, name);
        long session = session();
        // The lock node's create and a check that the item still exists, in one transaction: no lock node is
        // made (and none has to be removed) for an item another consumer took since the listing.
        var op = client.transactionOp();
        CompletableFuture<?> locked = send(() -> client.transaction().forOperationsAsync(List.of(
                op.create().withMode(CreateMode.EPHEMERAL).forPath(lockNode), op.check().forPath(itemPath))));
        CompletableFuture<byte[]> data = read(itemPath);
        Futures.whenDone(locked, (created, lockError) -> Futures.whenDone(data, (bytes, readError) -> {
            if (lockError == null && readError == null) {
                claimed(new Claimed(name, bytes, lockNode, session));
                return;
            }
            boolean race = false;
            String failedPath = Failures.unwrap(lockError) instanceof KeeperException ke ? ke.getPath() : null;
            if (lockError == null) {
                releaseOwnLock(lockNode, session); // the item went between the check and the read, or is unreadable
                race = Failures.code(readError) == KeeperException.Code.NONODE;
            } else if (Failures.code(lockError) == KeeperException.Code.NODEEXISTS) {
                race = true;
                if (readError == null) {
                    synchronized (lock) {
                        heldElsewhere.add(lockNode); // watched if this consumer runs out of work
                    }
                }
            } else if (Failures.code(lockError) == KeeperException.Code.NONODE && itemPath.equals(failedPath)) {
                race = true; // consumed by another since the listing
            } else if (Failures.code(lockError) == KeeperException.Code.NONODE) {
                ensureLockPath(lockParent); // the lock path was removed: make it again and try later
                markDirty();
            } else if (Failures.isConnectionProblem(lockError)) {
                releaseLock(lockNode, session); // only if the create was applied after all (ours by session)
                markDirty();
            }
            lostRace(name, race);
        }));
    }

    private void claimed(Claimed item) {
        String giveBack = null; // the lock node to give back: claimed with a lock after close
        synchronized (lock) {
            claims--;
            if (!running && item.lockNode() != null) {
                giveBack = item.lockNode();
                inFlight.remove(item.name());
                lock.signalAll();
            } else {
                ready.add(item);
            }
        }
        if (giveBack != null) {
            releaseOwnLock(giveBack, item.session());
        }
        pump();
    }

    private void lostRace(String name, boolean toAnotherConsumer) {
        synchronized (lock) {
            claims--;
            inFlight.remove(name);
            if (toAnotherConsumer) {
                lostSinceListing++;
            }
            lock.signalAll();
        }
        pump();
    }

    private CompletableFuture<byte[]> read(String itemPath) {
        return send(() -> client.getData().forPathAsync(itemPath));
    }

    private static <R> CompletableFuture<R> send(java.util.function.Supplier<CompletableFuture<R>> request) {
        try {
            return request.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Consumes a claimed item on the executor. With a lock path, only while the session that made its lock node
     * lives and is connected: after a {@code LOST} the item may be another consumer's now, and while suspended it
     * waits (the item stays ready) until the connection is back or the session is known lost.
     */
    private void consume(Claimed item) {
        if (item.lockNode() != null) {
            if (session() != item.session()) {
                dropped(item);
                return;
            }
            if (!client.isConnected()) {
                synchronized (lock) {
                    consuming = false;
                    ready.addFirst(item); // RECONNECTED or LOST pumps again
                }
                return;
            }
        }
        try {
            executor.execute(() -> run(item));
        } catch (RuntimeException e) {
            LOG.error("the queue's executor refused item {}; it stays in the queue", item.name(), e);
            if (item.lockNode() != null) {
                releaseOwnLock(item.lockNode(), item.session());
            }
            dropped(item);
        }
    }

    private void dropped(Claimed item) {
        synchronized (lock) {
            consuming = false;
            inFlight.remove(item.name());
            lock.signalAll();
        }
        pump();
    }

    /** Consumes one item node on the executor, then settles it. */
    private void run(Claimed item) {
        synchronized (lock) {
            consumingThread = Thread.currentThread();
        }
        boolean requeue = false;
        long started = System.nanoTime();
        try {
            List<T> items;
            try {
                items = ItemCodec.decode(item.data(), serializer);
            } catch (IOException | RuntimeException e) {
                LOG.error("corrupt queue item {} in {}: removed", item.name(), queuePath, e);
                items = List.of();
            }
            for (T message : items) {
                try {
                    consumer.consumeMessage(message);
                } catch (Throwable e) {
                    LOG.error("consumer failed on an item of {} in {}", item.name(), queuePath, e);
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                    if (item.lockNode() != null && errorMode == ErrorMode.REQUEUE) {
                        requeue = true;
                        break;
                    }
                }
            }
        } finally {
            lastConsumeNanos = System.nanoTime() - started;
            synchronized (lock) {
                consumingThread = null;
                consuming = false;
            }
        }
        if (item.lockNode() == null) {
            settled(item.name());
        } else {
            settle(item.name(), item.data(), item.lockNode(), item.session(), requeue);
        }
        pump();
    }

    /**
     * Removes a consumed item with its lock node in one transaction (or puts it back at the end of the queue),
     * only while the session that owns the lock node lives. A connection loss leaves the outcome unknown: the
     * same transaction is sent again, and a second application is impossible (its delete of the item fails).
     */
    private void settle(String name, byte[] data, String lockNode, long session, boolean requeue) {
        if (session() != session) {
            LOG.warn("the session that locked queue item {} ended: leaving it for another consumer", name);
            settled(name);
            return;
        }
        String itemPath = BatonPaths.makePath(queuePath, name);
        var op = client.transactionOp();
        List<dev.baton.BatonOp> ops = requeue
                ? List.of(op.delete().forPath(itemPath),
                        op.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                                .forPath(BatonPaths.makePath(queuePath, layout.requeuePrefix(name)), data),
                        op.delete().forPath(lockNode))
                : List.of(op.delete().forPath(itemPath), op.delete().forPath(lockNode));
        Futures.whenDone(send(() -> client.transaction().forOperationsAsync(ops)), (results, error) -> {
            if (error == null) {
                settled(name);
            } else if (Failures.isConnectionProblem(error) && Failures.code(error) != KeeperException.Code
                    .SESSIONEXPIRED && client.getState() == BatonClient.State.STARTED) {
                client.schedule(() -> settle(name, data, lockNode, session, requeue), RETRY);
            } else {
                if (Failures.code(error) == KeeperException.Code.NONODE && error instanceof KeeperException ke
                        && itemPath.equals(ke.getPath())) {
                    releaseOwnLock(lockNode, session); // removed meanwhile (an earlier attempt, or remove(id))
                } else if (!Failures.isConnectionProblem(error)) {
                    LOG.warn("could not settle queue item {}", itemPath, Failures.unwrap(error));
                    releaseOwnLock(lockNode, session);
                }
                settled(name);
            }
        });
    }

    /** Deletes a lock node this consumer created in {@code session}, if that session lives. */
    private void releaseOwnLock(String lockNode, long session) {
        if (session() == session && client.getState() == BatonClient.State.STARTED) {
            send(() -> client.delete().withVersion(0).quietly().forPathAsync(lockNode)).exceptionally(e -> null);
        }
    }

    /** Deletes a lock node if this consumer's session (the one given) still owns it (it may not exist). */
    private void releaseLock(String lockNode, long session) {
        if (session() != session || client.getState() != BatonClient.State.STARTED) {
            return; // gone with its session
        }
        send(() -> client.checkExists().forPathAsync(lockNode)).thenCompose(s -> {
            if (s == null || s.getEphemeralOwner() != session) {
                return CompletableFuture.completedFuture(null);
            }
            return client.delete().withVersion(s.getVersion()).quietly().forPathAsync(lockNode);
        }).exceptionally(e -> null);
    }

    /** Watches the lock nodes of items other consumers held at the last look (some of them). Holds the lock. */
    @GuardedBy("lock")
    private void watchHeldLocks() {
        int armed = 0;
        for (String lockNode : heldElsewhere) {
            if (armed++ >= MAX_LOCK_WATCHES) {
                break;
            }
            watchLock(lockNode);
        }
        heldElsewhere.clear();
    }

    /**
     * Watches the lock node of an item another consumer holds. That consumer removes the item and its lock node
     * together when it is done, so nothing is missed by not looking; but if its session ends mid-message, only
     * the lock node goes, and the queue's children do not change: this watch is what brings the item back.
     */
    @GuardedBy("lock")
    private void watchLock(String lockNode) {
        if (!running || !watchedLocks.add(lockNode)) {
            return;
        }
        CompletableFuture<Stat> watched = send(() -> client.checkExists().usingWatcher(lockWatcher)
                .forPathAsync(lockNode));
        Futures.whenDone(watched, (stat, e) -> {
            if (e != null || stat == null) {
                synchronized (lock) {
                    watchedLocks.remove(lockNode);
                    dirty = true;
                }
                pump();
            }
        });
    }

    private void lockEvent(WatchedEvent event) {
        if (event.getType() == Event.EventType.None) {
            return;
        }
        synchronized (lock) {
            watchedLocks.remove(event.getPath());
            dirty = true;
        }
        pump();
    }

    private void ensureLockPath(String lockParent) {
        send(() -> client.create().creatingParentContainersIfNeeded().forPathAsync(lockParent))
                .exceptionally(e -> null);
    }

    private void markDirty() {
        synchronized (lock) {
            dirty = true;
        }
    }

    /** The item is settled (or given up): it may be listed and claimed again. */
    private void settled(String name) {
        synchronized (lock) {
            inFlight.remove(name);
            lock.signalAll();
        }
    }

    private long session() {
        try {
            return client.getZooKeeper().getSessionId();
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
