package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.Pathable;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.CallerExecutor;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Requests;
import dev.baton.internal.SerialExecutor;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.function.BiConsumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of a {@link LockQueue} in progress: the state machine its class comment describes. Its fields
 * are touched only by tasks of {@link #serial}, one at a time; the futures are the only things other threads
 * complete. Its one decision (hold, withdraw, or watch) is made in {@code decide}.
 */
final class LockAttempt implements ConnectionStateListener {
    private static final Logger LOG = LoggerFactory.getLogger(LockAttempt.class);

    private final LockQueue queue;
    private final BatonClient client;
    private final byte[] data;
    private final LockQueue.Driver driver;
    private final SerialExecutor serial;
    /**
     * A blocking acquire: reads are blocking requests on the caller's thread, whose replies wake it directly
     * (see {@link LockQueue#acquireBlocking}); otherwise they are asynchronous.
     */
    private final boolean inline;
    private final CompletableFuture<Hold> result = new CompletableFuture<>();
    /** Completed once a failed or timed-out attempt has removed its node. */
    private final CompletableFuture<Void> cleaned = new CompletableFuture<>();

    /** Bumped each time the attempt enqueues a node, and when it ends: replies of older rounds are stale. */
    private long round;
    /** Creates and deletes of our nodes in flight: a failed or timed-out attempt is clean when none is left. */
    private int inFlight;
    /** Our node in the queue; null until the create's reply, and once the node is deleted or lost. */
    private @Nullable String ourPath;
    private long session;
    private long czxid;
    /** A listing that came before the create's reply (the inline one can): decided on once the node is known. */
    private @Nullable List<String> earlyListing;
    /** The nodes waited for now, and whether the first of them to go makes us a holder. */
    private final Set<String> watched = new HashSet<>();
    private boolean firstDeletionHolds;
    /** The node to watch next when one of {@code watched} goes, or null. */
    private @Nullable String thenWatch;
    /** Whether {@code thenWatch} is the only other node ahead: once it is gone too, we hold (no listing). */
    private boolean thenHolds;
    /**
     * Every node with a watch of this attempt set (or being set) that has not fired: not set again on a
     * wake-up, and unregistered from {@code waiters} when the attempt ends.
     */
    private final Set<String> everWatched = new HashSet<>();
    private boolean askedToWithdraw;
    /** The deadline passed before the first decision: the attempt ends as soon as it would have to wait. */
    private boolean expired;
    private boolean decidedOnce;

    LockAttempt(LockQueue queue, byte[] data, LockQueue.Driver driver, Executor runner) {
        this.queue = queue;
        this.client = queue.client;
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
                LOG.error("Lock attempt on {} failed", queue.path, e);
                result.completeExceptionally(e);
            }
        });
    }

    CompletableFuture<Hold> start(long timeoutNanos) {
        client.getConnectionStateListenable().addListener(this);
        Futures.whenDone(result, (hold, error) -> post(() -> finish(hold)));
        if (timeoutNanos >= 0) {
            try { // on the client's scheduler: the JDK's delay thread would be one more thread
                ScheduledFuture<?> timer = client.schedule(() -> post(this::deadline),
                        Duration.ofNanos(timeoutNanos));
                Futures.whenDone(result, (hold, error) -> timer.cancel(false));
            } catch (IllegalStateException e) {
                result.completeExceptionally(e); // client not started, or closed
            }
        }
        post(this::enqueue);
        // Cancelling the returned future (completing it with null) cancels the attempt.
        // Without a hold (a failure, a time-out, a give-up) the caller hears only once the attempt is clean.
        CompletableFuture<Hold> outcome = result
                .exceptionallyCompose(error -> cleaned.thenCompose(v -> CompletableFuture.<Hold>failedFuture(error)))
                .thenCompose(hold -> hold != null ? CompletableFuture.completedFuture(hold)
                        : cleaned.<Hold>thenApply(v -> null));
        Futures.whenDone(outcome, (hold, error) -> {
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
                    .forPathAsync(BatonPaths.makePath(queue.path,
                            sequence == null ? queue.nodeName : queue.nodeName + sequence),
                            data);
            inFlight++;
            Futures.whenDone(created, (node, error) -> post(() -> created(r, node, stat, error)));
            // Pipelined behind the create: the listing shows our node, unless the parent had to be made first.
            read(client.getChildren(), queue.path, (children, error) -> firstListing(r, children));
        } catch (IllegalStateException e) {
            result.completeExceptionally(e); // client closed
        }
    }

    /**
     * Sends a read and handles its reply as a task of the attempt: a blocking request in a blocking acquire
     * (already on the attempt's thread, so the reply is handled right here), an asynchronous one otherwise.
     */
    private <T> void read(Pathable<T> request, String node, BiConsumer<T, Throwable> then) {
        read(inline, request, node, then);
    }

    private <T> void read(boolean blocking, Pathable<T> request, String node, BiConsumer<T, Throwable> then) {
        CompletableFuture<T> reply = Requests.send(blocking, request, node);
        if (blocking) {
            Throwable error = failure(reply);
            then.accept(error == null ? reply.getNow(null) : null, error);
        } else {
            Futures.whenDone(reply, (value, error) -> post(() -> then.accept(value, error)));
        }
    }

    /** Lists the lock path and decides on what it shows. */
    private void list(long r) {
        read(client.getChildren(), queue.path, (children, error) -> {
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
        String ours = ourPath;
        if (result.isDone() || r != round || ours == null) {
            return;
        }
        List<String> sorted = driver.sort(children, queue.nodeName);
        int index = sorted.indexOf(BatonPaths.nodeName(ours));
        if (index < 0) {
            enqueue(); // our node is gone
            return;
        }
        LockQueue.Decision decision = driver.decide(sorted, index);
        decidedOnce = true;
        if (decision.holds()) {
            hold(ours);
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
        Futures.whenDone(withdraw, (yes, error) -> post(() -> {
            if (result.isDone() || r != round) {
                return;
            }
            if (Boolean.TRUE.equals(yes)) {
                result.completeExceptionally(new LockQueue.Withdrawn()); // finish() deletes our node first
            } else {
                watch(decision);
            }
        }));
    }

    /** Our node's turn has come: it holds if it still belongs to the current session. */
    private void hold(String ours) {
        if (!queue.isCurrentSession(session)) {
            enqueue();
            return;
        }
        QueueHold hold = new QueueHold(queue, ours, czxid, session);
        hold.watchConnection();
        if (!result.complete(hold)) {
            hold.release(); // timed out or cancelled at the same moment
        }
    }

    /** Waits for the decision's nodes; watches already set by this attempt are not set again. */
    private void watch(LockQueue.Decision decision) {
        long r = round;
        watched.clear();
        watched.addAll(decision.watch());
        firstDeletionHolds = decision.firstDeletionHolds();
        thenWatch = decision.thenWatch();
        thenHolds = decision.thenHolds();
        for (String name : decision.watch()) {
            String node = BatonPaths.makePath(queue.path, name);
            if (everWatched.add(node)) {
                setWatch(r, node, inline);
            }
        }
    }

    /** Sets a watch on {@code node} with a read: a blocking one if {@code blocking}, else asynchronous. */
    private void setWatch(long r, String node, boolean blocking) {
        queue.register(node, this);
        // getData, not exists: on a node already gone it sets no watch (one that would never fire).
        read(blocking, client.getData().usingWatcher(queue.nodeWatcher), node, (bytes, error) -> {
            if (error != null) {
                watchFailed(r, node, error);
            }
        });
    }

    private void watchFailed(long r, String node, Throwable error) {
        everWatched.remove(node); // not set: the next decision sends it again
        queue.unregister(List.of(node), this);
        if (result.isDone() || r != round) {
            return;
        }
        if (Failures.code(error) == KeeperException.Code.NONODE) {
            gone(node); // gone before the watch was set
        } else {
            onError(error);
        }
    }

    /** A watch of ours fired (from {@code LockQueue.nodeEvent}). */
    void watchFired(String node, boolean deleted) {
        everWatched.remove(node); // a watch that fired is gone
        if (result.isDone() || !watched.contains(BatonPaths.nodeName(node))) {
            return;
        }
        if (deleted) {
            queue.wakeUps.incrementAndGet();
            gone(node);
        } else if (everWatched.add(node)) {
            setWatch(round, node, inline); // its data changed (a revocation request, say): keep waiting for it
        }
    }

    /**
     * A node we wait for is gone (its deletion notice, or a watch read that found it missing): we hold if the
     * decision said so, wait for the one node left ahead if it said that, and otherwise look again.
     */
    private void gone(String node) {
        String ours = ourPath;
        if (ours == null || !watched.remove(BatonPaths.nodeName(node))) {
            return;
        }
        if (firstDeletionHolds) {
            hold(ours);
            return;
        }
        watched.clear();
        String then = thenWatch;
        thenWatch = null;
        if (then == null) {
            list(round);
            return;
        }
        String next = BatonPaths.makePath(queue.path, then);
        if (thenHolds) {
            // Every other node our listing showed ahead is gone, and none can have queued ahead since: we hold as
            // soon as this one is gone too.
            watched.add(then);
            firstDeletionHolds = true;
            if (everWatched.add(next)) {
                setWatch(round, next, inline);
            }
            return;
        }
        // Sent without waiting, just before the listing: if the listing puts us right behind that node, its watch
        // is set (or its absence known) with no further round trip. Safe in either order: a watch set before the
        // listing fires after it if the node goes later, and one that fires (or finds the node gone) before our
        // decision is ignored, since the listing then no longer shows the node.
        if (everWatched.add(next)) {
            setWatch(round, next, false);
        }
        list(round);
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
        queue.unregister(List.copyOf(everWatched), this);
        everWatched.clear();
        watched.clear();
        thenWatch = null;
        thenHolds = false;
    }

    /** The attempt ended: with a hold, or without (then its node, if any, goes before the caller hears). */
    private void finish(@Nullable Hold hold) {
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
        Futures.whenDone(queue.deleteQuietly(node), (v, e) -> post(() -> {
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

    /**
     * Completes once the attempt has ended and no create or delete of its nodes is in flight: after a give-up
     * or a time-out, its node is then gone from the server (unless the delete met a lost connection, when it is
     * retried in the background). After a win it completes at once: the node is the hold's.
     */
    CompletableFuture<Void> cleaned() {
        return cleaned;
    }

    /** The failure of a completed future, or null if it succeeded. */
    private static @Nullable Throwable failure(CompletableFuture<?> done) {
        return done.handle((v, error) -> error).join();
    }

    /** The hold the attempt completed with, or null (not done, timed out, or failed). */
    private @Nullable Hold heldResult() {
        return result.isDone() && !result.isCompletedExceptionally() ? result.getNow(null) : null;
    }
}
