package dev.baton.recipes.queue;

import dev.baton.BatonClient;
import dev.baton.BatonPaths;
import dev.baton.Failures;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
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
 * Items are consumed one at a time, on the executor.
 *
 * <p>Thread-safety: thread-safe; state guarded by {@code this}.
 */
final class Delivery<T> implements Watcher, ConnectionStateListener {
    private static final Logger LOG = LoggerFactory.getLogger(Delivery.class);
    private static final Duration RETRY = Duration.ofMillis(500);

    private final BatonClient client;
    private final String queuePath;
    private final String lockPath;
    private final Layout layout;
    private final QueueSerializer<T> serializer;
    private final QueueConsumer<T> consumer;
    private final Executor executor;
    private final int minItemsBeforeRefresh;
    private final Listing lister;
    private volatile ErrorMode errorMode = ErrorMode.REQUEUE;
    private volatile int lastCount;

    // Guarded by this.
    private boolean running;
    private final ArrayDeque<String> pending = new ArrayDeque<>();
    private final Set<String> inFlight = new HashSet<>();
    private boolean listing;
    private boolean listed;
    private boolean dirty;
    private boolean busy;
    private int takenSinceListing;
    private ScheduledFuture<?> timer;
    private Thread consuming;
    private final Set<String> watchedLocks = new HashSet<>();
    private final Watcher lockWatcher = this::lockEvent;

    Delivery(BatonClient client, String queuePath, String lockPath, Layout layout, QueueSerializer<T> serializer,
            QueueConsumer<T> consumer, Executor executor, int minItemsBeforeRefresh) {
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

    void start() {
        synchronized (this) {
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
        synchronized (this) {
            running = false;
            pending.clear();
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
        client.getConnectionStateListenable().removeListener(this);
        removeWatch();
        List<String> locks;
        synchronized (this) {
            locks = List.copyOf(watchedLocks);
            watchedLocks.clear();
        }
        for (String lockNode : locks) {
            if (client.getState() == BatonClient.State.STARTED) {
                client.watchers().remove(lockWatcher).ofType(Watcher.WatcherType.Data).quietly()
                        .forPathAsync(lockNode).exceptionally(e -> null);
            }
        }
        synchronized (this) {
            long deadline = System.nanoTime() + waitNanos;
            while (busy && consuming != Thread.currentThread()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
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
        synchronized (this) {
            dirty = true;
        }
        pump();
    }

    @Override
    public void stateChanged(BatonClient c, ConnectionState newState) {
        if (newState == ConnectionState.RECONNECTED) {
            synchronized (this) {
                dirty = true; // a new session has no watch; and items may have come meanwhile
                watchedLocks.clear();
            }
            pump();
        }
    }

    /** Decides the next step: list, wait for a due time, or claim the next item. */
    private void pump() {
        synchronized (this) {
            if (!running || listing) {
                return;
            }
            String head = pending.peek();
            boolean headWaits = head != null && layout.delayMillis(head, System.currentTimeMillis()) > 0;
            boolean refresh = pending.isEmpty() || takenSinceListing >= minItemsBeforeRefresh || headWaits;
            if (!listed || dirty && refresh) {
                listing = true;
                listed = true;
                dirty = false;
                lister.list(this).whenComplete(this::listed);
                return;
            }
            if (busy || head == null) {
                return;
            }
            if (headWaits) {
                if (timer == null) {
                    timer = client.schedule(this::due,
                            Duration.ofMillis(layout.delayMillis(head, System.currentTimeMillis())));
                }
                return;
            }
            pending.poll();
            busy = true;
            inFlight.add(head);
            takenSinceListing++;
            claim(head);
        }
    }

    private void due() {
        synchronized (this) {
            timer = null;
        }
        pump();
    }

    private void listed(Listing.Result result, Throwable error) {
        synchronized (this) {
            listing = false;
            if (error != null) {
                dirty = true;
                if (!Failures.isConnectionProblem(error)) {
                    LOG.warn("could not list queue {}; trying again", queuePath, Failures.unwrap(error));
                }
                if (running) {
                    client.schedule(this::pump, RETRY);
                }
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
            lastCount = items.size();
        }
        pump();
    }

    /** Claims item {@code name}: both requests are sent at once. Called under the lock. */
    private void claim(String name) {
        String itemPath = BatonPaths.makePath(queuePath, name);
        if (lockPath == null) {
            CompletableFuture<byte[]> data = read(itemPath);
            CompletableFuture<Void> delete = send(() -> client.delete().forPathAsync(itemPath));
            data.whenComplete((bytes, readError) -> delete.whenComplete((v, deleteError) -> {
                if (deleteError == null && readError == null) {
                    consume(name, bytes, null, 0);
                } else {
                    if (deleteError == null) {
                        LOG.warn("queue item {} was removed but could not be read", itemPath, readError);
                    } else if (Failures.isConnectionProblem(deleteError)) {
                        markDirty();
                    }
                    finish(name);
                }
            }));
            return;
        }
        String lockNode = BatonPaths.makePath(lockPath, name);
        long session = session();
        CompletableFuture<String> lock = send(() -> client.create().withMode(CreateMode.EPHEMERAL)
                .forPathAsync(lockNode));
        CompletableFuture<byte[]> data = read(itemPath);
        lock.whenComplete((created, lockError) -> data.whenComplete((bytes, readError) -> {
            if (lockError == null && readError == null) {
                consume(name, bytes, lockNode, session);
                return;
            }
            if (lockError == null) {
                releaseLock(lockNode, session); // the item is gone (consumed by another) or unreadable
            } else if (Failures.code(lockError) == KeeperException.Code.NODEEXISTS && readError == null) {
                watchLock(lockNode); // another consumer has it: look again if it lets go without removing it
            } else if (Failures.code(lockError) == KeeperException.Code.NONODE) {
                ensureLockPath(); // the lock path was removed: make it again and try later
                markDirty();
            } else if (Failures.isConnectionProblem(lockError)) {
                releaseLock(lockNode, session); // only if the create was applied after all (ours by session)
                markDirty();
            }
            finish(name);
        }));
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

    private void consume(String name, byte[] data, String lockNode, long session) {
        try {
            executor.execute(() -> run(name, data, lockNode, session));
        } catch (RuntimeException e) {
            LOG.error("the queue's executor refused item {}; it stays in the queue", name, e);
            if (lockNode != null) {
                releaseLock(lockNode, session);
            }
            finish(name);
        }
    }

    /** Consumes one item node on the executor, then settles it. */
    private void run(String name, byte[] data, String lockNode, long session) {
        synchronized (this) {
            consuming = Thread.currentThread();
        }
        boolean requeue = false;
        try {
            List<T> items;
            try {
                items = ItemCodec.decode(data, serializer);
            } catch (IOException | RuntimeException e) {
                LOG.error("corrupt queue item {} in {}: removed", name, queuePath, e);
                items = List.of();
            }
            for (T item : items) {
                try {
                    consumer.consumeMessage(item);
                } catch (Throwable e) {
                    LOG.error("consumer failed on an item of {} in {}", name, queuePath, e);
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                    if (lockNode != null && errorMode == ErrorMode.REQUEUE) {
                        requeue = true;
                        break;
                    }
                }
            }
        } finally {
            synchronized (this) {
                consuming = null;
            }
        }
        if (lockNode == null) {
            finish(name);
        } else {
            settle(name, data, lockNode, session, requeue);
        }
    }

    /**
     * Removes a consumed item with its lock node in one transaction (or puts it back at the end of the queue),
     * only while the session that owns the lock node lives. A connection loss leaves the outcome unknown: the
     * same transaction is sent again, and a second application is impossible (its delete of the item fails).
     */
    private void settle(String name, byte[] data, String lockNode, long session, boolean requeue) {
        if (session() != session) {
            LOG.warn("the session that locked queue item {} ended: leaving it for another consumer", name);
            finish(name);
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
        send(() -> client.transaction().forOperationsAsync(ops)).whenComplete((results, error) -> {
            if (error == null) {
                finish(name);
            } else if (Failures.isConnectionProblem(error) && Failures.code(error) != KeeperException.Code
                    .SESSIONEXPIRED && client.getState() == BatonClient.State.STARTED) {
                client.schedule(() -> settle(name, data, lockNode, session, requeue), RETRY);
            } else {
                if (Failures.code(error) == KeeperException.Code.NONODE && error instanceof KeeperException ke
                        && itemPath.equals(ke.getPath())) {
                    releaseLock(lockNode, session); // removed meanwhile (an earlier attempt, or remove(id))
                } else if (!Failures.isConnectionProblem(error)) {
                    LOG.warn("could not settle queue item {}", itemPath, Failures.unwrap(error));
                    releaseLock(lockNode, session);
                }
                finish(name);
            }
        });
    }

    /** Deletes a lock node if this consumer's session (the one given) still owns it. */
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

    /**
     * Watches the lock node of an item another consumer holds. That consumer removes the item and its lock node
     * together when it is done, so nothing is missed by not looking; but if its session ends mid-message, only
     * the lock node goes, and the queue's children do not change: this watch is what brings the item back.
     */
    private void watchLock(String lockNode) {
        synchronized (this) {
            if (!running || !watchedLocks.add(lockNode)) {
                return;
            }
        }
        send(() -> client.checkExists().usingWatcher(lockWatcher).forPathAsync(lockNode)).whenComplete((stat, e) -> {
            if (e != null || stat == null) {
                synchronized (this) {
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
        synchronized (this) {
            watchedLocks.remove(event.getPath());
            dirty = true;
        }
        pump();
    }

    private void ensureLockPath() {
        send(() -> client.create().creatingParentContainersIfNeeded().forPathAsync(lockPath))
                .exceptionally(e -> null);
    }

    private void markDirty() {
        synchronized (this) {
            dirty = true;
        }
    }

    private void finish(String name) {
        synchronized (this) {
            busy = false;
            inFlight.remove(name);
            notifyAll();
        }
        pump();
    }

    private long session() {
        try {
            return client.getZooKeeper().getSessionId();
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
