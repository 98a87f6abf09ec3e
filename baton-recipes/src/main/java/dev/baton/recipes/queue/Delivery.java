package dev.baton.recipes.queue;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Monitor;
import dev.baton.recipes.queue.ItemClaims.Claimed;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
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
 * <p>This class is the state machine: the listing, the window of claimed items, the hand-off to the consumer, and
 * closing. The requests that claim, settle and give back an item are {@link ItemClaims}; the watches on lock nodes
 * other consumers hold are {@link HeldLocks}, which takes this class's lock. The constants that tune the window
 * are documented where they are declared.
 *
 * <p>Thread-safety: thread-safe; state guarded by {@code lock}.
 */
final class Delivery<T> implements Watcher, ConnectionStateListener, ItemClaims.Outcomes {
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

    private final Monitor lock = new Monitor();
    private final BatonClient client;
    private final String queuePath;
    /** Whether items are claimed with lock nodes (a lock path is set), or taken at most once. */
    private final boolean locking;
    private final Layout layout;
    private final QueueSerializer<T> serializer;
    private final QueueConsumer<T> consumer;
    private final Executor executor;
    private final int minItemsBeforeRefresh;
    private final Listing lister;
    private final HeldLocks heldLocks;
    private final ItemClaims claimer;
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

    Delivery(BatonClient client, String queuePath, @Nullable String lockPath, Layout layout,
            QueueSerializer<T> serializer, QueueConsumer<T> consumer, Executor executor, int minItemsBeforeRefresh) {
        this.client = client;
        this.queuePath = queuePath;
        this.locking = lockPath != null;
        this.layout = layout;
        this.serializer = serializer;
        this.consumer = consumer;
        this.executor = executor;
        this.minItemsBeforeRefresh = minItemsBeforeRefresh;
        this.lister = new Listing(client, queuePath, layout);
        this.heldLocks = new HeldLocks(lock, client, this::lockGone);
        this.claimer = new ItemClaims(client, queuePath, lockPath, layout, heldLocks, this);
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
            if (locking) {
                release.addAll(ready); // claimed but not begun: give their lock nodes back
                ready.clear();
                release.forEach(c -> inFlight.remove(c.name()));
            } // without a lock path, claimed items are out of the queue already: they are still consumed
        }
        release.forEach(claimer::release); // each claimed with a lock path
        client.getConnectionStateListenable().removeListener(this);
        removeWatch();
        heldLocks.removeAll();
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
                heldLocks.forgetWatched();
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
                    heldLocks.forgetHeld();
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
            if (!consuming && !ready.isEmpty() && (running || !locking)) {
                Claimed next = ready.poll();
                consuming = true;
                consume = () -> consume(next);
            } else if (running && !listing && idle()) {
                heldLocks.watchHeld();
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
            claimer.claim(name);
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

    @Override
    public void claimed(Claimed item) {
        boolean giveBack = false; // claimed with a lock after close: give its lock node back
        synchronized (lock) {
            claims--;
            if (!running && item.lockNode() != null) {
                giveBack = true;
                inFlight.remove(item.name());
                lock.signalAll();
            } else {
                ready.add(item);
            }
        }
        if (giveBack) {
            claimer.release(item);
        }
        pump();
    }

    @Override
    public void lostRace(String name, boolean toAnotherConsumer) {
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

    /**
     * Consumes a claimed item on the executor. With a lock path, only while the session that made its lock node
     * lives and is connected: after a {@code LOST} the item may be another consumer's now, and while suspended it
     * waits (the item stays ready) until the connection is back or the session is known lost.
     */
    private void consume(Claimed item) {
        if (item.lockNode() != null) {
            if (claimer.session() != item.session()) {
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
            claimer.release(item);
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
        claimer.settle(item, requeue);
        pump();
    }

    @Override
    public void markDirty() {
        synchronized (lock) {
            dirty = true;
        }
    }

    /** A lock node another consumer held is gone (or could not be watched): look at the queue again. */
    private void lockGone() {
        markDirty();
        pump();
    }

    @Override
    public void settled(String name) {
        synchronized (lock) {
            inFlight.remove(name);
            lock.signalAll();
        }
    }
}
