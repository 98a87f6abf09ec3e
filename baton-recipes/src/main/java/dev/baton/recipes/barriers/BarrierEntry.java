package dev.baton.recipes.barriers;

import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Requests;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/** One {@code enter}: create our node (and the path, if new), then look and wait until {@code ready}. */
final class BarrierEntry extends BarrierCall {
    private final DistributedDoubleBarrier barrier;
    private final String name = UUID.randomUUID().toString();
    private final Stat created = new Stat();
    private final Signal signal = newSignal();
    private final WatchScope watches = new WatchScope(client, signal);
    private String path;
    private long session;
    /** Our node is gone already (removed by us, or with the session): nothing to clean up. */
    private boolean nodeGone;

    BarrierEntry(DistributedDoubleBarrier barrier, boolean blocking, Deadline deadline) {
        super(barrier.client, blocking, deadline);
        this.barrier = barrier;
    }

    @Override
    CompletableFuture<Boolean> run() {
        return then(Requests.repeat(this::create, null).thenCompose(made -> made ? Requests.repeat(this::look, null) : outcome(false)),
                this::finish);
    }

    /** Makes sure the path exists and creates our node in it: true once created, null to try again. */
    private CompletableFuture<Boolean> create() {
        return barrier.paths.ensure(this, barrier.barrierPath).thenCompose(exists -> {
            if (!exists) {
                return outcome(false);
            }
            String member = BatonPaths.makePath(barrier.barrierPath, name);
            return then(send(client.create().withMode(CreateMode.EPHEMERAL).storingStatIn(created), member),
                    (made, error) -> {
                        if (error == null) {
                            path = member;
                            session = created.getEphemeralOwner();
                            return outcome(true);
                        }
                        if (Failures.code(error) == KeeperException.Code.NONODE) {
                            // The (empty, container) barrier path was swept between the check and the create.
                            barrier.failedPathCreates.incrementAndGet();
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
        return then(send(client.getChildren().storingStatIn(parent), barrier.barrierPath), (children, error) -> {
            if (error != null) {
                if (Failures.code(error) == KeeperException.Code.SESSIONEXPIRED) {
                    nodeGone = true; // and with it our node
                    return failed(KeeperException.create(KeeperException.Code.SESSIONEXPIRED, path));
                }
                return failed(error);
            }
            if (children.contains(DistributedDoubleBarrier.READY_NODE)) {
                return outcome(true);
            }
            if (!children.contains(name)) {
                nodeGone = true;
                return failed(barrier.memberNodeGone(path, session));
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

    private CompletableFuture<Boolean> woken(boolean event) {
        if (!event) {
            watches.close(true);
            return barrier.giveUpNode(this, path).thenApply(v -> {
                nodeGone = true;
                return false;
            });
        }
        if (signal.sawCreated()) {
            return outcome(true); // ready was created: conclusive, no need to list again
        }
        if (barrier.sessionChanged(session)) {
            nodeGone = true;
            return failed(barrier.memberNodeGone(path, session));
        }
        return again(); // a connection event: look again
    }

    /** Sets the phase from the outcome, and does not stay counted as a member unless through. */
    private CompletableFuture<Boolean> finish(Boolean passed, Throwable error) {
        boolean entered = error == null && passed;
        barrier.settle(this, entered ? path : null, session);
        watches.close(!entered && !nodeGone);
        if (!entered && path != null && !nodeGone) {
            // Failed or interrupted: do not stay counted as a member.
            barrier.deleteInBackground(path, session);
        }
        return error != null ? failed(error) : outcome(passed);
    }

    @Override
    void takeBack() {
        barrier.releaseIfOwner(this);
        // Leave as a leave given up at once would: our node goes (with ready, if we are the last one).
        BarrierExit exit = new BarrierExit(barrier, false, Deadline.NONE, path, session);
        exit.giveUp();
        exit.run();
    }
}
