package dev.baton.recipes.queue;

import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue consumer's requests for one item on the server: claiming it, settling it once consumed, and giving back
 * a lock node. Without a lock path, an item's {@code getData} and {@code delete} are sent back to back, and the
 * consumer whose delete succeeds has it (at most once); with a lock path, the ephemeral lock node
 * {@code <lockPath>/<item name>} (created with a check that the item still exists, in one transaction) and the
 * item's {@code getData} are sent back to back, and the item is settled with its lock node in one transaction, only
 * while the session that made the lock node lives. What becomes of each request is told to the {@link Outcomes}
 * (the {@link Delivery}); this class keeps no state of its own.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ItemClaims {
    private static final Logger LOG = LoggerFactory.getLogger(ItemClaims.class);
    /** How long to wait before sending a settle again after a connection loss. */
    private static final Duration RETRY = Duration.ofMillis(500);

    /** An item claimed and read, waiting to be consumed; {@code lockNode} null without a lock path. */
    record Claimed(
            String name,
            // The item node's bytes as ZooKeeper returned them, handed to the decoder once; never compared or hashed.
            @SuppressWarnings("ArrayRecordComponent") byte[] data,
            @Nullable String lockNode,
            long session) {
    }

    /**
     * What becomes of the claims and settles. A call comes on the thread that completes the request, or at once
     * in {@link #claim} if a request is refused before it is sent (then with the lock of {@code claim}'s caller
     * held, if any).
     */
    interface Outcomes {
        /** The item is claimed and read: it may be consumed. */
        void claimed(Claimed item);

        /** The claim failed; {@code toAnotherConsumer} if another consumer won the item since the listing. */
        void lostRace(String name, boolean toAnotherConsumer);

        /** The queue may have changed unseen (or the lock path is being made again): list it again. */
        void markDirty();

        /** The item is settled (or given up): it may be listed and claimed again. */
        void settled(String name);
    }

    private final BatonClient client;
    private final String queuePath;
    /** Where the lock nodes go; null without a lock path (items are taken at most once). */
    private final @Nullable String lockPath;
    private final Layout layout;
    /** Where the lock nodes of items other consumers hold are noted. */
    private final HeldLocks heldLocks;
    private final Outcomes outcomes;

    ItemClaims(BatonClient client, String queuePath, @Nullable String lockPath, Layout layout, HeldLocks heldLocks,
            Outcomes outcomes) {
        this.client = client;
        this.queuePath = queuePath;
        this.lockPath = lockPath;
        this.layout = layout;
        this.heldLocks = heldLocks;
        this.outcomes = outcomes;
    }

    /** Claims item {@code name}: both requests are sent at once. */
    void claim(String name) {
        String itemPath = BatonPaths.makePath(queuePath, name);
        String lockParent = lockPath;
        if (lockParent == null) {
            CompletableFuture<byte[]> data = read(itemPath);
            CompletableFuture<Void> delete = Takes.deleteOnce(client, itemPath);
            Futures.whenDone(data, (bytes, readError) -> Futures.whenDone(delete, (v, deleteError) -> {
                if (deleteError == null && readError == null) {
                    outcomes.claimed(new Claimed(name, bytes, null, 0));
                    return;
                }
                if (deleteError == null) {
                    LOG.warn("queue item {} was removed but could not be read", itemPath, readError);
                } else if (Failures.isConnectionProblem(deleteError)) {
                    outcomes.markDirty();
                }
                outcomes.lostRace(name, Failures.code(deleteError) == KeeperException.Code.NONODE);
            }));
            return;
        }
        String lockNode = BatonPaths.makePath(lockParent, name);
        long session = session();
        // The lock node's create and a check that the item still exists, in one transaction: no lock node is
        // made (and none has to be removed) for an item another consumer took since the listing.
        var op = client.transactionOp();
        CompletableFuture<?> locked = send(() -> client.transaction().forOperationsAsync(List.of(
                op.create().withMode(CreateMode.EPHEMERAL).forPath(lockNode), op.check().forPath(itemPath))));
        CompletableFuture<byte[]> data = read(itemPath);
        Futures.whenDone(locked, (created, lockError) -> Futures.whenDone(data, (bytes, readError) -> {
            if (lockError == null && readError == null) {
                outcomes.claimed(new Claimed(name, bytes, lockNode, session));
                return;
            }
            boolean race = false;
            String failedPath = Failures.unwrap(lockError) instanceof KeeperException ke ? ke.getPath() : null;
            if (lockError == null) {
                releaseOwnLock(lockNode, session); // the item went between the check and the read, or is unreadable
                race = Failures.code(readError) == KeeperException.Code.NONODE;
            } else if (Failures.code(lockError) == KeeperException.Code.NODEEXISTS) {
                race = true;
                if (readError == null) {
                    heldLocks.add(lockNode); // watched if this consumer runs out of work
                }
            } else if (Failures.code(lockError) == KeeperException.Code.NONODE && itemPath.equals(failedPath)) {
                race = true; // consumed by another since the listing
            } else if (Failures.code(lockError) == KeeperException.Code.NONODE) {
                ensureLockPath(lockParent); // the lock path was removed: make it again and try later
                outcomes.markDirty();
            } else if (Failures.isConnectionProblem(lockError)) {
                releaseLock(lockNode, session); // only if the create was applied after all (ours by session)
                outcomes.markDirty();
            }
            outcomes.lostRace(name, race);
        }));
    }

    private CompletableFuture<byte[]> read(String itemPath) {
        return send(() -> client.getData().forPathAsync(itemPath));
    }

    private static <R> CompletableFuture<R> send(Supplier<CompletableFuture<R>> request) {
        try {
            return request.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Gives back the lock node of an item claimed but not consumed (if claimed with one, in a session that lives). */
    void release(Claimed item) {
        String lockNode = item.lockNode();
        if (lockNode != null) {
            releaseOwnLock(lockNode, item.session());
        }
    }

    /**
     * Settles a consumed item: without a lock path, it was deleted when claimed, so it is settled at once; with one,
     * it is removed (or put back) with its lock node, as below.
     *
     * @param requeue true to put the item back at the end of the queue (its consumer failed, in
     *        {@link ErrorMode#REQUEUE}) rather than remove it
     */
    void settle(Claimed item, boolean requeue) {
        String lockNode = item.lockNode();
        if (lockNode == null) {
            outcomes.settled(item.name());
        } else {
            settle(item.name(), item.data(), lockNode, item.session(), requeue);
        }
    }

    /**
     * Removes a consumed item with its lock node in one transaction (or puts it back at the end of the queue),
     * only while the session that owns the lock node lives. A connection loss leaves the outcome unknown: the
     * same transaction is sent again, and a second application is impossible (its delete of the item fails).
     */
    private void settle(String name, byte[] data, String lockNode, long session, boolean requeue) {
        if (session() != session) {
            LOG.warn("the session that locked queue item {} ended: leaving it for another consumer", name);
            outcomes.settled(name);
            return;
        }
        String itemPath = BatonPaths.makePath(queuePath, name);
        var op = client.transactionOp();
        List<BatonOp> ops = requeue
                ? List.of(op.delete().forPath(itemPath),
                        op.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                                .forPath(BatonPaths.makePath(queuePath, layout.requeuePrefix(name)), data),
                        op.delete().forPath(lockNode))
                : List.of(op.delete().forPath(itemPath), op.delete().forPath(lockNode));
        Futures.whenDone(send(() -> client.transaction().forOperationsAsync(ops)), (results, error) -> {
            if (error == null) {
                outcomes.settled(name);
            } else if (Failures.isConnectionProblem(error) && Failures.code(error) != KeeperException.Code
                    .SESSIONEXPIRED && client.getState() == BatonClient.State.STARTED) {
                client.schedule(() -> settle(name, data, lockNode, session, requeue), RETRY);
            } else {
                if (Failures.code(error) == KeeperException.Code.NONODE
                        && Failures.unwrap(error) instanceof KeeperException ke && itemPath.equals(ke.getPath())) {
                    releaseOwnLock(lockNode, session); // removed meanwhile (an earlier attempt, or remove(id))
                } else if (!Failures.isConnectionProblem(error)) {
                    LOG.warn("could not settle queue item {}", itemPath, Failures.unwrap(error));
                    releaseOwnLock(lockNode, session);
                }
                outcomes.settled(name);
            }
        });
    }

    /** Deletes a lock node this consumer created in {@code session}, if that session lives. */
    private void releaseOwnLock(String lockNode, long session) {
        if (session() == session && client.getState() == BatonClient.State.STARTED) {
            send(() -> client.delete().withVersion(0).quietly().forPathAsync(lockNode)).exceptionally(e -> null);
        }
    }

    /** Deletes a lock node if this consumer's session (the one given) still owns it (it may not exist). */
    private void releaseLock(String lockNode, long session) {
        if (session() != session || client.getState() != BatonClient.State.STARTED) {
            return; // gone with its session
        }
        send(() -> client.checkExists().forPathAsync(lockNode)).thenCompose(s -> {
            if (s == null || s.getEphemeralOwner() != session) {
                return CompletableFuture.completedFuture(null);
            }
            return client.delete().withVersion(s.getVersion()).quietly().forPathAsync(lockNode);
        }).exceptionally(e -> null);
    }

    private void ensureLockPath(String lockParent) {
        send(() -> client.create().creatingParentContainersIfNeeded().forPathAsync(lockParent))
                .exceptionally(e -> null);
    }

    /** {@return the client's session id now; 0 without a session} */
    long session() {
        try {
            return client.getZooKeeper().getSessionId();
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
