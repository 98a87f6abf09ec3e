package dev.baton.recipes.leader;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watch step of a {@link LeaderLatch}: on a listing of the queue that shows the latch's node, leads, or watches
 * one node ahead of it (which one, and why, the class comment of {@link LeaderLatch} tells); when that node goes,
 * leads, waits for the one node left ahead, or lists the queue again. When the latch's node is missing from the
 * listing, or first in it but made by an older session, or the latch path is gone, the latch joins the queue again.
 */
final class LatchWatch {
    // The latch's logger: its failures are logged under the name users configure.
    private static final Logger LOG = LoggerFactory.getLogger(LeaderLatch.class);

    private final BatonClient client;
    private final String latchPath;
    private final LatchState state;
    /** Joins the queue again, with a new node (the join step's {@code enqueue}). */
    private final Runnable rejoin;
    private final Watcher watchedWatcher = this::watchedChanged;

    LatchWatch(BatonClient client, String latchPath, LatchState state, Runnable rejoin) {
        this.client = client;
        this.latchPath = latchPath;
        this.state = state;
        this.rejoin = rejoin;
    }

    /** Lists the queue and leads, or watches a node ahead of ours (see the class comment for which). */
    void checkLeadership(long gen) {
        Futures.whenDone(client.getChildren().forPathAsync(latchPath), (children, error) -> {
            if (error == null) {
                decide(gen, children);
                return;
            }
            synchronized (state.lock) {
                if (!state.lifecycle.isStarted() || gen != state.generation) {
                    return;
                }
            }
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                rejoin.run(); // the latch path itself was deleted
            } else if (!LatchJoin.isConnectionProblem(error)) {
                LOG.error("LeaderLatch {} could not list its queue", latchPath, Failures.unwrap(error));
            }
        });
    }

    /** Leads, or watches a node ahead of ours, on a listing that came after our node was created. */
    void decide(long gen, List<String> children) {
        String path;
        synchronized (state.lock) {
            if (!state.lifecycle.isStarted() || gen != state.generation || state.ourPath == null) {
                return; // a newer round decides, or the node's deletion queues one
            }
            path = state.ourPath;
        }
        List<String> queue = BatonPaths.sortBySequence(children, LeaderLatch.NODE_NAME);
        int index = queue.indexOf(BatonPaths.nodeName(path));
        if (index < 0) {
            rejoin.run(); // our node is gone
        } else if (index == 0) {
            if (state.belongsToCurrentSession()) {
                state.setLeadership(true);
            } else {
                rejoin.run();
            }
        } else {
            state.setLeadership(false);
            // Second in line: the leader. Further back: the node two ahead, whose deletion usually means
            // that the node just ahead of ours now leads, so the listing it prompts finds us second in line
            // while there is still a leader to wait for. Third in line: no listing then, as only the second
            // can still be ahead of us.
            watchAhead(gen, BatonPaths.makePath(latchPath, queue.get(Math.max(index - 2, 0))), index == 1,
                    index == 2 ? BatonPaths.makePath(latchPath, queue.get(1)) : null);
        }
    }

    /**
     * Watches a node ahead of ours with a read (on a node already gone it sets no watch that would never fire).
     * If it is the only node ahead ({@code leadsWhenGone}), its deletion makes us leader; if {@code then} is the
     * only other one, its deletion makes us wait for {@code then}; otherwise it makes us list the queue again.
     */
    private void watchAhead(long gen, String node, boolean leadsWhenGone, @Nullable String then) {
        synchronized (state.lock) {
            state.watchedPath = node;
            state.leadsWhenWatchedGoes = leadsWhenGone;
            state.onlyOtherAhead = then;
        }
        Futures.whenDone(client.getData().usingWatcher(watchedWatcher).forPathAsync(node), (data, error) -> {
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                watchedGone(gen, node); // gone before the watch was set
            }
        });
    }

    private void watchedChanged(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            return;
        }
        long gen;
        boolean leadsWhenGone;
        String then;
        synchronized (state.lock) {
            if (!state.lifecycle.isStarted() || !event.getPath().equals(state.watchedPath)) {
                return;
            }
            gen = state.generation;
            leadsWhenGone = state.leadsWhenWatchedGoes;
            then = state.onlyOtherAhead;
        }
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            watchedGone(gen, event.getPath());
        } else {
            // its data changed: a watch fires once, set it again
            watchAhead(gen, event.getPath(), leadsWhenGone, then);
        }
    }

    /**
     * The node we waited for is gone: lead if it was the only one ahead, wait for the one node left ahead if there
     * is just one, otherwise look at the queue again.
     */
    private void watchedGone(long gen, String node) {
        boolean lead;
        String next;
        synchronized (state.lock) {
            if (!state.lifecycle.isStarted() || gen != state.generation || !node.equals(state.watchedPath)) {
                return;
            }
            state.watchedPath = null;
            lead = state.leadsWhenWatchedGoes && state.ourPath != null;
            next = state.ourPath != null ? state.onlyOtherAhead : null;
            state.onlyOtherAhead = null;
        }
        if (lead && state.belongsToCurrentSession()) {
            state.setLeadership(true);
        } else if (next != null) {
            watchAhead(gen, next, true, null); // every other node our listing showed ahead is gone
        } else {
            checkLeadership(gen);
        }
    }

    /** At close: removes this step's watch on {@code watched}, locally, ignoring any failure. */
    void forget(String watched) {
        client.watchers().remove(watchedWatcher).locally().quietly().forPathAsync(watched).exceptionally(e -> null);
    }
}
