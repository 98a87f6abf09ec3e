package dev.baton.recipes.leader;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Monitor;
import dev.baton.internal.SerialExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one {@link LeaderLatch} knows, under one lock: where it is in its life, the current round of the election,
 * its node, the node it watches ahead of that, and whether it leads; and the one place its leadership changes,
 * which wakes the waiters and tells the listeners. The latch and its join ({@link LatchJoin}) and watch
 * ({@link LatchWatch}) steps read and write these fields holding {@link #lock}: each step decides on all of them
 * at once, so they share one lock rather than each keeping its own.
 */
final class LatchState {
    // The latch's logger: its leadership changes are logged under the name users configure.
    private static final Logger LOG = LoggerFactory.getLogger(LeaderLatch.class);

    final Monitor lock = new Monitor();
    final Lifecycle lifecycle;
    private final BatonClient client;
    private final String latchPath;
    private final String id;
    private final ListenerContainer<LeaderLatchListener> listeners;
    private final SerialExecutor notifications = new SerialExecutor(Runnable::run);

    /** The round of the election: bumped by each join and by close, so a reply to an older round is ignored. */
    @GuardedBy("lock")
    long generation;
    /** Our node; null until the create's reply, and once the node is deleted or gone. */
    @GuardedBy("lock")
    @Nullable String ourPath;
    @GuardedBy("lock")
    long ourSession;
    @GuardedBy("lock")
    long ourCzxid;
    /** The node ahead of ours that we watch; null when none. */
    @GuardedBy("lock")
    @Nullable String watchedPath;
    /** The watched node is the only one ahead of ours: its deletion makes us leader. */
    @GuardedBy("lock")
    boolean leadsWhenWatchedGoes;
    /**
     * With the first node of our listing watched from third in line: the node between, the only one that can
     * still be ahead of ours once the watched node goes (we then wait for it without listing). Otherwise null.
     */
    @GuardedBy("lock")
    @Nullable String onlyOtherAhead;
    /** The listing sent with the create, when it came back before the create's reply was handled; else null. */
    @GuardedBy("lock")
    @Nullable List<String> earlyListing;
    /**
     * The latest create: done once its reply is handled, and for a create that answered a latch already closed (or
     * reset), once the node it made is deleted. Null before the first.
     */
    @GuardedBy("lock")
    @Nullable CompletableFuture<Void> createInFlight;
    @GuardedBy("lock")
    boolean leader;
    /** The futures of {@link LeaderLatch#awaitAsync()} not completed yet. */
    @GuardedBy("lock")
    final List<CompletableFuture<Void>> leadershipWaiters = new ArrayList<>();

    LatchState(BatonClient client, String latchPath, String id, ListenerContainer<LeaderLatchListener> listeners) {
        this.client = client;
        this.latchPath = latchPath;
        this.id = id;
        this.lifecycle = new Lifecycle("LeaderLatch " + latchPath);
        this.listeners = listeners;
    }

    /**
     * Leads or stops leading: wakes the blocked waiters, completes the {@link LeaderLatch#awaitAsync()} futures on
     * gaining leadership, and tells the listeners. Does nothing if nothing changes, and never leads a latch that is
     * not started.
     */
    void setLeadership(boolean newValue) {
        List<CompletableFuture<Void>> waiting = List.of();
        synchronized (lock) {
            if (leader == newValue || (newValue && !lifecycle.isStarted())) {
                return;
            }
            leader = newValue;
            lock.signalAll();
            if (newValue) {
                waiting = List.copyOf(leadershipWaiters);
                leadershipWaiters.clear();
            }
        }
        waiting.forEach(f -> f.complete(null));
        LOG.debug("LeaderLatch {} ({}) leadership {}", latchPath, id, newValue);
        notifications.execute(() -> listeners.forEach(newValue ? LeaderLatchListener::isLeader
                : LeaderLatchListener::notLeader));
    }

    /** At close: leadership ends, and the listeners still registered hear {@code notLeader()} if it led. */
    void endLeadershipAtClose() {
        boolean wasLeader;
        synchronized (lock) {
            wasLeader = leader;
            leader = false;
        }
        if (wasLeader) {
            notifications.execute(() -> listeners.forEach(LeaderLatchListener::notLeader));
        }
    }

    /** {@return true if our node was made by the client's current session, which is connected} */
    boolean belongsToCurrentSession() {
        long session;
        synchronized (lock) {
            session = ourSession;
        }
        try {
            return client.isConnected() && client.getZooKeeper().getSessionId() == session;
        } catch (IllegalStateException e) {
            return false; // client closed
        }
    }
}
