package dev.baton.recipes.barriers;

import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Requests;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One {@code enter}: create our node (and the path, if new), then look and wait until {@code ready}. */
final class BarrierEntry extends BarrierCall {
    private static final Logger LOG = LoggerFactory.getLogger(BarrierEntry.class);

    private final DistributedDoubleBarrier barrier;
    private final String name = UUID.randomUUID().toString();
    private final Stat created = new Stat();
    private final Signal signal = newSignal();
    private final WatchScope watches = new WatchScope(client, signal);
    /** Our member node; null until created. */
    private @Nullable String path;
    private long session;
    /** Our node is gone already (removed by us, or with the session): nothing to clean up. */
    private boolean nodeGone;
    /** The member list sent right behind our create, with the barrier node's stat in {@link #listedStat}. */
    private @Nullable CompletableFuture<List<String>> listedAhead;
    private final Stat listedStat = new Stat();

    BarrierEntry(DistributedDoubleBarrier barrier, boolean blocking, Deadline deadline) {
        super(barrier.client, blocking, deadline);
        this.barrier = barrier;
    }

    @Override
    CompletableFuture<Boolean> run() {
        return then(Requests.repeat(this::create, null).thenCompose(made -> made ? Requests.repeat(this::look, null) : outcome(false)),
                this::finish);
    }

    /**
     * Creates our node: straight in (one request), as the path exists for all but the members that arrive first.
     * On a missing path, the path (with any missing ancestors, as containers), our node and the member list, sent
     * back to back. True once created, null to try again.
     */
    private CompletableFuture<Boolean> create() {
        String member = BatonPaths.makePath(barrier.barrierPath, name);
        listedAhead = null; // one sent behind a create of an earlier round that failed
        return then(send(client.create().withMode(CreateMode.EPHEMERAL).storingStatIn(created), member),
                (made, error) -> {
                    if (error == null) {
                        return created(member);
                    }
                    KeeperException.Code code = Failures.code(error);
                    if (code == KeeperException.Code.NONODE) {
                        barrier.failedPathCreates.incrementAndGet();
                        return createWithPath(member);
                    }
                    if (code == KeeperException.Code.NODEEXISTS) {
                        return adopt(member, error);
                    }
                    return failed(error);
                });
    }

    /**
     * The barrier path is missing: create it, and pipelined behind it our node. Members arriving together all
     * try; every one but the first finds the path there ({@code NodeExists}, ignored) and its node made all the
     * same, in the same round trip.
     */
    private CompletableFuture<Boolean> createWithPath(String member) {
        CompletableFuture<String> madePath = Requests.send(false,
                client.create().creatingParentContainersIfNeeded().withMode(CreateMode.CONTAINER), barrier.barrierPath);
        CompletableFuture<String> madeNode = createNode(member);
        return then(settle(madePath), (p, pathError) -> then(settle(madeNode), (made, error) -> {
            if (error == null) {
                return created(member);
            }
            if (pathError != null && Failures.code(pathError) != KeeperException.Code.NODEEXISTS) {
                return failed(pathError);
            }
            if (pathError != null) {
                barrier.failedPathCreates.incrementAndGet();
            }
            KeeperException.Code code = Failures.code(error);
            if (code == KeeperException.Code.NONODE) {
                return again(); // ancestors had to be made first, or the empty path was swept again
            }
            if (code == KeeperException.Code.NODEEXISTS) {
                return adopt(member, error);
            }
            return failed(error);
        }));
    }

    /**
     * Sends the create of our node and, right behind it, the member list (ZooKeeper answers one session's
     * requests in order, so the list shows our node if the create succeeded): entering a new path then costs one
     * round trip less, and no request more. Not done for the first create, which on a new path fails: its list
     * would be wasted, and a barrier path is usually new.
     */
    private CompletableFuture<String> createNode(String member) {
        CompletableFuture<String> made = Requests.send(false,
                client.create().withMode(CreateMode.EPHEMERAL).storingStatIn(created), member);
        listedAhead = Requests.send(false, client.getChildren().storingStatIn(listedStat), barrier.barrierPath);
        return made;
    }

    private CompletableFuture<Boolean> created(String member) {
        path = member;
        session = created.getEphemeralOwner();
        return outcome(true);
    }

    /** Our member node: {@code look}, {@code woken} and {@code takeBack} run only once it is created. */
    private String member() {
        return Objects.requireNonNull(path, "the member node is created first");
    }

    /**
     * Our node's name is ours alone (a random UUID), so it exists because an earlier try of this create reached
     * the server though its reply was lost: ours if our session owns it.
     */
    private CompletableFuture<Boolean> adopt(String member, Throwable error) {
        return send(client.checkExists(), member).thenCompose(stat -> {
            if (stat == null || barrier.sessionChanged(stat.getEphemeralOwner())) {
                return failed(error);
            }
            created.setCzxid(stat.getCzxid());
            created.setEphemeralOwner(stat.getEphemeralOwner());
            return created(member);
        });
    }

    /** Lists the members once and decides: through, wait for {@code ready}, or fail. Null: look again. */
    private CompletableFuture<Boolean> look() {
        int mark = signal.mark();
        Stat parent = new Stat();
        return then(listMembers(parent), (children, error) -> {
            if (error != null) {
                if (Failures.code(error) == KeeperException.Code.SESSIONEXPIRED) {
                    nodeGone = true; // and with it our node
                    return failed(KeeperException.create(KeeperException.Code.SESSIONEXPIRED, member()));
                }
                return failed(error);
            }
            if (children.contains(DistributedDoubleBarrier.READY_NODE)) {
                return outcome(true);
            }
            if (!children.contains(name)) {
                nodeGone = true;
                return failed(barrier.memberNodeGone(member(), session));
            }
            if (children.size() >= barrier.memberQty && parent.getPzxid() == created.getCzxid()) {
                return barrier.createReady(this).thenApply(v -> true);
            }
            watches.watching(barrier.readyPath, Watcher.WatcherType.Data);
            return send(client.checkExists().usingWatcher(signal), barrier.readyPath).thenCompose(ready -> {
                if (ready != null) {
                    return outcome(true); // created between our list and our check
                }
                return await(signal, mark).thenCompose(this::woken);
            });
        });
    }

    /**
     * The member list and the barrier node's stat: the list sent behind our create, the first time, if it shows
     * our node; otherwise a new one.
     */
    private CompletableFuture<List<String>> listMembers(Stat parent) {
        CompletableFuture<List<String>> ahead = listedAhead;
        listedAhead = null;
        if (ahead == null) {
            return send(client.getChildren().storingStatIn(parent), barrier.barrierPath);
        }
        return then(settle(ahead), (children, error) -> {
            if (error == null && children.contains(name)) {
                parent.setPzxid(listedStat.getPzxid());
                return outcome(children);
            }
            return send(client.getChildren().storingStatIn(parent), barrier.barrierPath);
        });
    }

    private CompletableFuture<Boolean> woken(boolean event) {
        if (!event) {
            watches.close(true);
            return barrier.giveUpNode(this, member()).thenApply(v -> {
                nodeGone = true;
                return false;
            });
        }
        if (signal.sawCreated()) {
            return outcome(true); // ready was created: conclusive, no need to list again
        }
        if (barrier.sessionChanged(session)) {
            nodeGone = true;
            return failed(barrier.memberNodeGone(member(), session));
        }
        return again(); // a connection event: look again
    }

    /** Sets the phase from the outcome, and does not stay counted as a member unless through. */
    private CompletableFuture<Boolean> finish(Boolean passed, @Nullable Throwable error) {
        boolean entered = error == null && passed;
        String node = path;
        barrier.settle(this, entered ? node : null, session);
        watches.close(!entered && !nodeGone);
        if (!entered && node != null && !nodeGone) {
            // Failed or interrupted: do not stay counted as a member.
            barrier.deleteInBackground(node, session);
        }
        return error != null ? failed(error) : outcome(passed);
    }

    @Override
    void takeBack() {
        barrier.releaseIfOwner(this);
        // Leave as a leave given up at once would: our node goes (with ready, if we are the last one).
        String node = member();
        BarrierExit exit = new BarrierExit(barrier, false, Deadline.NONE, node, session);
        exit.giveUp();
        Futures.whenDone(exit.run(), (left, error) -> {
            if (error != null) { // the exit deletes the node in the background
                LOG.debug("Barrier member {} taken back with a failure", node, Failures.unwrap(error));
            }
        });
    }
}
