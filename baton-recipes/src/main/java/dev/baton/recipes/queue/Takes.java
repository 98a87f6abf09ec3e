package dev.baton.recipes.queue;

import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.internal.Requests;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;

/**
 * The delete that takes a queue item without a lock path: whoever deletes the item has it, so the delete must say
 * exactly whether it removed the node. The client's plain delete is retried after a connection loss and counts a
 * retry that finds the node gone as done, which is true of one's own nodes but not of an item: another consumer may
 * have taken it meanwhile, and both would consume it (a mixed chaos run caught a Baton consumer doing so). A
 * one-operation transaction is never retried: a connection loss is reported as such, and the item is left alone
 * (if the delete was applied after all, the item is lost, as a queue without a lock path allows: at most once).
 */
final class Takes {
    private Takes() {
    }

    /** Deletes {@code itemPath} once; fails with NoNode if it is gone, with ConnectionLoss if unknown. */
    static CompletableFuture<Void> deleteOnce(BatonClient client, String itemPath) {
        return Requests.send(false, client.transaction(), deleteOp(client, itemPath)).thenApply(results -> null);
    }

    /** {@link #deleteOnce(BatonClient, String)} on this thread. */
    static void deleteOnceBlocking(BatonClient client, String itemPath) throws KeeperException, InterruptedException {
        client.transaction().forOperations(deleteOp(client, itemPath));
    }

    private static List<BatonOp> deleteOp(BatonClient client, String itemPath) {
        return List.of(client.transactionOp().delete().forPath(itemPath));
    }
}
