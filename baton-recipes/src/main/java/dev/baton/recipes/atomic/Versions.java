package dev.baton.recipes.atomic;

import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.TransactionOp;
import java.util.List;

/**
 * A version-checked write that is exact even at version {@code -1}, which ZooKeeper's {@code setData} reads as
 * "any version" (a node's {@code int} data version wraps from {@code Integer.MAX_VALUE} to
 * {@code Integer.MIN_VALUE} and so passes through -1). Stateless. (The same reasoning as in
 * {@code dev.baton.recipes.shared}; kept per package to keep both package-private.)
 */
final class Versions {
    private Versions() {
    }

    /** Operations that set {@code data} only if the node's version is {@code expectedVersion}. */
    static List<BatonOp> setIfVersion(BatonClient client, String path, byte[] data, int expectedVersion) {
        TransactionOp ops = client.transactionOp();
        if (expectedVersion == -1) {
            // An unchecked set, then a check that the version is now 0, the successor of -1: the transaction
            // fails with BadVersion, changing nothing, unless the version was -1.
            return List.of(ops.setData().forPath(path, data), ops.check().withVersion(0).forPath(path));
        }
        return List.of(ops.setData().withVersion(expectedVersion).forPath(path, data));
    }
}
