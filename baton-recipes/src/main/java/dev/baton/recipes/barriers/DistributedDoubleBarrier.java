package dev.baton.recipes.barriers;

import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.Pathable;
import dev.baton.internal.Requests;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A double barrier: {@code memberQty} processes {@link #enter()} together (nobody gets through until all of them
 * have arrived) and {@link #leave()} together (nobody gets out until all of them have left). Wire-compatible with
 * Apache Curator's {@code DistributedDoubleBarrier}: Baton and Curator members can share one barrier.
 *
 * <pre>{@code
 * DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, "/race/round-" + n, 5);
 * barrier.enter();          // returns once all 5 have entered
 * runTheRound();
 * barrier.leave();          // returns once all 5 have left
 *
 * barrier.enterAsync()      // the same without a thread: watches complete the futures
 *         .thenCompose(in -> runTheRoundAsync())
 *         .thenCompose(done -> barrier.leaveAsync());
 * }</pre>
 *
 * <h2>Layout</h2>
 * Each member is an ephemeral child of the barrier path named by a random UUID, with empty data; the barrier path
 * itself is a container node (removed by the server once empty). A persistent child {@code ready} says the
 * barrier is open. {@code ready} exists from the moment {@code memberQty} members have entered until the last
 * member has left.
 *
 * <h2>Protocol</h2>
 * Writes are: each member creates its node and deletes it; {@code ready} is created once and deleted once. No
 * write is issued that is expected to fail (Curator lets every member try to create and delete {@code ready}, and
 * every member race to create a new barrier path).
 * <ul>
 *   <li>A new barrier path: members that find it missing agree on who creates it. Each adds a protected
 *       ephemeral sequential marker {@code _c_<uuid>-<name>.creating-<seq>} beside it (in the parent); the member
 *       whose marker sorts first creates the path and deletes its marker in one transaction, the others wait for
 *       that marker to go and then delete their own. Markers live for a few round trips, only while a new path is
 *       being made.</li>
 *   <li>{@code enter}: create our node, then list the members together with the barrier node's stat. If
 *       {@code ready} is there, we are through. If there are at least {@code memberQty} members and the last
 *       change to the member list was our own create (the parent's {@code pzxid} equals our node's {@code czxid}),
 *       we completed the barrier: we create {@code ready} and are through. Otherwise we wait for {@code ready}
 *       with a watch on it. Only a member that saw {@code ready}, created it, or was told of its creation gets
 *       through, so nobody leaves before the barrier is open (which could strand a member that entered last).</li>
 *   <li>{@code leave}: the member whose node sorts first ("lowest") leaves last: it watches the member list and,
 *       once it is alone, deletes its node and {@code ready} in one transaction. Every other member deletes its
 *       node at once and watches the lowest node; when that is gone it checks that no member is left. This is
 *       also the order Curator's members follow, so mixed barriers leave in agreement.</li>
 * </ul>
 * A waiting call re-reads the server's state after every wake-up, connection events included; a wake-up alone is
 * never taken as progress. Requests per member and round (measured, no faults): 4 for {@code enter} on an
 * existing path (existence check of the barrier path, create, list, watch on {@code ready}; the completing member
 * creates {@code ready} instead of watching), 2 or 3 more on a new path (marker, list, and a watch on the first
 * marker for all but its owner), 4 for {@code leave} (2 to 4 for the lowest member, plus one list per wake-up).
 *
 * <h2>Failed writes</h2>
 * None in a round of {@code memberQty} members. Left: with more than {@code memberQty} members entering at once,
 * two of them may both complete the barrier and both create {@code ready} (one gets {@code NodeExists}, ignored);
 * a missing parent of a new barrier path costs each member one marker create that finds no parent (once per
 * missing level); and a Curator member may create a new path under a Baton member's marker.
 *
 * <h2>Failures</h2>
 * <ul>
 *   <li>Connection loss: an operation that runs out of retries throws
 *       {@link KeeperException.ConnectionLossException}. A member that fails this way during {@code enter}
 *       removes its node (retrying in the background until it is gone or the session ends).</li>
 *   <li>Session expiry during {@code enter}: the member's node vanishes with its session, so it no longer counts.
 *       Its {@code enter} throws {@link KeeperException.SessionExpiredException} naming the member node, as soon
 *       as the client has a new session (or {@code ConnectionLossException} if it cannot reconnect in time). The
 *       other members keep waiting: they get through if enough members (counted anew) arrive, or their timed
 *       {@code enter} returns false and removes their own node. A member whose node was deleted by someone
 *       else while its session lives gets {@link KeeperException.NoNodeException}.</li>
 *   <li>Session expiry during or before {@code leave}: the member has left involuntarily; {@code leave} carries on
 *       waiting for the others and does not throw. If it finds itself the last one and {@code ready} is still
 *       there, it removes {@code ready}.</li>
 *   <li>A member that crashes (and never calls {@code leave}) holds the others in {@code leave} until its session
 *       expires; the lowest remaining member then cleans up.</li>
 * </ul>
 *
 * <p>One instance is one member. {@code enter} and {@code leave} alternate ({@code enter} again after a
 * completed {@code leave} joins as a new member); calling them out of turn or concurrently throws
 * {@link IllegalStateException}. A barrier path is meant for one round: use a fresh path per round, as Curator
 * also requires.
 *
 * <h2>Blocking and asynchronous forms</h2>
 * {@code enter} and {@code leave} each have a {@link CompletableFuture} form ({@link #enterAsync()},
 * {@link #leaveAsync()}, and timed ones) that follows the same protocol, with the same requests, failures and
 * phase checks: the protocol is written once, and the blocking forms run it on the caller's thread. The barrier
 * has no thread of its own: a blocked caller sleeps on a monitor woken by watches, and an asynchronous call holds
 * no thread while it waits; the watches drive it, and a time limit runs on the client's scheduler thread. Giving
 * up an asynchronous call (cancelling its future, or completing it by other means) ends it as a timeout would,
 * and the instance is free for its next call at once. The futures complete on ZooKeeper's event thread, as a rule
 * (or the client's scheduler thread, or the thread that gave a call up): dependent stages that block should use
 * an {@code ...Async} stage with an executor. Thread-safe.
 */
public final class DistributedDoubleBarrier {
    private static final Logger LOG = LoggerFactory.getLogger(DistributedDoubleBarrier.class);
    static final String READY_NODE = "ready";
    /** Names the markers of members agreeing on who creates a new path: {@code _c_<uuid>-<name>.creating-<seq>}. */
    static final String CREATING_MARKER = ".creating-";
    /** How long a leave waits before it asks again when its session has just expired. */
    private static final Duration SESSION_SWITCH_PAUSE = Duration.ofMillis(20);

    private enum Phase { IDLE, ENTERING, ENTERED, LEAVING }

    private final BatonClient client;
    private final String barrierPath;
    private final String readyPath;
    private final int memberQty;
    /** Path writes that failed (a parent missing, a path swept or made by a foreign client); for tests. */
    final AtomicInteger failedPathCreates = new AtomicInteger();
    /** Protocol writes (ready, member nodes) that failed; for tests and benchmarks. */
    final AtomicInteger failedWrites = new AtomicInteger();

    // Guarded by this.
    private Phase phase = Phase.IDLE;
    /** The call the phase belongs to: the one entering or leaving, or the enter that got through. */
    private Call owner;
    private String ourPath;
    private long ourSession;

    /**
     * @param client the client
     * @param barrierPath the barrier's path (a fresh one per round)
     * @param memberQty how many members must enter before any gets through, {@code > 0}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid or {@code memberQty <= 0}
     */
    public DistributedDoubleBarrier(BatonClient client, String barrierPath, int memberQty) {
        this.client = Objects.requireNonNull(client, "client");
        this.barrierPath = BatonPaths.validate(Objects.requireNonNull(barrierPath, "barrierPath"));
        if (memberQty <= 0) {
            throw new IllegalArgumentException("memberQty must be > 0, was " + memberQty);
        }
        this.memberQty = memberQty;
        this.readyPath = BatonPaths.makePath(barrierPath, READY_NODE);
    }

    /**
     * Enters the barrier and waits until {@code memberQty} members have entered.
     *
     * @throws KeeperException.ConnectionLossException if the connection was lost and retries ran out
     * @throws KeeperException.SessionExpiredException if this member's session expired while it waited
     * @throws KeeperException if ZooKeeper failed an operation otherwise
     * @throws InterruptedException if interrupted while waiting (this member's node is removed)
     * @throws IllegalStateException if this member has entered already or another thread is entering
     */
    public void enter() throws KeeperException, InterruptedException {
        Failures.await(beginEnter(true, Deadline.NONE).run());
    }

    /**
     * Enters the barrier and waits until {@code memberQty} members have entered, or the time runs out. A timed
     * out {@code enter} removes this member's node before it returns: it leaves nothing behind, and another
     * {@code enter} may follow.
     *
     * @param maxWait how long to wait, {@code >= 0}
     * @param unit the unit of {@code maxWait}
     * @return true if the barrier opened, false if the time ran out first
     * @throws KeeperException as for {@link #enter()}
     * @throws InterruptedException if interrupted while waiting (this member's node is removed)
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if this member has entered already or another thread is entering
     */
    public boolean enter(long maxWait, TimeUnit unit) throws KeeperException, InterruptedException {
        return Failures.await(beginEnter(true, Deadline.after(maxWait, unit, "maxWait")).run());
    }

    /**
     * Enters the barrier as {@link #enter()} does, without holding a thread while waiting: a watch on
     * {@code ready} drives the wait.
     *
     * <p>Cancelling the returned future (or completing it by any other means) gives the call up as a timeout
     * would: right after, in the background, this member's node and its watches are removed (from the server too,
     * unless another call of this process still waits on the same watch); this instance may {@code enter} again at
     * once. A call given up just as the barrier opened is taken back: its node is removed as if it had left.
     *
     * @return a future that completes (with null) once {@code memberQty} members have entered; or fails with
     *         {@link KeeperException.ConnectionLossException} if the connection was lost and retries ran out (this
     *         member's node is then removed in the background), {@link KeeperException.SessionExpiredException}
     *         naming the member node if this member's session expired while it waited,
     *         {@link KeeperException.NoNodeException} if its node was deleted by someone else, another
     *         {@link KeeperException} ZooKeeper answered, or {@link IllegalStateException} if the client is not
     *         started or is closed. It completes on ZooKeeper's event thread, as a rule (see the class comment).
     * @throws IllegalStateException if this member has entered already or another call is entering
     */
    public CompletableFuture<Void> enterAsync() {
        return startAsync(beginEnter(false, Deadline.NONE), null, passed -> null);
    }

    /**
     * Enters the barrier as {@link #enter(long, TimeUnit)} does, without holding a thread while waiting: a watch
     * on {@code ready} drives the wait, and the time limit runs on the client's scheduler thread. A call whose
     * time ran out removes this member's node before its future completes with false.
     *
     * <p>Cancelling the returned future (or completing it by any other means) gives the call up as the time
     * running out would (see {@link #enterAsync()}).
     *
     * @param maxWait how long to wait, {@code >= 0}
     * @param unit the unit of {@code maxWait}
     * @return a future that completes with true once the barrier opened, with false if the time ran out first
     *         (this member's node is gone by then); or fails as {@link #enterAsync()}'s does
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if this member has entered already or another call is entering
     */
    public CompletableFuture<Boolean> enterAsync(long maxWait, TimeUnit unit) {
        Deadline.after(maxWait, unit, "maxWait"); // checks the arguments
        return startAsync(beginEnter(false, Deadline.NONE), Duration.ofNanos(unit.toNanos(maxWait)), passed -> passed);
    }

    /**
     * Leaves the barrier and waits until every member has left.
     *
     * @throws KeeperException.ConnectionLossException if the connection was lost and retries ran out
     * @throws KeeperException if ZooKeeper failed an operation otherwise
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if this member has not entered, or another thread is leaving
     */
    public void leave() throws KeeperException, InterruptedException {
        Failures.await(beginLeave(true, Deadline.NONE).run());
    }

    /**
     * Leaves the barrier and waits until every member has left, or the time runs out. This member's node is gone
     * when the call returns either way.
     *
     * @param maxWait how long to wait, {@code >= 0}
     * @param unit the unit of {@code maxWait}
     * @return true if every member has left, false if the time ran out first
     * @throws KeeperException as for {@link #leave()}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if this member has not entered, or another thread is leaving
     */
    public boolean leave(long maxWait, TimeUnit unit) throws KeeperException, InterruptedException {
        return Failures.await(beginLeave(true, Deadline.after(maxWait, unit, "maxWait")).run());
    }

    /**
     * Leaves the barrier as {@link #leave()} does, without holding a thread while waiting: watches on the member
     * list or on the lowest member drive the wait.
     *
     * <p>Cancelling the returned future (or completing it by any other means) gives the call up as a timed
     * {@code leave} whose time ran out: its watches are removed, this member's node is deleted if it is still
     * there, and this instance is no longer entered (it may {@code enter} again at once, as a new member).
     *
     * @return a future that completes (with null) once every member has left; or fails with
     *         {@link KeeperException.ConnectionLossException} if the connection was lost and retries ran out,
     *         another {@link KeeperException} ZooKeeper answered, or {@link IllegalStateException} if the client
     *         is not started or is closed. It completes on ZooKeeper's event thread, as a rule (see the class
     *         comment).
     * @throws IllegalStateException if this member has not entered, or another call is leaving
     */
    public CompletableFuture<Void> leaveAsync() {
        return startAsync(beginLeave(false, Deadline.NONE), null, passed -> null);
    }

    /**
     * Leaves the barrier as {@link #leave(long, TimeUnit)} does, without holding a thread while waiting; the time
     * limit runs on the client's scheduler thread. This member's node is gone when the future completes either
     * way. Cancelling the returned future gives the call up as the time running out would (see
     * {@link #leaveAsync()}).
     *
     * @param maxWait how long to wait, {@code >= 0}
     * @param unit the unit of {@code maxWait}
     * @return a future that completes with true once every member has left, with false if the time ran out
     *         first; or fails as {@link #leaveAsync()}'s does
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if this member has not entered, or another call is leaving
     */
    public CompletableFuture<Boolean> leaveAsync(long maxWait, TimeUnit unit) {
        Deadline.after(maxWait, unit, "maxWait"); // checks the arguments
        return startAsync(beginLeave(false, Deadline.NONE), Duration.ofNanos(unit.toNanos(maxWait)), passed -> passed);
    }

    /** @return the barrier's path */
    public String getPath() {
        return barrierPath;
    }

    /** @return how many members the barrier waits for */
    public int getMemberQty() {
        return memberQty;
    }

    // ---------------------------------------------------------------- the two faces

    /**
     * Runs an asynchronous call: its outcome goes to a future of its own, handed to the caller. The caller's
     * completing that future first (cancel, complete, a timeout of theirs) gives the call up; so does the time
     * limit, if any, on the client's scheduler.
     *
     * @param maxWait the time limit, null for none
     * @param value the caller's value for the call's outcome (true: through; false: given up)
     */
    private <T> CompletableFuture<T> startAsync(Call call, Duration maxWait, Function<Boolean, T> value) {
        CompletableFuture<T> caller = new CompletableFuture<>();
        caller.whenComplete((v, e) -> call.callerDone(caller));
        if (maxWait != null) {
            try { // on the client's scheduler: the JDK's delay thread would be one more thread
                ScheduledFuture<?> timer = client.schedule(call::giveUp, maxWait);
                caller.whenComplete((v, e) -> timer.cancel(false));
            } catch (IllegalStateException e) {
                caller.completeExceptionally(e); // client not started, or closed: the call never starts
                return caller;
            }
        }
        call.run().whenComplete((passed, error) -> {
            if (error != null) {
                caller.completeExceptionally(Failures.unwrap(error));
            } else if (!caller.complete(value.apply(passed)) && passed) {
                call.takeBack(); // the caller gave up just as the call went through
            }
        });
        return caller;
    }

    /**
     * One {@code enter} or {@code leave}, blocking or not. In blocking mode every request runs on the caller's
     * thread and every wait sleeps on a {@link Signal} until an event or the deadline, so each step's future is
     * complete when it is returned and the composition runs inline, like straight-line code. Otherwise requests
     * are sent with {@code forPathAsync} and a wait is a future the next event (or giving up) completes; no
     * thread waits. An asynchronous call is given up by its time limit or its caller through {@link #giveUp()}:
     * as a blocking call's deadline, this takes effect at the call's next wait.
     */
    private abstract class Call {
        final boolean blocking;
        /** When a blocking call's waits give up; asynchronous calls are given up through {@link #giveUp()}. */
        final Deadline deadline;
        /** The signals of this call's waits, so that giving up wakes them. Guarded by itself. */
        private final List<Signal> signals = new ArrayList<>();
        private boolean givenUp;
        /** The outcome has set the phase. Guarded by the barrier. */
        boolean settled;

        Call(boolean blocking, Deadline deadline) {
            this.blocking = blocking;
            this.deadline = deadline;
        }

        /** Runs the call: its future gives true when it got through, false when it was given up. */
        abstract CompletableFuture<Boolean> run();

        /** Undoes a call that got through after its caller had given it up. */
        abstract void takeBack();

        Signal newSignal() {
            Signal signal = new Signal();
            boolean gone;
            synchronized (signals) {
                signals.add(signal);
                gone = givenUp;
            }
            if (gone) {
                signal.giveUp();
            }
            return signal;
        }

        /** Gives the call up: its current or next wait ends as if the time ran out. */
        void giveUp() {
            List<Signal> waking;
            synchronized (signals) {
                givenUp = true;
                waking = new ArrayList<>(signals);
            }
            waking.forEach(Signal::giveUp);
        }

        /**
         * The caller's future is complete. Unless this call completed it, the caller gave the call up: the
         * instance is free at once (the call's node goes in the background), and the call ends at its next wait.
         */
        void callerDone(CompletableFuture<?> caller) {
            synchronized (DistributedDoubleBarrier.this) {
                // Once settled, the call completes the future only normally: an exceptional completion of a
                // settled call that still owns the phase (one that got through) is the caller's.
                if (owner == this && (!settled || caller.isCompletedExceptionally())) {
                    release();
                }
            }
            giveUp();
        }

        /** Waits for an event on {@code signal} after {@code mark}: true if one came, false if given up. */
        CompletableFuture<Boolean> await(Signal signal, int mark) {
            if (!blocking) {
                return signal.next(mark);
            }
            try {
                return CompletableFuture.completedFuture(signal.await(mark, deadline));
            } catch (InterruptedException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        <T> CompletableFuture<T> send(Pathable<T> request, String path) {
            return Requests.send(blocking, request, path);
        }

        CompletableFuture<Void> send(List<BatonOp> operations) {
            return Requests.send(blocking, client.transaction(), operations).thenApply(results -> null);
        }

        /** A future sent ahead (pipelined): a blocking call waits for it here, so that it goes on inline. */
        <T> CompletableFuture<T> settle(CompletableFuture<T> sent) {
            if (!blocking || sent.isDone()) {
                return sent;
            }
            try {
                return CompletableFuture.completedFuture(Failures.await(sent));
            } catch (KeeperException | InterruptedException | RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
    }

    /** Frees the instance: idle, no member node. Called holding the lock. */
    private void release() {
        phase = Phase.IDLE;
        owner = null;
        ourPath = null;
    }

    // ---------------------------------------------------------------- enter

    private Entry beginEnter(boolean blocking, Deadline deadline) {
        Entry entry = new Entry(blocking, deadline);
        synchronized (this) {
            if (phase != Phase.IDLE) {
                throw new IllegalStateException("enter() on barrier " + barrierPath + " while " + phase);
            }
            phase = Phase.ENTERING;
            owner = entry;
        }
        return entry;
    }

    /** One {@code enter}: create our node (and the path, if new), then look and wait until {@code ready}. */
    private final class Entry extends Call {
        private final String name = UUID.randomUUID().toString();
        private final Stat created = new Stat();
        private final Signal signal = newSignal();
        private final WatchScope watches = new WatchScope(client, signal);
        private String path;
        private long session;
        /** Our node is gone already (removed by us, or with the session): nothing to clean up. */
        private boolean nodeGone;

        Entry(boolean blocking, Deadline deadline) {
            super(blocking, deadline);
        }

        @Override
        CompletableFuture<Boolean> run() {
            return then(Requests.repeat(this::create, null).thenCompose(made -> made ? Requests.repeat(this::look, null) : outcome(false)),
                    this::finish);
        }

        /** Makes sure the path exists and creates our node in it: true once created, null to try again. */
        private CompletableFuture<Boolean> create() {
            return ensurePath(this, barrierPath).thenCompose(exists -> {
                if (!exists) {
                    return outcome(false);
                }
                String member = BatonPaths.makePath(barrierPath, name);
                return then(send(client.create().withMode(CreateMode.EPHEMERAL).storingStatIn(created), member),
                        (made, error) -> {
                            if (error == null) {
                                path = member;
                                session = created.getEphemeralOwner();
                                return outcome(true);
                            }
                            if (Failures.code(error) == KeeperException.Code.NONODE) {
                                // The (empty, container) barrier path was swept between the check and the create.
                                failedPathCreates.incrementAndGet();
                                return again();
                            }
                            return failed(error);
                        });
            });
        }

        /** Lists the members once and decides: through, wait for {@code ready}, or fail. Null: look again. */
        private CompletableFuture<Boolean> look() {
            int mark = signal.mark();
            Stat parent = new Stat();
            return then(send(client.getChildren().storingStatIn(parent), barrierPath), (children, error) -> {
                if (error != null) {
                    if (Failures.code(error) == KeeperException.Code.SESSIONEXPIRED) {
                        nodeGone = true; // and with it our node
                        return failed(KeeperException.create(KeeperException.Code.SESSIONEXPIRED, path));
                    }
                    return failed(error);
                }
                if (children.contains(READY_NODE)) {
                    return outcome(true);
                }
                if (!children.contains(name)) {
                    nodeGone = true;
                    return failed(memberNodeGone(path, session));
                }
                if (children.size() >= memberQty && parent.getPzxid() == created.getCzxid()) {
                    return createReady(this).thenApply(v -> true);
                }
                watches.watching(readyPath, Watcher.WatcherType.Data);
                return send(client.checkExists().usingWatcher(signal), readyPath).thenCompose(ready -> {
                    if (ready != null) {
                        return outcome(true); // created between our list and our check
                    }
                    return await(signal, mark).thenCompose(this::woken);
                });
            });
        }

        private CompletableFuture<Boolean> woken(boolean event) {
            if (!event) {
                watches.close(true);
                return giveUpNode(this, path).thenApply(v -> {
                    nodeGone = true;
                    return false;
                });
            }
            if (signal.sawCreated()) {
                return outcome(true); // ready was created: conclusive, no need to list again
            }
            if (sessionChanged(session)) {
                nodeGone = true;
                return failed(memberNodeGone(path, session));
            }
            return again(); // a connection event: look again
        }

        /** Sets the phase from the outcome, and does not stay counted as a member unless through. */
        private CompletableFuture<Boolean> finish(Boolean passed, Throwable error) {
            boolean entered = error == null && passed;
            synchronized (DistributedDoubleBarrier.this) {
                settled = true;
                if (owner == this) { // otherwise the caller gave up and the instance has moved on
                    if (entered) {
                        phase = Phase.ENTERED;
                        ourPath = path;
                        ourSession = session;
                    } else {
                        release();
                    }
                }
            }
            watches.close(!entered && !nodeGone);
            if (!entered && path != null && !nodeGone) {
                // Failed or interrupted: do not stay counted as a member.
                deleteInBackground(path, session);
            }
            return error != null ? failed(error) : outcome(passed);
        }

        @Override
        void takeBack() {
            synchronized (DistributedDoubleBarrier.this) {
                if (owner == this) {
                    release();
                }
            }
            // Leave as a leave given up at once would: our node goes (with ready, if we are the last one).
            Exit exit = new Exit(false, Deadline.NONE, path, session);
            exit.giveUp();
            exit.run();
        }
    }

    /**
     * Makes sure {@code path} exists, without a create that is expected to fail. Members arriving at an existing
     * path (the usual case) only check it. Members that find a new path missing agree on one of them to create
     * it: each adds a marker beside the path (see the class comment); the member whose marker sorts first
     * creates the path and deletes its marker in one transaction, while the others watch that marker and go on
     * once it is gone. Should that member die first, its marker vanishes all the same: the
     * caller's create under the path then finds it missing and asks again. Every member deletes its own marker.
     * A missing parent is made the same way one level up (the marker create that finds it missing is the one
     * failed write left, once per member and missing level).
     *
     * @return a future of false if the call was given up first (the marker is removed)
     */
    private CompletableFuture<Boolean> ensurePath(Call call, String path) {
        return call.send(client.checkExists(), path)
                .thenCompose(stat -> stat != null ? outcome(true) : makePath(call, path));
    }

    private CompletableFuture<Boolean> makePath(Call call, String path) {
        String parent = BatonPaths.parent(path);
        String markerPrefix = BatonPaths.nodeName(path) + CREATING_MARKER;
        // Protected: a marker whose create met connection loss must not be left (first in line) behind.
        CompletableFuture<String> created = Requests.send(false, client.create().withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL), BatonPaths.makePath(parent, markerPrefix));
        CompletableFuture<List<String>> listed = Requests.send(false, client.getChildren(), parent); // pipelined
        return then(call.settle(created), (marker, error) -> {
            if (error == null) {
                return new PathMaker(call, path, marker).run(listed);
            }
            listed.exceptionally(e -> null);
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                failedPathCreates.incrementAndGet();
                return ensurePath(call, parent).thenCompose(made -> made ? ensurePath(call, path) : outcome(false));
            }
            created.thenAccept(this::deleteMarker); // interrupted while it was in flight: it must not stay
            return failed(error);
        });
    }

    /** One member's part in making a new path, once its marker is there (see {@link #ensurePath}). */
    private final class PathMaker {
        private final Call call;
        private final String path;
        private final String parent;
        private final String name;
        private final String marker;
        private final Signal signal;
        private final WatchScope watch;
        private List<String> children;
        private boolean ours = true; // our marker is ours to delete
        private boolean fired = true;

        PathMaker(Call call, String path, String marker) {
            this.call = call;
            this.path = path;
            this.parent = BatonPaths.parent(path);
            this.name = BatonPaths.nodeName(path);
            this.marker = marker;
            this.signal = call.newSignal();
            this.watch = new WatchScope(client, signal);
        }

        CompletableFuture<Boolean> run(CompletableFuture<List<String>> listed) {
            return then(call.settle(listed).thenCompose(found -> {
                children = found;
                return Requests.repeat(this::round, null);
            }), (made, error) -> {
                watch.close(!fired);
                if (ours) {
                    deleteMarker(marker);
                }
                return error != null ? failed(error) : outcome(made);
            });
        }

        /** Null: the member list changed (a connection event); decide again. */
        private CompletableFuture<Boolean> round() {
            if (children.contains(name)) {
                return outcome(true);
            }
            String first = BatonPaths.makePath(parent, markers(children, name + CREATING_MARKER).get(0));
            if (first.equals(marker)) {
                return createPath(call, path, marker).thenApply(v -> {
                    ours = false;
                    return true;
                });
            }
            int mark = signal.mark();
            watch.watching(first, Watcher.WatcherType.Data);
            return watchIfPresent(call, first, signal).thenCompose(present -> {
                if (!present) {
                    return outcome(true); // its member made the path (or died: the caller will find out)
                }
                return call.await(signal, mark).thenCompose(event -> {
                    if (!event) {
                        fired = false;
                        return outcome(false);
                    }
                    if (signal.sawDeleted()) {
                        return outcome(true);
                    }
                    return call.send(client.getChildren(), parent).thenApply(found -> { // look again
                        children = found;
                        return null;
                    });
                });
            });
        }
    }

    /** The path-creation markers among {@code children}, in creation order. */
    private static List<String> markers(List<String> children, String markerPrefix) {
        List<String> markers = new ArrayList<>();
        for (String child : children) {
            if (BatonPaths.stripProtection(child).startsWith(markerPrefix)) {
                markers.add(child);
            }
        }
        return BatonPaths.sortBySequence(markers, CREATING_MARKER);
    }

    /** Creates the path and deletes our marker in one transaction: the waiters wake when the path is there. */
    private CompletableFuture<Void> createPath(Call call, String path, String marker) {
        List<BatonOp> operations = List.of(
                client.transactionOp().create().withMode(CreateMode.CONTAINER).forPath(path),
                client.transactionOp().delete().forPath(marker));
        return then(call.send(operations), (v, error) -> {
            if (error == null) {
                return done();
            }
            if (Failures.code(error) == KeeperException.Code.NODEEXISTS) {
                // Created by a client that takes no part in the markers (a Curator member).
                failedPathCreates.incrementAndGet();
                return call.send(client.delete().guaranteed().quietly(), marker);
            }
            return failed(error);
        });
    }

    private void deleteMarker(String marker) {
        try {
            client.delete().guaranteed().quietly().forPathAsync(marker).exceptionally(error -> null);
        } catch (RuntimeException e) {
            LOG.debug("Path-creation marker {} not removed: client closed", marker, e);
        }
    }

    private CompletableFuture<Void> createReady(Call call) {
        return then(call.send(client.create(), readyPath), (created, error) -> {
            if (error != null && Failures.code(error) != KeeperException.Code.NODEEXISTS) {
                return failed(error);
            }
            if (error != null) {
                // Only with more than memberQty members entering at once (see the class comment).
                failedWrites.incrementAndGet();
            }
            return done();
        });
    }

    /** Removes the node of an {@code enter} that gave up; a failure to do so now is retried in the background. */
    private CompletableFuture<Void> giveUpNode(Call call, String path) {
        return call.send(client.delete().guaranteed().quietly(), path).handle((v, error) -> {
            if (error != null) {
                if (!(Failures.unwrap(error) instanceof KeeperException)) {
                    throw Failures.asCompletion(error);
                }
                LOG.debug("Barrier member {} could not be removed now; retrying in the background", path,
                        Failures.unwrap(error));
            }
            return null;
        });
    }

    private KeeperException memberNodeGone(String path, long session) {
        if (sessionChanged(session)) {
            return KeeperException.create(KeeperException.Code.SESSIONEXPIRED, path);
        }
        return KeeperException.create(KeeperException.Code.NONODE, path);
    }

    // ---------------------------------------------------------------- leave

    private Exit beginLeave(boolean blocking, Deadline deadline) {
        synchronized (this) {
            if (phase != Phase.ENTERED) {
                throw new IllegalStateException("leave() on barrier " + barrierPath + " while "
                        + (phase == Phase.IDLE ? "not entered" : phase));
            }
            Exit exit = new Exit(blocking, deadline, ourPath, ourSession);
            phase = Phase.LEAVING;
            owner = exit;
            return exit;
        }
    }

    /** One {@code leave}: the lowest member goes last, the others at once (see the class comment). */
    private final class Exit extends Call {
        private final String path;
        private final long session;
        private final String name;
        private final Signal signal = newSignal();
        private final WatchScope watches = new WatchScope(client, signal);
        private boolean deleted;    // our node is gone: we deleted it, or it vanished
        private boolean vanished;   // it went without us (session expired, or deleted by someone else)
        private boolean watchChildren;
        private boolean done;

        Exit(boolean blocking, Deadline deadline, String path, long session) {
            super(blocking, deadline);
            this.path = path;
            this.session = session;
            this.name = BatonPaths.nodeName(path);
        }

        @Override
        CompletableFuture<Boolean> run() {
            return then(Requests.repeat(this::look, null), this::finish);
        }

        /** Lists the members once and acts: leave, or wait. Null: look again. */
        private CompletableFuture<Boolean> look() {
            int mark = signal.mark();
            if (watchChildren) {
                watches.watching(barrierPath, Watcher.WatcherType.Children);
            }
            return members(watchChildren ? signal : null).thenCompose(members -> {
                boolean readyPresent = members.remove(READY_NODE);
                Collections.sort(members);
                if (!deleted && !members.contains(name)) {
                    deleted = true;
                    vanished = true;
                }
                if (members.isEmpty()) {
                    // If we were meant to leave last but our node went without us: clean up for everyone.
                    CompletableFuture<Void> cleanup = readyPresent && vanished
                            ? send(client.delete().quietly(), readyPath) : done();
                    return cleanup.thenApply(v -> {
                        done = true;
                        return true;
                    });
                }
                if (!deleted && members.size() == 1) {
                    return leaveLast(this, path, readyPresent).thenApply(v -> {
                        deleted = true;
                        done = true;
                        return true;
                    });
                }
                if (!deleted && members.get(0).equals(name)) {
                    // We are the lowest: we go last, watching the member list until we are alone.
                    if (!watchChildren) {
                        watchChildren = true;
                        return again(); // list again, this time leaving a watch
                    }
                    return waitAfter(mark);
                }
                CompletableFuture<Void> deleting = done();
                if (!deleted) {
                    deleting = send(client.delete().quietly(), path).thenRun(() -> { // quietly: a retry after loss
                        deleted = true;
                        members.remove(name);
                    });
                }
                return deleting.thenCompose(v -> {
                    if (members.isEmpty()) {
                        return again();
                    }
                    watchChildren = false;
                    String lowest = BatonPaths.makePath(barrierPath, members.get(0));
                    watches.watching(lowest, Watcher.WatcherType.Data);
                    return watchIfPresent(this, lowest, signal)
                            .thenCompose(present -> present ? waitAfter(mark) : again()); // gone: look again
                });
            });
        }

        /**
         * The member list. A session that expired meanwhile took our node with it (we have left, involuntarily);
         * the client may not have its next session yet when we hear of it, so the list is asked for again shortly,
         * until it comes from the next session.
         */
        private CompletableFuture<List<String>> members(Watcher watcher) {
            return then(listMembers(this, watcher), (members, error) -> {
                if (error == null) {
                    return CompletableFuture.completedFuture(members);
                }
                if (Failures.code(error) != KeeperException.Code.SESSIONEXPIRED) {
                    return failed(error);
                }
                if (!deleted) {
                    deleted = true;
                    vanished = true;
                }
                CompletableFuture<Void> pause = new CompletableFuture<>();
                try {
                    client.schedule(() -> pause.complete(null), SESSION_SWITCH_PAUSE);
                } catch (IllegalStateException closed) {
                    return failed(error);
                }
                return settle(pause).thenCompose(v -> members(watcher));
            });
        }

        private CompletableFuture<Boolean> waitAfter(int mark) {
            return await(signal, mark).thenCompose(event -> {
                if (event) {
                    return again();
                }
                watches.close(true);
                if (deleted) {
                    return outcome(false);
                }
                return send(client.delete().guaranteed().quietly(), path).thenApply(v -> {
                    deleted = true;
                    return false;
                });
            });
        }

        private CompletableFuture<Boolean> finish(Boolean passed, Throwable error) {
            synchronized (DistributedDoubleBarrier.this) {
                settled = true;
                if (owner == this) {
                    release();
                }
            }
            watches.close(!done);
            if (!done && !deleted) {
                deleteInBackground(path, session);
            }
            return error != null ? failed(error) : outcome(passed);
        }

        @Override
        void takeBack() {
            // Left all the same, after the caller gave up: nothing to undo.
        }
    }

    /**
     * Watches a node that is expected to go away (a marker, a member), if it is still there: with getData, not
     * exists, because exists on a node already gone leaves a watch for its creation, which never comes.
     *
     * @return whether the node was there (and is now watched)
     */
    private CompletableFuture<Boolean> watchIfPresent(Call call, String node, Watcher watcher) {
        return then(call.send(client.getData().usingWatcher(watcher), node), (data, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(true);
            }
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                return CompletableFuture.completedFuture(false);
            }
            return failed(error);
        });
    }

    private CompletableFuture<List<String>> listMembers(Call call, Watcher watcher) {
        return then(call.send(watcher == null ? client.getChildren() : client.getChildren().usingWatcher(watcher),
                barrierPath), (children, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(new ArrayList<>(children));
                    }
                    if (Failures.code(error) == KeeperException.Code.NONODE) {
                        return CompletableFuture.completedFuture(new ArrayList<>());
                    }
                    return failed(error);
                });
    }

    /** The last member out removes its node and {@code ready} in one transaction. */
    private CompletableFuture<Void> leaveLast(Call call, String path, boolean readyPresent) {
        if (!readyPresent) {
            return call.send(client.delete().quietly(), path);
        }
        List<BatonOp> operations = List.of(client.transactionOp().delete().forPath(path),
                client.transactionOp().delete().forPath(readyPath));
        return then(call.send(operations), (v, error) -> {
            if (error == null) {
                return done();
            }
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                // Someone else removed one of the two meanwhile (a Curator member removes ready after its node).
                failedWrites.incrementAndGet();
                return call.send(client.delete().quietly(), path);
            }
            return failed(error);
        });
    }

    // ---------------------------------------------------------------- helpers

    private boolean sessionChanged(long session) {
        return client.getZooKeeper().getSessionId() != session;
    }

    private void deleteInBackground(String path, long session) {
        try {
            if (sessionChanged(session)) {
                return; // the node went with its session
            }
            client.delete().guaranteed().quietly().forPathAsync(path).exceptionally(e -> null);
        } catch (RuntimeException e) {
            LOG.debug("Barrier member {} not removed: client closed", path, e);
        }
    }

    private static <T> CompletableFuture<T> outcome(T value) {
        return CompletableFuture.completedFuture(value);
    }

    /** Another round (see {@link #repeat}). */
    private static CompletableFuture<Boolean> again() {
        return CompletableFuture.completedFuture(null);
    }

    private static CompletableFuture<Void> done() {
        return CompletableFuture.completedFuture(null);
    }

    private static <T> CompletableFuture<T> failed(Throwable error) {
        return CompletableFuture.failedFuture(Failures.unwrap(error));
    }

    /** What comes after {@code step}, given its value or its failure. */
    private static <T, R> CompletableFuture<R> then(CompletableFuture<T> step,
            BiFunction<? super T, Throwable, CompletableFuture<R>> next) {
        return step.handle(next).thenCompose(Function.identity());
    }

    @Override
    public String toString() {
        return "DistributedDoubleBarrier[" + barrierPath + ", memberQty=" + memberQty + "]";
    }
}
