package dev.baton.recipes.barriers;

import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Requests;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;

/** One {@code leave}: the lowest member goes last, the others at once (see {@link DistributedDoubleBarrier}'s class comment). */
final class BarrierExit extends BarrierCall {
    /** How long a leave waits before it asks again when its session has just expired. */
    private static final Duration SESSION_SWITCH_PAUSE = Duration.ofMillis(20);

    private final DistributedDoubleBarrier barrier;
    private final String path;
    private final long session;
    private final String name;
    private final Signal signal = newSignal();
    private final WatchScope watches = new WatchScope(client, signal);
    private boolean deleted;    // our node is gone: we deleted it, or it vanished
    private boolean watchChildren;
    private boolean done;

    BarrierExit(DistributedDoubleBarrier barrier, boolean blocking, Deadline deadline, String path,
            long session) {
        super(barrier.client, blocking, deadline);
        this.barrier = barrier;
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
            watches.watching(barrier.barrierPath, Watcher.WatcherType.Children);
        }
        return members(watchChildren ? signal : null).thenCompose(members -> {
            boolean readyPresent = members.remove(DistributedDoubleBarrier.READY_NODE);
            Collections.sort(members);
            if (!members.contains(name)) {
                deleted = true; // it went without us (its session expired, or someone else removed it)
            }
            if (members.isEmpty()) {
                // The round is over but ready stands: the last member went without taking it (its node vanished
                // with its session, or was removed in the background after its leave failed). Clear it for
                // everyone, or the next round would pass a barrier still open.
                CompletableFuture<Void> cleanup = readyPresent
                        ? send(client.delete().quietly(), barrier.readyPath) : done();
                return cleanup.thenApply(v -> {
                    done = true;
                    return true;
                });
            }
            if (!deleted && members.size() == 1) {
                return barrier.leaveLast(this, path, readyPresent).thenApply(v -> {
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
                String lowest = BatonPaths.makePath(barrier.barrierPath, members.get(0));
                watches.watching(lowest, Watcher.WatcherType.Data);
                return watchIfPresent(lowest, signal)
                        .thenCompose(present -> present ? waitAfter(mark) : again()); // gone: look again
            });
        });
    }

    /**
     * The member list. A session that expired meanwhile took our node with it (we have left, involuntarily);
     * the client may not have its next session yet when we hear of it, so the list is asked for again shortly,
     * until it comes from the next session.
     */
    private CompletableFuture<List<String>> members(@Nullable Watcher watcher) {
        return then(barrier.listMembers(this, watcher), (members, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(members);
            }
            if (Failures.code(error) != KeeperException.Code.SESSIONEXPIRED) {
                return failed(error);
            }
            deleted = true; // our node went with the session: we have left, involuntarily
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

    private CompletableFuture<Boolean> finish(Boolean passed, @Nullable Throwable error) {
        barrier.settle(this, null, 0);
        watches.close(!done);
        if (!done && !deleted) {
            barrier.deleteInBackground(path, session);
        }
        return error != null ? failed(error) : outcome(passed);
    }

    @Override
    void takeBack() {
        // Left all the same, after the caller gave up: nothing to undo.
    }
}
