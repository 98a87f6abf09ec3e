package dev.baton.recipes.leader;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.ErrorSink;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Requests;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The join step of a {@link LeaderLatch}: creates the latch's node in the queue, with the listing pipelined behind
 * the create, and hands that listing to the watch step ({@link LatchWatch}) once the node is confirmed; watches the
 * node so that its deletion queues the latch again; checks the node again on {@code RECONNECTED}; and removes it
 * when the latch closes.
 */
final class LatchJoin {
    // The latch's logger: its failures are logged under the name users configure.
    private static final Logger LOG = LoggerFactory.getLogger(LeaderLatch.class);

    private final BatonClient client;
    private final String latchPath;
    private final byte[] idBytes;
    private final LatchState state;
    private final LatchWatch watch;
    private final Watcher ownNodeWatcher = this::ownNodeChanged;

    LatchJoin(BatonClient client, String latchPath, byte[] idBytes, LatchState state, LatchWatch watch) {
        this.client = client;
        this.latchPath = latchPath;
        this.idBytes = idBytes;
        this.state = state;
        this.watch = watch;
    }

    /** Creates a new node in the queue, dropping any node this latch had. */
    void enqueue() {
        long gen;
        String old;
        CompletableFuture<Void> attempt = new CompletableFuture<>();
        synchronized (state.lock) {
            if (!state.lifecycle.isStarted()) {
                return;
            }
            gen = ++state.generation;
            old = state.ourPath;
            state.ourPath = null;
            state.earlyListing = null;
            state.createInFlight = attempt;
        }
        state.setLeadership(false);
        if (old != null) {
            deleteNode(old);
        }
        Stat stat = new Stat();
        CompletableFuture<String> created = client.create().creatingParentContainersIfNeeded().withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).storingStatIn(stat)
                .forPathAsync(BatonPaths.makePath(latchPath, LeaderLatch.NODE_NAME), idBytes);
        Futures.whenDone(created, (path, error) -> {
            if (error != null) {
                attempt.complete(null);
                // Connection trouble: RECONNECTED will queue again. Anything else is reported.
                if (!isConnectionProblem(error)) {
                    LOG.error("LeaderLatch {} could not create its node", latchPath, Failures.unwrap(error));
                    ErrorSink.report(client, "LeaderLatch " + latchPath + " could not create its node",
                            Failures.unwrap(error));
                }
                return;
            }
            boolean current;
            List<String> listing = null;
            synchronized (state.lock) {
                current = state.lifecycle.isStarted() && gen == state.generation;
                if (current) {
                    state.ourPath = path;
                    state.ourSession = stat.getEphemeralOwner();
                    state.ourCzxid = stat.getCzxid();
                    listing = state.earlyListing;
                    state.earlyListing = null;
                }
            }
            if (!current) { // closed or reset while the create was in flight
                Futures.whenDone(deleteNode(path), (v, e) -> attempt.complete(null));
                return;
            }
            attempt.complete(null);
            // Watch our own node too: if someone deletes it (or the whole latch path), a leader
            // must stop leading at once, not when it next reconnects. One request per join; a read,
            // not exists, so a node deleted meanwhile leaves no watch behind.
            Futures.whenDone(client.getData().usingWatcher(ownNodeWatcher).forPathAsync(path), (d, e) -> {
                if (Failures.code(e) == KeeperException.Code.NONODE) {
                    ownNodeChanged(new WatchedEvent(Watcher.Event.EventType.NodeDeleted,
                            Watcher.Event.KeeperState.SyncConnected, path));
                }
            });
            if (listing != null) {
                firstListing(gen, listing);
            }
        });
        // Pipelined behind the create: ZooKeeper answers one session's requests in order, so the listing already
        // shows our node and joining takes one round trip, not two.
        Futures.whenDone(client.getChildren().forPathAsync(latchPath), (children, error) -> firstListing(gen,
                error == null ? children : List.of()));
    }

    /**
     * The listing sent with the create (empty if it failed). It waits for the create's reply if it came first. It
     * must show our node; if not, it was read before the node existed (its parent had to be created first, or the
     * create was sent again), and the queue is listed again.
     */
    private void firstListing(long gen, List<String> children) {
        String path;
        synchronized (state.lock) {
            if (!state.lifecycle.isStarted() || gen != state.generation) {
                return;
            }
            if (state.ourPath == null) {
                state.earlyListing = children;
                return;
            }
            path = state.ourPath;
        }
        if (children.contains(BatonPaths.nodeName(path))) {
            watch.decide(gen, children);
        } else {
            watch.checkLeadership(gen);
        }
    }

    private void ownNodeChanged(WatchedEvent event) {
        if (event.getType() != Watcher.Event.EventType.NodeDeleted) {
            return;
        }
        synchronized (state.lock) {
            if (!state.lifecycle.isStarted() || !event.getPath().equals(state.ourPath)) {
                return;
            }
            state.ourPath = null; // gone already: nothing to delete
        }
        enqueue();
    }

    /**
     * On {@code RECONNECTED}: if our node of round {@code gen} ({@code path}, null when there is none) still exists
     * on our session, looks at the queue again; otherwise queues again.
     */
    void reconnected(long gen, @Nullable String path) {
        if (path == null) {
            enqueue();
            return;
        }
        Futures.whenDone(client.checkExists().forPathAsync(path), (stat, error) -> {
            if (error != null) {
                return; // the next RECONNECTED tries again
            }
            long session;
            synchronized (state.lock) {
                session = state.ourSession;
            }
            if (stat != null && stat.getEphemeralOwner() == session && state.belongsToCurrentSession()) {
                watch.checkLeadership(gen);
            } else {
                enqueue();
            }
        });
    }

    /**
     * At close: deletes our node ({@code path}), at once if connected, else in the background; with no node yet,
     * waits for the create in flight ({@code pending}), which deletes what it made once it sees the latch closed.
     */
    void leave(@Nullable String path, @Nullable CompletableFuture<Void> pending) {
        if (path != null) {
            if (client.isConnected()) {
                try {
                    client.delete().guaranteed().quietly().forPath(path);
                } catch (KeeperException e) {
                    LOG.debug("LeaderLatch {} node delete failed; retrying in the background", path, e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else {
                deleteNode(path);
            }
        } else if (pending != null && !Requests.awaitAtClose(client, pending)) {
            // it deletes what it made once it sees we are closed
            LOG.debug("LeaderLatch {}: the create in flight at close is finished in the background", latchPath);
        }
    }

    /**
     * Deletes a node of ours, retried in the background until done; the future completes after the first try and
     * never fails, so a caller that need not know when may ignore it.
     */
    @CanIgnoreReturnValue
    private CompletableFuture<Void> deleteNode(String path) {
        return client.delete().guaranteed().quietly().forPathAsync(path).exceptionally(e -> null);
    }

    /** Connection trouble (the connection listener takes over) or a closed client: nothing to report. */
    static boolean isConnectionProblem(Throwable t) {
        return Failures.isConnectionProblem(t) || Failures.unwrap(t) instanceof IllegalStateException;
    }
}
