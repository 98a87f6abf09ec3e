package dev.baton.recipes.barriers;

import static dev.baton.recipes.barriers.BarrierCall.done;
import static dev.baton.recipes.barriers.BarrierCall.failed;
import static dev.baton.recipes.barriers.BarrierCall.then;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Requests;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;
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
 * <ul>
 *   <li>{@code enter}: create our node, straight in: the path usually exists. If it does not, create the path
 *       (a container, with any missing ancestors) and our node again, the two sent back to back; members arriving
 *       together at a new path all do so, and all but the first find the path made ({@code NodeExists}, ignored).
 *       Then list the members together with the barrier node's stat. If {@code ready} is there, we are through.
 *       If there are at least {@code memberQty} members and the last change to the member list was our own
 *       create (the parent's {@code pzxid} equals our node's {@code czxid}), we completed the barrier: we create
 *       {@code ready} and are through. Otherwise we wait for {@code ready} with a watch on it. Only a member that
 *       saw {@code ready}, created it, or was told of its creation gets through, so nobody leaves before the
 *       barrier is open (which could strand a member that entered last).</li>
 *   <li>{@code leave}: the member whose node sorts first ("lowest") leaves last: it watches the member list and,
 *       once it is alone, deletes its node and {@code ready} in one transaction. Every other member deletes its
 *       node at once and watches the lowest node; when that is gone it checks that no member is left. This is
 *       also the order Curator's members follow, so mixed barriers leave in agreement.</li>
 * </ul>
 * A waiting call re-reads the server's state after every wake-up, connection events included; a wake-up alone is
 * never taken as progress. Requests per member and round (measured, no faults): 3 for {@code enter} on an
 * existing path (create, list, watch on {@code ready}; the completing member creates {@code ready} instead of
 * watching), 2 more on a new path (the create that finds no path, the path's create), 4 for {@code leave} (2 to 4
 * for the lowest member, plus one list per wake-up). Each member is woken at most once per phase, except the
 * lowest in {@code leave}, woken by changes to the member list until it is alone.
 *
 * <h2>Failed writes</h2>
 * Writes that fail cost the ensemble a proposal like any other, so the protocol keeps them few. On an existing
 * path: none in a round of {@code memberQty} members (with more entering at once, two may both complete the
 * barrier and both create {@code ready}; one gets {@code NodeExists}, ignored). On a new path: at most two per
 * member, the create that finds no path and the path's create that finds it made; that is what an agreement on
 * who creates the path would cost in writes too (a marker created and deleted per member), without its reads
 * and round trips.
 *
 * <h2>Failures</h2>
 * <ul>
 *   <li>Connection loss: an operation that runs out of retries throws
 *       {@link KeeperException.ConnectionLossException}. A member that fails this way during {@code enter} or
 *       {@code leave} removes its node (retrying in the background until it is gone or the session ends).</li>
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
 *       expires. Whichever member then finds no member node left and {@code ready} still there removes
 *       {@code ready}, as it does after a member whose {@code leave} failed had its node removed in the
 *       background: the next round must not find the barrier open.</li>
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

    private enum Phase { IDLE, ENTERING, ENTERED, LEAVING }

    final BatonClient client;
    final String barrierPath;
    final String readyPath;
    final int memberQty;
    /** Creates that found the barrier path missing, or made by another member first; for tests and benchmarks. */
    final AtomicInteger failedPathCreates = new AtomicInteger();
    /** Protocol writes (ready, member nodes) that failed; for tests and benchmarks. */
    final AtomicInteger failedWrites = new AtomicInteger();

    private final Object lock = new Object();
    @GuardedBy("lock")
    private Phase phase = Phase.IDLE;
    /** The call the phase belongs to: the one entering or leaving, or the enter that got through; else null. */
    @GuardedBy("lock")
    private @Nullable BarrierCall owner;
    /** The outcome of {@code owner} has set the phase. */
    @GuardedBy("lock")
    private boolean ownerSettled;
    /** Our member node while entered; else null. */
    @GuardedBy("lock")
    private @Nullable String ourPath;
    @GuardedBy("lock")
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
        Requests.requireNotEventThread(client, "enter the double barrier " + barrierPath);
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
        Requests.requireNotEventThread(client, "enter the double barrier " + barrierPath);
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
        Requests.requireNotEventThread(client, "leave the double barrier " + barrierPath);
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
        Requests.requireNotEventThread(client, "leave the double barrier " + barrierPath);
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

    /** {@return the barrier's path} */
    public String getPath() {
        return barrierPath;
    }

    /** {@return how many members the barrier waits for} */
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
    private <T> CompletableFuture<T> startAsync(BarrierCall call, @Nullable Duration maxWait,
            Function<Boolean, T> value) {
        CompletableFuture<T> caller = new CompletableFuture<>();
        Futures.whenDone(caller, (v, e) -> callerDone(call, caller));
        if (maxWait != null) {
            try { // on the client's scheduler: the JDK's delay thread would be one more thread
                ScheduledFuture<?> timer = client.schedule(call::giveUp, maxWait);
                Futures.whenDone(caller, (v, e) -> timer.cancel(false));
            } catch (IllegalStateException e) {
                caller.completeExceptionally(e); // client not started, or closed: the call never starts
                return caller;
            }
        }
        Futures.whenDone(call.run(), (passed, error) -> {
            if (error != null) {
                caller.completeExceptionally(Failures.unwrap(error));
            } else if (!caller.complete(value.apply(passed)) && passed) {
                call.takeBack(); // the caller gave up just as the call went through
            }
        });
        return caller;
    }

    /**
     * The caller's future is complete. Unless the call completed it, the caller gave the call up: the instance is
     * free at once (the call's node goes in the background), and the call ends at its next wait.
     */
    private void callerDone(BarrierCall call, CompletableFuture<?> caller) {
        synchronized (lock) {
            // Once settled, the call completes the future only normally: an exceptional completion of a settled
            // call that still owns the phase (one that got through) is the caller's.
            if (owner == call && (!ownerSettled || caller.isCompletedExceptionally())) {
                release();
            }
        }
        call.giveUp();
    }

    /**
     * A call's outcome sets the phase, unless its caller gave it up and the instance has moved on.
     *
     * @param enteredPath the member node of an {@code enter} that got through; null otherwise (the instance is
     *     then free)
     */
    void settle(BarrierCall call, @Nullable String enteredPath, long session) {
        synchronized (lock) {
            if (owner != call) {
                return;
            }
            ownerSettled = true;
            if (enteredPath != null) {
                phase = Phase.ENTERED;
                ourPath = enteredPath;
                ourSession = session;
            } else {
                release();
            }
        }
    }

    /** Frees the instance if {@code call} still owns its phase. */
    void releaseIfOwner(BarrierCall call) {
        synchronized (lock) {
            if (owner == call) {
                release();
            }
        }
    }

    /** Frees the instance: idle, no member node. */
    @GuardedBy("lock")
    private void release() {
        phase = Phase.IDLE;
        owner = null;
        ownerSettled = false;
        ourPath = null;
    }

    // ---------------------------------------------------------------- enter

    private BarrierEntry beginEnter(boolean blocking, Deadline deadline) {
        BarrierEntry entry = new BarrierEntry(this, blocking, deadline);
        synchronized (lock) {
            if (phase != Phase.IDLE) {
                throw new IllegalStateException("enter() on barrier " + barrierPath + " while " + phase);
            }
            phase = Phase.ENTERING;
            owner = entry;
            ownerSettled = false;
        }
        return entry;
    }

    CompletableFuture<Void> createReady(BarrierCall call) {
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
    CompletableFuture<Void> giveUpNode(BarrierCall call, String path) {
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

    KeeperException memberNodeGone(String path, long session) {
        if (sessionChanged(session)) {
            return KeeperException.create(KeeperException.Code.SESSIONEXPIRED, path);
        }
        return KeeperException.create(KeeperException.Code.NONODE, path);
    }

    // ---------------------------------------------------------------- leave

    private BarrierExit beginLeave(boolean blocking, Deadline deadline) {
        synchronized (lock) {
            if (phase != Phase.ENTERED) {
                throw new IllegalStateException("leave() on barrier " + barrierPath + " while "
                        + (phase == Phase.IDLE ? "not entered" : phase));
            }
            BarrierExit exit = new BarrierExit(this, blocking, deadline,
                    Objects.requireNonNull(ourPath, "an entered member has its node"), ourSession);
            phase = Phase.LEAVING;
            owner = exit;
            ownerSettled = false;
            return exit;
        }
    }

    CompletableFuture<List<String>> listMembers(BarrierCall call, @Nullable Watcher watcher) {
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
    CompletableFuture<Void> leaveLast(BarrierCall call, String path, boolean readyPresent) {
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

    boolean sessionChanged(long session) {
        return client.getZooKeeper().getSessionId() != session;
    }

    void deleteInBackground(String path, long session) {
        try {
            if (sessionChanged(session)) {
                return; // the node went with its session
            }
            client.delete().guaranteed().quietly().forPathAsync(path).exceptionally(e -> null);
        } catch (RuntimeException e) {
            LOG.debug("Barrier member {} not removed: client closed", path, e);
        }
    }

    @Override
    public String toString() {
        return "DistributedDoubleBarrier[" + barrierPath + ", memberQty=" + memberQty + "]";
    }
}
