package dev.baton.recipes.barriers;

import dev.baton.BatonClient;
import dev.baton.BatonPaths;
import dev.baton.Failures;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * also requires. The barrier has no thread of its own: blocked callers sleep on a monitor woken by watches.
 * Thread-safe.
 */
public final class DistributedDoubleBarrier {
    private static final Logger LOG = LoggerFactory.getLogger(DistributedDoubleBarrier.class);
    static final String READY_NODE = "ready";
    /** Names the markers of members agreeing on who creates a new path: {@code _c_<uuid>-<name>.creating-<seq>}. */
    static final String CREATING_MARKER = ".creating-";

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
        enter(Deadline.NONE);
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
        return enter(Deadline.after(maxWait, unit, "maxWait"));
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
        leave(Deadline.NONE);
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
        return leave(Deadline.after(maxWait, unit, "maxWait"));
    }

    /** @return the barrier's path */
    public String getPath() {
        return barrierPath;
    }

    /** @return how many members the barrier waits for */
    public int getMemberQty() {
        return memberQty;
    }

    // ---------------------------------------------------------------- enter

    private boolean enter(Deadline deadline) throws KeeperException, InterruptedException {
        synchronized (this) {
            if (phase != Phase.IDLE) {
                throw new IllegalStateException("enter() on barrier " + barrierPath + " while " + phase);
            }
            phase = Phase.ENTERING;
        }
        Signal signal = new Signal();
        WatchScope watches = new WatchScope(client, signal);
        String path = null;
        long session = 0;
        boolean entered = false;
        boolean nodeGone = false;
        try {
            String name = UUID.randomUUID().toString();
            String member = BatonPaths.makePath(barrierPath, name);
            Stat created = new Stat();
            while (true) {
                if (!ensurePath(barrierPath, deadline)) {
                    return false;
                }
                try {
                    client.create().withMode(CreateMode.EPHEMERAL).storingStatIn(created).forPath(member);
                    path = member;
                    break;
                } catch (KeeperException.NoNodeException e) {
                    // The (empty, container) barrier path was swept between the check and the create.
                    failedPathCreates.incrementAndGet();
                }
            }
            session = created.getEphemeralOwner();
            synchronized (this) {
                ourPath = path;
                ourSession = session;
            }
            while (true) {
                int mark = signal.mark();
                Stat parent = new Stat();
                List<String> children;
                try {
                    children = client.getChildren().storingStatIn(parent).forPath(barrierPath);
                } catch (KeeperException.SessionExpiredException e) {
                    nodeGone = true; // and with it our node
                    throw KeeperException.create(KeeperException.Code.SESSIONEXPIRED, path);
                }
                if (children.contains(READY_NODE)) {
                    entered = true;
                    return true;
                }
                if (!children.contains(name)) {
                    nodeGone = true;
                    throw memberNodeGone(path, session);
                }
                if (children.size() >= memberQty && parent.getPzxid() == created.getCzxid()) {
                    createReady();
                    entered = true;
                    return true;
                }
                watches.watching(readyPath, Watcher.WatcherType.Data);
                if (client.checkExists().usingWatcher(signal).forPath(readyPath) != null) {
                    entered = true; // created between our list and our check
                    return true;
                }
                if (!signal.await(mark, deadline)) {
                    watches.close(true);
                    giveUp(path);
                    nodeGone = true;
                    return false;
                }
                if (signal.sawCreated()) {
                    entered = true; // ready was created: conclusive, no need to list again
                    return true;
                }
                if (sessionChanged(session)) {
                    nodeGone = true;
                    throw memberNodeGone(path, session);
                }
                // A connection event: look again.
            }
        } finally {
            synchronized (this) {
                if (entered) {
                    phase = Phase.ENTERED;
                } else {
                    phase = Phase.IDLE;
                    ourPath = null;
                }
            }
            watches.close(!entered && !nodeGone);
            if (!entered && path != null && !nodeGone) {
                // Failed or interrupted: do not stay counted as a member.
                deleteInBackground(path, session);
            }
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
     * @return false if the deadline passed first (the marker is removed)
     */
    private boolean ensurePath(String path, Deadline deadline) throws KeeperException, InterruptedException {
        if (client.checkExists().forPath(path) != null) {
            return true;
        }
        String parent = BatonPaths.parent(path);
        String name = BatonPaths.nodeName(path);
        String markerPrefix = name + CREATING_MARKER;
        // Protected: a marker whose create met connection loss must not be left (first in line) behind.
        CompletableFuture<String> created = client.create().withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPathAsync(BatonPaths.makePath(parent, markerPrefix));
        CompletableFuture<List<String>> listed = client.getChildren().forPathAsync(parent); // pipelined
        String marker;
        try {
            marker = Failures.await(created);
        } catch (KeeperException.NoNodeException e) {
            listed.exceptionally(error -> null);
            failedPathCreates.incrementAndGet();
            return ensurePath(parent, deadline) && ensurePath(path, deadline);
        }
        Signal signal = new Signal();
        WatchScope watch = new WatchScope(client, signal);
        boolean ours = true; // our marker is ours to delete
        boolean fired = true;
        try {
            List<String> children = Failures.await(listed);
            while (!children.contains(name)) {
                String first = BatonPaths.makePath(parent, markers(children, markerPrefix).get(0));
                if (first.equals(marker)) {
                    createPath(path, marker);
                    ours = false;
                    return true;
                }
                int mark = signal.mark();
                watch.watching(first, Watcher.WatcherType.Data);
                if (client.checkExists().usingWatcher(signal).forPath(first) == null) {
                    return true; // its member made the path (or died: the caller will find out)
                }
                if (!signal.await(mark, deadline)) {
                    fired = false;
                    return false;
                }
                if (signal.sawDeleted()) {
                    return true;
                }
                children = client.getChildren().forPath(parent); // a connection event: look again
            }
            return true;
        } finally {
            watch.close(!fired);
            if (ours) {
                client.delete().guaranteed().quietly().forPathAsync(marker).exceptionally(error -> null);
            }
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
    private void createPath(String path, String marker) throws KeeperException, InterruptedException {
        try {
            client.transaction().forOperations(
                    client.transactionOp().create().withMode(CreateMode.CONTAINER).forPath(path),
                    client.transactionOp().delete().forPath(marker));
        } catch (KeeperException.NodeExistsException e) {
            // Created by a client that takes no part in the markers (a Curator member).
            failedPathCreates.incrementAndGet();
            client.delete().guaranteed().quietly().forPath(marker);
        }
    }

    private void createReady() throws KeeperException, InterruptedException {
        try {
            client.create().forPath(readyPath);
        } catch (KeeperException.NodeExistsException e) {
            // Only with more than memberQty members entering at once (see the class comment).
            failedWrites.incrementAndGet();
        }
    }

    private void giveUp(String path) throws InterruptedException {
        try {
            client.delete().guaranteed().quietly().forPath(path);
        } catch (KeeperException e) {
            LOG.debug("Barrier member {} could not be removed now; retrying in the background", path, e);
        }
    }

    private KeeperException memberNodeGone(String path, long session) {
        if (sessionChanged(session)) {
            return KeeperException.create(KeeperException.Code.SESSIONEXPIRED, path);
        }
        return KeeperException.create(KeeperException.Code.NONODE, path);
    }

    // ---------------------------------------------------------------- leave

    private boolean leave(Deadline deadline) throws KeeperException, InterruptedException {
        String path;
        long session;
        synchronized (this) {
            if (phase != Phase.ENTERED) {
                throw new IllegalStateException("leave() on barrier " + barrierPath + " while "
                        + (phase == Phase.IDLE ? "not entered" : phase));
            }
            phase = Phase.LEAVING;
            path = ourPath;
            session = ourSession;
        }
        String name = BatonPaths.nodeName(path);
        Signal signal = new Signal();
        WatchScope watches = new WatchScope(client, signal);
        boolean deleted = false;    // our node is gone: we deleted it, or it vanished
        boolean vanished = false;   // it went without us (session expired, or deleted by someone else)
        boolean watchChildren = false;
        boolean done = false;
        try {
            while (true) {
                int mark = signal.mark();
                if (watchChildren) {
                    watches.watching(barrierPath, Watcher.WatcherType.Children);
                }
                List<String> members = listMembers(watchChildren ? signal : null);
                boolean readyPresent = members.remove(READY_NODE);
                Collections.sort(members);
                if (!deleted && !members.contains(name)) {
                    deleted = true;
                    vanished = true;
                }
                if (members.isEmpty()) {
                    if (readyPresent && vanished) {
                        // We were meant to leave last but our node went without us: clean up for everyone.
                        client.delete().quietly().forPath(readyPath);
                    }
                    done = true;
                    return true;
                }
                if (!deleted && members.size() == 1) {
                    leaveLast(path, readyPresent);
                    deleted = true;
                    done = true;
                    return true;
                }
                if (!deleted && members.get(0).equals(name)) {
                    // We are the lowest: we go last, watching the member list until we are alone.
                    if (!watchChildren) {
                        watchChildren = true;
                        continue; // list again, this time leaving a watch
                    }
                } else {
                    if (!deleted) {
                        client.delete().quietly().forPath(path); // quietly: a retry after connection loss
                        deleted = true;
                        members.remove(name);
                        if (members.isEmpty()) {
                            continue;
                        }
                    }
                    watchChildren = false;
                    String lowest = BatonPaths.makePath(barrierPath, members.get(0));
                    watches.watching(lowest, Watcher.WatcherType.Data);
                    if (client.checkExists().usingWatcher(signal).forPath(lowest) == null) {
                        continue; // already gone: look again
                    }
                }
                if (!signal.await(mark, deadline)) {
                    watches.close(true);
                    if (!deleted) {
                        client.delete().guaranteed().quietly().forPath(path);
                        deleted = true;
                    }
                    return false;
                }
            }
        } finally {
            synchronized (this) {
                phase = Phase.IDLE;
                ourPath = null;
            }
            watches.close(!done);
            if (!done && !deleted) {
                deleteInBackground(path, session);
            }
        }
    }

    private List<String> listMembers(Watcher watcher) throws KeeperException, InterruptedException {
        try {
            List<String> children = watcher == null ? client.getChildren().forPath(barrierPath)
                    : client.getChildren().usingWatcher(watcher).forPath(barrierPath);
            return new ArrayList<>(children);
        } catch (KeeperException.NoNodeException e) {
            return new ArrayList<>();
        }
    }

    /** The last member out removes its node and {@code ready} in one transaction. */
    private void leaveLast(String path, boolean readyPresent) throws KeeperException, InterruptedException {
        if (!readyPresent) {
            client.delete().quietly().forPath(path);
            return;
        }
        try {
            client.transaction().forOperations(
                    client.transactionOp().delete().forPath(path),
                    client.transactionOp().delete().forPath(readyPath));
        } catch (KeeperException.NoNodeException e) {
            // Someone else removed one of the two meanwhile (a Curator member removes ready after its node).
            failedWrites.incrementAndGet();
            client.delete().quietly().forPath(path);
        }
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

    @Override
    public String toString() {
        return "DistributedDoubleBarrier[" + barrierPath + ", memberQty=" + memberQty + "]";
    }
}
