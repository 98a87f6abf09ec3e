package dev.baton;

import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The result of one operation of a transaction.
 *
 * @param type which operation
 * @param forPath the path the operation named (without the namespace)
 * @param resultPath for a create, the path of the node created; otherwise null
 * @param resultStat for a set-data, the node's new stat; otherwise null
 * @param error {@code 0}, or the ZooKeeper error code of this operation when the transaction failed
 */
public record BatonTransactionResult(BatonOp.Type type, String forPath, @Nullable String resultPath,
        @Nullable Stat resultStat, int error) {
}
