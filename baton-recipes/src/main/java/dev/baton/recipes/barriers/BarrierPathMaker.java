package dev.baton.recipes.barriers;

import static dev.baton.recipes.barriers.BarrierCall.done;
import static dev.baton.recipes.barriers.BarrierCall.failed;
import static dev.baton.recipes.barriers.BarrierCall.outcome;
import static dev.baton.recipes.barriers.BarrierCall.then;

import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Requests;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the members of a double barrier make a new barrier path without a create that is expected to fail (see
 * {@link #ensure}): the path-creation part of {@link DistributedDoubleBarrier}. Thread-safe; no state of its own
 * besides a count of failed path writes, for tests.
 */
final class BarrierPathMaker {
    private static final Logger LOG = LoggerFactory.getLogger(BarrierPathMaker.class);
    /** Names the markers of members agreeing on who creates a new path: {@code _c_<uuid>-<name>.creating-<seq>}. */
    static final String CREATING_MARKER = ".creating-";

    private final BatonClient client;
    private final AtomicInteger failedPathCreates;

    /**
     * @param failedPathCreates counts path writes that failed (a parent missing, a path swept or made by a foreign
     *     client)
     */
    BarrierPathMaker(BatonClient client, AtomicInteger failedPathCreates) {
        this.client = client;
        this.failedPathCreates = failedPathCreates;
    }

    /**
     * Makes sure {@code path} exists, without a create that is expected to fail. Members arriving at an existing
     * path (the usual case) only check it. Members that find a new path missing agree on one of them to create
     * it: each adds a marker beside the path (see {@link DistributedDoubleBarrier}'s class comment); the member whose marker sorts first
     * creates the path and deletes its marker in one transaction, while the others watch that marker and go on
     * once it is gone. Should that member die first, its marker vanishes all the same: the
     * caller's create under the path then finds it missing and asks again. Every member deletes its own marker.
     * A missing parent is made the same way one level up (the marker create that finds it missing is the one
     * failed write left, once per member and missing level).
     *
     * @return a future of false if the call was given up first (the marker is removed)
     */
    CompletableFuture<Boolean> ensure(BarrierCall call, String path) {
        return call.send(client.checkExists(), path)
                .thenCompose(stat -> stat != null ? outcome(true) : makePath(call, path));
    }

    private CompletableFuture<Boolean> makePath(BarrierCall call, String path) {
        String parent = BatonPaths.parent(path);
        String markerPrefix = BatonPaths.nodeName(path) + CREATING_MARKER;
        // Protected: a marker whose create met connection loss must not be left (first in line) behind.
        CompletableFuture<String> created = Requests.send(false, client.create().withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL), BatonPaths.makePath(parent, markerPrefix));
        CompletableFuture<List<String>> listed = Requests.send(false, client.getChildren(), parent); // pipelined
        return then(call.settle(created), (marker, error) -> {
            if (error == null) {
                return new PathMaker(call, path, marker).run(listed);
            }
            listed.exceptionally(e -> null);
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                failedPathCreates.incrementAndGet();
                return ensure(call, parent).thenCompose(made -> made ? ensure(call, path) : outcome(false));
            }
            created.thenAccept(this::deleteMarker); // interrupted while it was in flight: it must not stay
            return failed(error);
        });
    }

    /** One member's part in making a new path, once its marker is there (see {@link #ensure}). */
    private final class PathMaker {
        private final BarrierCall call;
        private final String path;
        private final String parent;
        private final String name;
        private final String marker;
        private final Signal signal;
        private final WatchScope watch;
        private List<String> children;
        private boolean ours = true; // our marker is ours to delete
        private boolean fired = true;

        PathMaker(BarrierCall call, String path, String marker) {
            this.call = call;
            this.path = path;
            this.parent = BatonPaths.parent(path);
            this.name = BatonPaths.nodeName(path);
            this.marker = marker;
            this.signal = call.newSignal();
            this.watch = new WatchScope(client, signal);
        }

        CompletableFuture<Boolean> run(CompletableFuture<List<String>> listed) {
            return then(call.settle(listed).thenCompose(found -> {
                children = found;
                return Requests.repeat(this::round, null);
            }), (made, error) -> {
                watch.close(!fired);
                if (ours) {
                    deleteMarker(marker);
                }
                return error != null ? failed(error) : outcome(made);
            });
        }

        /** Null: the member list changed (a connection event); decide again. */
        private CompletableFuture<Boolean> round() {
            if (children.contains(name)) {
                return outcome(true);
            }
            String first = BatonPaths.makePath(parent, markers(children, name + CREATING_MARKER).get(0));
            if (first.equals(marker)) {
                return createPath(call, path, marker).thenApply(v -> {
                    ours = false;
                    return true;
                });
            }
            int mark = signal.mark();
            watch.watching(first, Watcher.WatcherType.Data);
            return call.watchIfPresent(first, signal).thenCompose(present -> {
                if (!present) {
                    return outcome(true); // its member made the path (or died: the caller will find out)
                }
                return call.await(signal, mark).thenCompose(event -> {
                    if (!event) {
                        fired = false;
                        return outcome(false);
                    }
                    if (signal.sawDeleted()) {
                        return outcome(true);
                    }
                    return call.send(client.getChildren(), parent).thenApply(found -> { // look again
                        children = found;
                        return null;
                    });
                });
            });
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
    private CompletableFuture<Void> createPath(BarrierCall call, String path, String marker) {
        List<BatonOp> operations = List.of(
                client.transactionOp().create().withMode(CreateMode.CONTAINER).forPath(path),
                client.transactionOp().delete().forPath(marker));
        return then(call.send(operations), (v, error) -> {
            if (error == null) {
                return done();
            }
            if (Failures.code(error) == KeeperException.Code.NODEEXISTS) {
                // Created by a client that takes no part in the markers (a Curator member).
                failedPathCreates.incrementAndGet();
                return call.send(client.delete().guaranteed().quietly(), marker);
            }
            return failed(error);
        });
    }

    private void deleteMarker(String marker) {
        try {
            client.delete().guaranteed().quietly().forPathAsync(marker).exceptionally(error -> null);
        } catch (RuntimeException e) {
            LOG.debug("Path-creation marker {} not removed: client closed", marker, e);
        }
    }
}
