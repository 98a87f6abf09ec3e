package dev.baton.recipes.leader;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.Requests;
import dev.baton.recipes.locks.Hold;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes turns leading: each instance waits in a queue, leads while its listener's
 * {@link LeaderSelectorListener#takeLeadership} runs, and gives up leadership when it returns. With
 * {@link #autoRequeue()} it queues again, behind everyone already waiting, so leadership rotates fairly.
 * Wire-compatible with Apache Curator's {@code LeaderSelector} on the same path (protected ephemeral-sequential
 * {@code lock-} nodes holding the id).
 *
 * <pre>{@code
 * LeaderSelector selector = new LeaderSelector(client, "/jobs/leader", new LeaderSelectorListenerAdapter() {
 *     public void takeLeadership(BatonClient client) throws Exception {
 *         runOneBatch();          // leadership lasts while this runs
 *     }
 * });
 * selector.autoRequeue();
 * selector.start();
 * }</pre>
 *
 * <p>A waiting selector whose session ends (connection state {@code LOST}) leaves the queue, as Curator's does:
 * it is queued again only by {@link #requeue()}, or at once with {@link #autoRequeue()}.
 *
 * <p>No thread waits for leadership: the queue is driven by ZooKeeper callbacks. {@code takeLeadership} runs on
 * the executor given to the constructor, or else on a pool shared by all selectors whose threads exist only
 * while some selector leads.
 *
 * <p>Thread-safe.
 */
public final class LeaderSelector implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderSelector.class);

    /** Runs takeLeadership for selectors given no executor; a thread lives only while a selector leads. */
    private static final ExecutorService SHARED_EXECUTOR = sharedExecutor();

    private final Object lock = new Object();
    private final BatonClient client;
    private final Lifecycle lifecycle;
    private final String leaderPath;
    private final Executor executor;
    private final LeaderSelectorListener listener;
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;

    @GuardedBy("lock")
    private String id = "";
    @GuardedBy("lock")
    private boolean autoRequeue;
    @GuardedBy("lock")
    private boolean queued;
    /** The acquisition of the turn queued; null when not waiting for the lock. */
    @GuardedBy("lock")
    private @Nullable CompletableFuture<Hold> attempt;
    /** The mutex {@code attempt} came from (one per turn), to give the attempt up; null before the first turn. */
    @GuardedBy("lock")
    private @Nullable InterProcessMutex attemptMutex;
    /** The hold of the lock while leading; else null. */
    @GuardedBy("lock")
    private @Nullable Hold hold;
    /** The thread running {@code takeLeadership}; else null. */
    @GuardedBy("lock")
    private @Nullable Thread leaderThread;
    @GuardedBy("lock")
    private boolean interruptRequested;
    /** The future of the turn queued or under way (see {@link #requeueAsync()}); null when not queued. */
    @GuardedBy("lock")
    private @Nullable CompletableFuture<Void> turn;

    /**
     * A selector whose {@code takeLeadership} runs on the shared pool.
     *
     * @param client the client
     * @param leaderPath the election's path
     * @param listener the work to do while leading
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public LeaderSelector(BatonClient client, String leaderPath, LeaderSelectorListener listener) {
        this(client, leaderPath, SHARED_EXECUTOR, listener);
    }

    /**
     * @param client the client
     * @param leaderPath the election's path
     * @param executor runs {@code takeLeadership}; not shut down by {@link #close()}
     * @param listener the work to do while leading
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public LeaderSelector(BatonClient client, String leaderPath, ExecutorService executor,
            LeaderSelectorListener listener) {
        this.client = Objects.requireNonNull(client, "client");
        this.leaderPath = BatonPaths.validate(Objects.requireNonNull(leaderPath, "leaderPath"));
        this.lifecycle = new Lifecycle("LeaderSelector " + leaderPath);
        this.executor = Objects.requireNonNull(executor, "executor");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    private static ExecutorService sharedExecutor() {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS,
                new SynchronousQueue<>(), runnable -> {
                    Thread t = new Thread(runnable, "baton-leader-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        return pool;
    }

    /**
     * Sets the id shown to other participants; used for the next time this selector queues.
     *
     * @param id the id
     * @throws NullPointerException if {@code id} is null
     */
    public void setId(String id) {
        synchronized (lock) {
            this.id = Objects.requireNonNull(id, "id");
        }
    }

    /** {@return this participant's id ({@code ""} unless set)} */
    public String getId() {
        synchronized (lock) {
            return id;
        }
    }

    /** Makes the selector queue again each time its leadership ends, until closed. */
    public void autoRequeue() {
        synchronized (lock) {
            autoRequeue = true;
        }
    }

    /**
     * Joins the queue and returns at once.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        join(); // the turn's outcome is logged where it arises; start() has no one to hand it to
    }

    /**
     * Joins the queue as {@link #start()} does, and returns the future of this first turn, as
     * {@link #requeueAsync()} describes it.
     *
     * @return a future that completes when the first turn of leadership is over
     * @throws IllegalStateException if already started or closed
     */
    public CompletableFuture<Void> startAsync() {
        return join().turn();
    }

    private Queued join() {
        lifecycle.start();
        client.getConnectionStateListenable().addListener(connectionListener);
        return enqueue();
    }

    /**
     * Queues for leadership unless already queued or leading.
     *
     * @return true if this call queued the selector, false if it was already queued or leading
     * @throws IllegalStateException if the selector is not started, or closed
     */
    public boolean requeue() {
        return enqueue().now();
    }

    /**
     * Queues for leadership unless already queued or leading, as {@link #requeue()} does, and returns the future
     * of the turn: it completes when that turn of leadership is over and the lock is released, holding no thread
     * meanwhile. If this selector is already queued or leading, the future is that of the turn under way.
     *
     * <p>The future completes normally when {@code takeLeadership} returns; it fails with what
     * {@code takeLeadership} threw (an {@link InterruptedException} after {@link #interruptLeadership()}, for
     * instance), with the {@link KeeperException} that kept the selector from queueing, or with
     * {@link IllegalStateException} if the selector left the queue before leading (closed, or its session ended).
     * Cancelling the future gives up the turn: a waiting selector leaves the queue (it removes its node); a leading
     * one has its leadership interrupted, as {@link #interruptLeadership()} does (and, with {@link #autoRequeue()},
     * queues again, for a new turn). A turn's future completes on the thread that ends the turn (ZooKeeper's event
     * thread, or the one that ran {@code takeLeadership}).
     *
     * @return a future that completes when the turn is over
     * @throws IllegalStateException if the selector is not started, or closed
     */
    public CompletableFuture<Void> requeueAsync() {
        return enqueue().turn();
    }

    /** The outcome of {@link #enqueue()}: whether it queued the selector, and the turn's future. */
    private record Queued(boolean now, CompletableFuture<Void> turn) {
    }

    private Queued enqueue() {
        CompletableFuture<Hold> started;
        CompletableFuture<Void> newTurn = new CompletableFuture<>();
        synchronized (lock) {
            lifecycle.requireStarted();
            if (queued) {
                return new Queued(false, Objects.requireNonNull(turn, "a queued selector has a turn"));
            }
            queued = true;
            InterProcessMutex mutex = new InterProcessMutex(client, leaderPath, id.getBytes(StandardCharsets.UTF_8));
            attempt = mutex.acquireAsync();
            attemptMutex = mutex;
            started = attempt;
            turn = newTurn;
        }
        Futures.whenDone(newTurn, (v, e) -> {
            if (newTurn.isCancelled()) {
                turnCancelled(newTurn);
            }
        });
        Futures.whenDone(started, this::acquired);
        return new Queued(true, newTurn);
    }

    /** A cancelled turn: give the attempt up, or end the leadership. */
    private void turnCancelled(CompletableFuture<Void> cancelled) {
        CompletableFuture<Hold> pending = null;
        synchronized (lock) {
            if (turn != cancelled) {
                return; // over already
            }
            if (attempt != null) {
                pending = attempt;
                attempt = null;
            } else if (leaderThread != null) {
                leaderThread.interrupt();
            } else if (hold != null) {
                interruptRequested = true;
            }
        }
        if (pending != null) {
            pending.complete(null); // acquired() marks the selector as no longer queued
        }
    }

    private void acquired(@Nullable Hold acquired, @Nullable Throwable error) {
        CompletableFuture<Void> over;
        synchronized (lock) {
            attempt = null;
            if (error != null || acquired == null || !lifecycle.isStarted()) {
                queued = false;
                over = turn;
                turn = null;
                if (error != null && lifecycle.isStarted()) {
                    LOG.error("LeaderSelector {} could not queue for leadership", leaderPath, Failures.unwrap(error));
                }
            } else {
                over = null;
                hold = acquired;
                interruptRequested = false;
            }
        }
        if (over != null) {
            if (error == null && acquired != null) {
                acquired.release(); // closed meanwhile
            }
            over.completeExceptionally(error != null ? Failures.unwrap(error) : new IllegalStateException(
                    "LeaderSelector " + leaderPath + " left the queue before leading"));
            return;
        }
        try {
            executor.execute(this::lead);
        } catch (RejectedExecutionException e) {
            LOG.error("LeaderSelector {}: the executor refused takeLeadership", leaderPath, e);
            endLeadership(e);
        }
    }

    private void lead() {
        synchronized (lock) {
            leaderThread = Thread.currentThread();
            if (interruptRequested || !lifecycle.isStarted()) {
                leaderThread.interrupt();
            }
        }
        Throwable failure = null;
        try {
            listener.takeLeadership(client);
        } catch (InterruptedException e) {
            failure = e;
            LOG.debug("LeaderSelector {} leadership interrupted", leaderPath);
        } catch (Throwable t) {
            failure = t;
            if (!(t instanceof CancelLeadershipException)) {
                LOG.error("LeaderSelector {}: takeLeadership threw", leaderPath, t);
            }
        } finally {
            synchronized (lock) {
                leaderThread = null;
            }
            Thread.interrupted(); // leave the pool's thread as we found it
            endLeadership(failure);
        }
    }

    /**
     * Releases the lock, completes the turn's future and, with auto-requeue, queues again behind everyone already
     * waiting.
     */
    private void endLeadership(@Nullable Throwable failure) {
        Hold ended;
        boolean again;
        CompletableFuture<Void> over;
        synchronized (lock) {
            ended = hold;
            hold = null;
            queued = false;
            over = turn;
            turn = null;
            again = autoRequeue && lifecycle.isStarted();
        }
        if (ended != null) {
            ended.release();
        }
        if (over != null) {
            if (failure == null) {
                over.complete(null);
            } else {
                over.completeExceptionally(failure);
            }
        }
        if (again) {
            try {
                requeue();
            } catch (IllegalStateException e) {
                // closed meanwhile
            }
        }
    }

    private void connectionStateChanged(BatonClient c, ConnectionState newState) {
        if (newState == ConnectionState.LOST) {
            leaveQueueOfLostSession();
        }
        try {
            listener.stateChanged(c, newState);
        } catch (CancelLeadershipException e) {
            interruptLeadership();
        }
    }

    /**
     * A session that ended took this selector's node with it. As with Curator, a waiting selector is then out of
     * the queue: it leads again only after {@link #requeue()} (which auto-requeue does at once), never silently
     * on its own.
     */
    private void leaveQueueOfLostSession() {
        CompletableFuture<Hold> waiting;
        boolean again;
        synchronized (lock) {
            if (!lifecycle.isStarted() || attempt == null) {
                return;
            }
            waiting = attempt;
            again = autoRequeue;
        }
        waiting.complete(null); // acquired() marks the selector as no longer queued
        if (again) {
            try {
                requeue();
            } catch (IllegalStateException e) {
                // closed meanwhile
            }
        }
    }

    /**
     * Interrupts the thread running {@code takeLeadership}, ending the current leadership (and, with
     * auto-requeue, queueing again). Does nothing when not leading.
     */
    public void interruptLeadership() {
        synchronized (lock) {
            if (leaderThread != null) {
                leaderThread.interrupt();
            } else if (hold != null) {
                interruptRequested = true; // takeLeadership has not started yet
            }
        }
    }

    /** {@return true while this selector's {@code takeLeadership} runs} */
    public boolean hasLeadership() {
        synchronized (lock) {
            return hold != null && lifecycle.isStarted();
        }
    }

    /** {@return the election's path} */
    public String getPath() {
        return leaderPath;
    }

    /**
     * {@return the fencing token of the current leadership (the czxid of this selector's node, strictly
     *         increasing across successive leaders), empty when not leading}
     */
    public OptionalLong fencingToken() {
        synchronized (lock) {
            return hold != null && hold.isHeld() ? OptionalLong.of(hold.fencingToken()) : OptionalLong.empty();
        }
    }

    /**
     * {@return how long this process may still act as leader without hearing from the server;
     *         {@link Duration#ZERO} when not leading}
     */
    public Duration safeFor() {
        Hold current;
        synchronized (lock) {
            current = hold;
        }
        return current == null ? Duration.ZERO : current.safeFor();
    }

    /**
     * {@return the current leader; {@code Participant("", false)} when nobody takes part}
     *
     * @throws KeeperException if the queue cannot be read
     * @throws InterruptedException if interrupted while waiting
     */
    public Participant getLeader() throws KeeperException, InterruptedException {
        return Participants.leader(client, leaderPath, "lock-");
    }

    /**
     * {@return everyone taking part, in queue order; the first is the leader}
     *
     * @throws KeeperException if the queue cannot be read
     * @throws InterruptedException if interrupted while waiting
     */
    public Collection<Participant> getParticipants() throws KeeperException, InterruptedException {
        return Participants.all(client, leaderPath, "lock-");
    }

    /**
     * Leaves the election: stops queueing, interrupts {@code takeLeadership} if it runs (the lock is released
     * when it returns), and removes the connection listener. Returns once this selector's node is gone from the
     * server: it waits for a turn it gives up to leave the queue, and for an interrupted {@code takeLeadership}
     * to return, for at most one session timeout. It does not wait where the wait could not end: inside
     * {@code takeLeadership}, on ZooKeeper's event thread, or while disconnected (the node then goes in the
     * background, or with the session). Closing twice does nothing.
     */
    @Override
    public void close() {
        CompletableFuture<Hold> pending;
        InterProcessMutex pendingMutex;
        CompletableFuture<Void> leading = null;
        synchronized (lock) {
            boolean started = lifecycle.close() == Lifecycle.State.STARTED;
            if (!started) {
                return;
            }
            pending = attempt;
            pendingMutex = attemptMutex;
            attempt = null;
            if (leaderThread != null) {
                leaderThread.interrupt();
                if (leaderThread != Thread.currentThread()) {
                    leading = turn; // completed once the lock is released
                }
            } else if (hold != null) {
                interruptRequested = true;
                leading = turn;
            }
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        if (pending != null) {
            // Gives the attempt up; if it won meanwhile, it is released here (and acquired() finds it released).
            Requests.awaitAtClose(client, Objects.requireNonNull(pendingMutex, "an attempt has its mutex")
                    .giveUpAsync(pending));
        } else if (leading != null) {
            Requests.awaitAtClose(client, leading);
        }
    }
}
