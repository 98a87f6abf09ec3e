package dev.baton.recipes.queue;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Requests;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The takes waiting on one {@link SimpleDistributedQueue}, and how they are served (see the queue's "Semantics"):
 * the listing they share, the claims in flight for them (taking turns with other consumers after a race lost), the
 * child watch they wait on and the reconnection listener, both there only while a take waits. Driven by ZooKeeper's
 * callbacks and the watch; no thread of its own. Thread-safe.
 */
final class SimpleQueueTakes {
    private static final Logger LOG = LoggerFactory.getLogger(SimpleDistributedQueue.class);
    /** The prefix of an item's node name: {@code qn-<seq>}. */
    static final String PREFIX = "qn-";
    private static final Duration RETRY = Duration.ofMillis(250);
    /** Claims in flight at most, each for a take waiting. */
    private static final int WINDOW = 8;
    /**
     * After a race lost to another consumer, claims read the item first and send its delete only once the read
     * found it, until this many have won: a race lost then mostly costs a read (answered by the consumer's own
     * server) rather than a failed delete (a write that every server of the ensemble logs). Consumers that list
     * the same items chase the same first item, so this is their common case; a consumer alone never loses a race
     * and sends both requests back to back.
     */
    private static final int CAREFUL_CLAIMS = 4;
    /** How long an item claimed ahead of the takes waits for one before it goes back to the end of the queue. */
    private static final Duration HOLD = Duration.ofSeconds(1);

    private final BatonClient client;
    private final String path;
    private final Watcher watcher = this::childrenChanged;
    private final ConnectionStateListener reconnection = this::reconnected;

    private final Object lock = new Object();
    /** The names of the last listing not yet claimed, in order. */
    @GuardedBy("lock")
    private final ArrayDeque<String> known = new ArrayDeque<>();
    /** The takes waiting, in the order they came. */
    @GuardedBy("lock")
    private final ArrayDeque<Take> waiting = new ArrayDeque<>();
    /** The claims in flight, in the order sent. */
    @GuardedBy("lock")
    private final ArrayDeque<Claim> claims = new ArrayDeque<>();
    @GuardedBy("lock")
    private boolean listing;
    /** Listings started, and the number of the last one answered (one is in flight at a time). */
    @GuardedBy("lock")
    private long listingsStarted;
    @GuardedBy("lock")
    private long listedUpTo;
    /** The queue may hold items not in {@link #known}: list when they run out rather than wait for the watch. */
    @GuardedBy("lock")
    private boolean stale = true;
    /** A listing has set this instance's watch since it was last removed. */
    @GuardedBy("lock")
    private boolean armed;
    /** After a connection problem: no request until the retry delay has passed. */
    @GuardedBy("lock")
    private boolean resting;
    @GuardedBy("lock")
    private boolean listening;
    @GuardedBy("lock")
    private boolean pumping;
    @GuardedBy("lock")
    private boolean repump;
    /** Claims still to read first ({@link #CAREFUL_CLAIMS}). */
    @GuardedBy("lock")
    private int careful;
    /** Another consumer takes items of this queue too: since a race lost to it, claims take turns with it. */
    @GuardedBy("lock")
    private boolean turns;
    /** The next claim leaves the next remembered item to the other consumer (checking behind it). */
    @GuardedBy("lock")
    private boolean skipNext;

    SimpleQueueTakes(BatonClient client, String path) {
        this.client = client;
        this.path = path;
    }

    /** Adds a take to those waiting and moves them on. */
    void add(Take take) {
        synchronized (lock) {
            take.since = listingsStarted;
            waiting.add(take);
        }
        if (take.deadline != Long.MAX_VALUE) {
            long left = take.deadline - System.nanoTime();
            if (left > 0) {
                client.schedule(this::pump, Duration.ofNanos(left));
            }
        }
        Futures.whenDone(take.result, (bytes, error) -> {
            if (error != null) {
                pump(); // a take given up: its claim (if any) goes to the next, its watch may go
            }
        });
        pump();
    }

    /**
     * Moves every waiting take on as far as it can go: hands out the claims answered (in the order they were sent,
     * which is the items' order), gives up the takes past their deadline that no claim in flight will serve,
     * claims the next remembered items for the takes still unserved, lists when the remembered ones ran out, and
     * removes the watch when nothing waits any more. Runs on one thread at a time; a call meanwhile makes the
     * running one go round again.
     */
    private void pump() {
        synchronized (lock) {
            if (pumping) {
                repump = true;
                return;
            }
            pumping = true;
        }
        while (true) {
            List<Runnable> actions = new ArrayList<>();
            List<Runnable> answers = new ArrayList<>();
            synchronized (lock) {
                repump = false;
                step(actions, answers);
                if (actions.isEmpty() && answers.isEmpty() && !repump) {
                    pumping = false;
                    return;
                }
            }
            // Requests first, answers to the callers after: a caller answered finds its watch's removal sent.
            actions.addAll(answers);
            for (Runnable action : actions) {
                try {
                    action.run();
                } catch (RuntimeException e) {
                    LOG.error("queue {}: a step of a take failed", path, e);
                }
            }
        }
    }

    /**
     * One round of {@link #pump()}, under the lock: the requests it decides to send go into {@code actions}, the
     * takes it completes into {@code answers}.
     */
    @GuardedBy("lock")
    private void step(List<Runnable> actions, List<Runnable> answers) {
        long now = System.nanoTime();
        // 1. The answered claims, in the order sent.
        while (!claims.isEmpty() && claims.peek().done) {
            Claim claim = claims.peek();
            if (claim.bytes != null) {
                Take take = firstLive();
                byte[] bytes = claim.bytes;
                if (take == null) {
                    // Taken ahead of the takes (behind an item claimed: see claim), or for a take given up: kept
                    // for the next take a while, then put back.
                    if (!claim.held) {
                        claim.held = true;
                        actions.add(() -> client.schedule(() -> release(claim, bytes), HOLD));
                    }
                    break;
                }
                claims.poll();
                waiting.remove(take);
                answers.add(() -> {
                    if (!take.result.complete(bytes)) {
                        putBack(bytes);
                    }
                });
            } else {
                claims.poll();
                if (claim.error != null) {
                    failed(claim.error, actions, answers);
                }
            }
        }
        // 2. The takes: drop those done; give up those past their deadline once a listing made since they came has
        // been answered (a poll always gets one look at the queue) and no item claimed or remembered is left for
        // them after the takes ahead.
        int live = 0;
        boolean look = false;
        boolean wait = false;
        for (Iterator<Take> it = waiting.iterator(); it.hasNext(); ) {
            Take take = it.next();
            if (take.result.isDone()) {
                it.remove();
                continue;
            }
            boolean due = take.deadline != Long.MAX_VALUE && now - take.deadline >= 0;
            boolean looked = listedUpTo > take.since; // by a listing started after it came
            if (due && looked && live >= claims.size() + known.size()) {
                it.remove();
                answers.add(() -> take.result.complete(null));
                continue;
            }
            live++;
            look |= due && !looked;
            wait |= !due;
        }
        // 3. Claims for the takes not yet served, from the remembered names, a few in flight at once; never more
        // than takes wait, so that every item deleted has a caller to go to.
        while (!resting && claims.size() < Math.min(live, WINDOW) && !known.isEmpty()) {
            if (skipNext && known.size() >= 2) {
                skipNext = false;
                Claim behind = new Claim(known.poll());
                Claim claim = new Claim(known.poll());
                claims.add(behind);
                claims.add(claim);
                actions.add(() -> claim(claim, behind));
            } else {
                Claim claim = new Claim(known.poll());
                claims.add(claim);
                actions.add(() -> claim(claim, null));
            }
        }
        // 4. A listing when the remembered names ran out and the queue may hold more (or a poll needs a look).
        if (!resting && live > claims.size() && claims.isEmpty() && known.isEmpty() && !listing
                && (stale || look)) {
            listing = true;
            boolean watch = wait;
            long number = ++listingsStarted;
            actions.add(() -> list(watch, number));
        }
        // 5. Nothing waits: the watch (if one is set) and the reconnection listener go.
        if (live == 0 && armed && !listing && client.getState() == BatonClient.State.STARTED) {
            armed = false;
            stale = true; // with no watch, a take to come must look
            actions.add(() -> client.watchers().remove(watcher).ofType(Watcher.WatcherType.Any).quietly()
                    .forPathAsync(path).exceptionally(e -> null));
        }
        if ((live > 0) != listening) {
            listening = live > 0;
            if (listening) {
                actions.add(() -> client.getConnectionStateListenable().addListener(reconnection));
            } else {
                actions.add(() -> client.getConnectionStateListenable().removeListener(reconnection));
            }
        }
    }

    @GuardedBy("lock")
    private @Nullable Take firstLive() {
        for (Take take : waiting) {
            if (!take.result.isDone()) {
                return take;
            }
        }
        return null;
    }

    /**
     * A request failed with something other than a lost race. A connection problem makes the takes rest a while
     * and then look at the queue afresh (polls past their deadline get the failure); anything else fails the
     * first waiting take.
     */
    @GuardedBy("lock")
    private void failed(Throwable error, List<Runnable> actions, List<Runnable> answers) {
        Throwable cause = Failures.unwrap(error);
        if (Failures.isConnectionProblem(cause)) {
            known.clear();
            stale = true;
            long now = System.nanoTime();
            for (Iterator<Take> it = waiting.iterator(); it.hasNext(); ) {
                Take take = it.next();
                if (take.deadline != Long.MAX_VALUE && now - take.deadline >= 0) {
                    it.remove();
                    answers.add(() -> take.result.completeExceptionally(cause));
                }
            }
            if (!resting) {
                resting = true;
                actions.add(() -> client.schedule(() -> {
                    synchronized (lock) {
                        resting = false;
                    }
                    pump();
                }, RETRY));
            }
            return;
        }
        Take take = firstLive();
        if (take != null) {
            waiting.remove(take);
            answers.add(() -> take.result.completeExceptionally(cause));
        }
    }

    /**
     * Claims one item: its {@code getData} and {@code delete} sent back to back (ZooKeeper answers one session's
     * requests in order, so the read sees the node the delete then removes), or after a lost race the delete only
     * once the read has found the item ({@link #CAREFUL_CLAIMS}). Whoever deletes it has it.
     *
     * <p>Taking turns with another consumer ({@link #turns}), the claim leaves the item before it, {@code behind},
     * to that consumer, and reads it after the delete (so that the read is answered once the delete is applied):
     * the item is then gone (the other consumer has it) or still there, and then taken too and handed out first.
     * So this instance never hands out an item while an earlier one it listed is left behind, and each caller gets
     * its items in order. Should the item be lost to another consumer, the one behind is claimed as usual.
     *
     * @param behind the item left to the other consumer, or null
     */
    private void claim(Claim claim, @Nullable Claim behind) {
        String itemPath = BatonPaths.makePath(path, claim.name);
        boolean readFirst;
        synchronized (lock) {
            readFirst = careful > 0;
        }
        CompletableFuture<byte[]> data = Requests.send(false, client.getData(), itemPath);
        CompletableFuture<byte[]> behindData = new CompletableFuture<>();
        Supplier<CompletableFuture<Void>> delete = () -> {
            CompletableFuture<Void> deleted = Takes.deleteOnce(client, itemPath);
            if (behind != null) {
                Futures.whenDone(Requests.send(false, client.getData(), BatonPaths.makePath(path, behind.name)),
                        (bytes, error) -> {
                            if (error == null) {
                                behindData.complete(bytes);
                            } else {
                                behindData.completeExceptionally(error);
                            }
                        });
            }
            return deleted;
        };
        CompletableFuture<Void> deleted = readFirst
                ? data.handle((bytes, e) -> e).thenCompose(e -> e == null ? delete.get()
                        : CompletableFuture.failedFuture(e))
                : delete.get();
        Futures.whenDone(CompletableFuture.allOf(data, deleted), (x, e) -> {
            Outcome outcome;
            synchronized (lock) {
                outcome = settle(claim, data, deleted);
                if (behind != null && outcome == Outcome.FAILED) {
                    behind.done = true; // a listing after the failure finds it if it is still there
                }
            }
            if (behind != null && outcome == Outcome.LOST) {
                claim(behind, null);
            } else if (behind != null && outcome == Outcome.WON) {
                takeIfLeft(behind, behindData);
            }
            pump();
        });
    }

    /** The item behind a claim won: deleted (and so had) if the read after the claim's delete still found it. */
    private void takeIfLeft(Claim behind, CompletableFuture<byte[]> read) {
        CompletableFuture<Void> deleted = read.handle((bytes, error) -> error).thenCompose(error -> error == null
                ? Takes.deleteOnce(client, BatonPaths.makePath(path, behind.name))
                : CompletableFuture.failedFuture(error));
        Futures.whenDone(deleted, (v, error) -> {
            synchronized (lock) {
                behind.done = true;
                if (error == null) {
                    behind.bytes = read.join();
                } else if (Failures.code(error) != KeeperException.Code.NONODE
                        && !Failures.isConnectionProblem(error)) {
                    behind.error = Failures.unwrap(error);
                } // else gone (the other consumer has it) or not known to be ours: a listing finds it if left
            }
            pump();
        });
    }

    /** What became of a claim. */
    private enum Outcome { WON, LOST, FAILED }

    /** Records a claim's answers (under the lock). */
    @GuardedBy("lock")
    private Outcome settle(Claim claim, CompletableFuture<byte[]> data, CompletableFuture<Void> delete) {
        Throwable readError = failure(data);
        Throwable deleteError = failure(delete);
        claim.done = true;
        if (deleteError == null && readError == null) {
            claim.bytes = data.join();
            careful = Math.max(0, careful - 1);
            skipNext = turns;
            return Outcome.WON;
        } else if (deleteError == null) {
            LOG.warn("queue item {}/{} was taken but could not be read", path, claim.name, readError);
            return Outcome.WON;
        } else if (Failures.code(deleteError) != KeeperException.Code.NONODE
                && !Failures.isConnectionProblem(deleteError)) {
            claim.error = deleteError;
            return Outcome.FAILED;
        }
        // Taken by another (this read, or this delete, found it gone), or not known to be ours (the connection
        // went with the delete's answer): not ours, and a listing finds it if it is still there.
        careful = CAREFUL_CLAIMS;
        turns = true;
        skipNext = false;
        return Outcome.LOST;
    }

    /** An item kept for the next take ({@code bytes}, the claim's): put back at the end of the queue if none came. */
    private void release(Claim claim, byte[] bytes) {
        synchronized (lock) {
            if (claims.peek() != claim || firstLive() != null) {
                return;
            }
            claims.poll();
        }
        putBack(bytes);
        pump();
    }

    /** {@return why a completed future failed, unwrapped; null if it succeeded} */
    private static @Nullable Throwable failure(CompletableFuture<?> f) {
        try {
            f.join();
            return null;
        } catch (RuntimeException e) {
            return Failures.unwrap(e);
        }
    }

    /**
     * Lists the queue into {@link #known} (setting the child watch if a take may wait for it). If the container
     * is not there (never made, or reaped: CURATOR-308), a waiting take waits for it on an existence watch
     * instead; should it have come just now, the queue is listed again (a watch on an existing node would not
     * see its children come).
     */
    private void list(boolean watch, long number) {
        var request = watch ? client.getChildren().usingWatcher(watcher) : client.getChildren();
        Futures.whenDone(Requests.send(false, request, path), (children, error) -> {
            if (error == null) {
                List<String> items = items(children);
                synchronized (lock) {
                    known.addAll(items);
                    listed(number, watch, !items.isEmpty() || !watch);
                }
                pump();
            } else if (Failures.code(error) == KeeperException.Code.NONODE && watch) {
                Futures.whenDone(Requests.send(false, client.checkExists().usingWatcher(watcher), path), (stat, e) -> {
                    if (e == null) {
                        synchronized (lock) {
                            listed(number, true, stat != null);
                        }
                        pump();
                    } else {
                        listingFailed(e);
                    }
                });
            } else if (Failures.code(error) == KeeperException.Code.NONODE) {
                synchronized (lock) {
                    listed(number, false, true);
                }
                pump();
            } else {
                listingFailed(error);
            }
        });
    }

    /** A listing failed: on a connection problem the takes rest; anything else fails every take waiting. */
    private void listingFailed(Throwable error) {
        List<Runnable> actions = new ArrayList<>();
        synchronized (lock) {
            listing = false;
            if (Failures.isConnectionProblem(error)) {
                failed(error, actions, actions);
            } else {
                Throwable cause = Failures.unwrap(error);
                for (Take take : waiting) {
                    actions.add(() -> take.result.completeExceptionally(cause));
                }
                waiting.clear();
            }
        }
        actions.forEach(Runnable::run);
        pump();
    }

    /** A listing came back (under the lock): {@code stale} if the queue may hold items it did not show. */
    @GuardedBy("lock")
    private void listed(long number, boolean watched, boolean stale) {
        listing = false;
        listedUpTo = number;
        armed |= watched;
        this.stale = stale;
    }

    /** The items among a listing's children, in sequence order. */
    static List<String> items(List<String> children) {
        List<String> items = new ArrayList<>(children.size());
        for (String c : children) {
            if (c.startsWith(PREFIX)) {
                items.add(c);
            }
        }
        Collections.sort(items);
        return items;
    }

    private void childrenChanged(WatchedEvent event) {
        if (event.getType() != Watcher.Event.EventType.None) {
            synchronized (lock) {
                // Still armed: the event is one watch's (a child watch's, or an existence watch's), and another
                // may remain; the removal, when nothing waits, takes whatever is left.
                stale = true;
            }
            pump();
        }
    }

    private void reconnected(BatonClient c, ConnectionState newState) {
        if (newState == ConnectionState.RECONNECTED) {
            synchronized (lock) {
                stale = true; // a new session has none of the old watches
            }
            pump();
        }
    }

    private void putBack(byte[] bytes) {
        LOG.warn("a take from {} was given up just as it took an item: putting the item back", path);
        client.create().creatingParentContainersIfNeeded().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPathAsync(BatonPaths.makePath(path, PREFIX), bytes)
                .exceptionally(e -> {
                    LOG.error("could not put back an item of {}", path, e);
                    return null;
                });
    }

    /** A caller waiting for an item: {@code take}, {@code takeAsync} or a {@code poll}. */
    static final class Take {
        final CompletableFuture<byte[]> result = new CompletableFuture<>();
        /** When a poll gives up ({@code Long.MAX_VALUE}: never); a plain poll's is its start. */
        final long deadline;
        /**
         * Listings started before it came: a poll needs a look by a later one. Read and written with the queue's
         * lock held (the lock is the queue's, so {@code @GuardedBy} cannot name it here).
         */
        long since;

        Take(long deadline) {
            this.deadline = deadline;
        }
    }

    /**
     * One item's claim in flight. Its mutable fields are read and written with the queue's lock held (the lock is
     * the queue's, so {@code @GuardedBy} cannot name it here).
     */
    private static final class Claim {
        final String name;
        boolean done;
        /** The item, once claimed and read; null before, or if the claim failed. */
        byte @Nullable [] bytes;
        /** Why the claim failed, if it did for another reason than a race lost. */
        @Nullable Throwable error;
        /** Answered with no take to go to: kept for the next one a while. */
        boolean held;

        Claim(String name) {
            this.name = name;
        }
    }

}
