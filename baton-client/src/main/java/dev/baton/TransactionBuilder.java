package dev.baton;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;

/**
 * Runs several operations atomically (ZooKeeper's {@code multi}): all succeed or none is applied. Build the
 * operations with {@link BatonClient#transactionOp()}.
 */
public interface TransactionBuilder extends Backgroundable<TransactionBuilder.BackgroundTransaction> {

    /**
     * Runs the operations and waits.
     *
     * @param operations the operations, in order
     * @return one result per operation
     * @throws KeeperException the first failing operation's error; nothing was applied
     * @throws InterruptedException if interrupted while waiting
     */
    List<BatonTransactionResult> forOperations(List<BatonOp> operations)
            throws KeeperException, InterruptedException;

    /**
     * As {@link #forOperations(List)}.
     *
     * @param operations the operations, in order
     * @return one result per operation
     * @throws KeeperException the first failing operation's error; nothing was applied
     * @throws InterruptedException if interrupted while waiting
     */
    List<BatonTransactionResult> forOperations(BatonOp... operations) throws KeeperException, InterruptedException;

    /**
     * Runs the operations without blocking.
     *
     * @param operations the operations, in order
     * @return one result per operation, or a future failed with the first failing operation's error
     */
    CompletableFuture<List<BatonTransactionResult>> forOperationsAsync(List<BatonOp> operations);

    /** The last step of a background transaction. */
    interface BackgroundTransaction {
        /**
         * Starts the transaction and returns at once; the outcome arrives as a {@link BatonEvent} with
         * {@link BatonEvent#opResults()}.
         *
         * @param operations the operations, in order
         */
        void forOperations(List<BatonOp> operations);
    }
}
