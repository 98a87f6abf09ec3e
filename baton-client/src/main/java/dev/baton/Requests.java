package dev.baton;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;

/**
 * Sends a request in blocking or in asynchronous mode and gives a future either way, so that an operation written
 * once, as a composition on such futures, serves both its blocking and its asynchronous form (recipes do this).
 * In blocking mode the request runs on the caller's thread and the future is complete when returned, so what is
 * composed on it runs inline, on the caller's thread too; {@link Failures#await} then returns the result or throws
 * the failure as the blocking call would have. A failure to send (a closed client, a bad path) fails the future
 * rather than being thrown. Stateless.
 */
public final class Requests {
    private Requests() {
    }

    /**
     * @param blocking true to run the request on this thread
     * @param request a built request, such as {@code client.getData().storingStatIn(stat)}
     * @param path the path to send it for
     * @param <T> the request's result
     * @return the request's future; complete already in blocking mode
     */
    public static <T> CompletableFuture<T> send(boolean blocking, Pathable<T> request, String path) {
        try {
            return blocking ? CompletableFuture.completedFuture(request.forPath(path)) : request.forPathAsync(path);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * @param blocking true to run the request on this thread
     * @param request a built request that takes data, such as {@code client.setData().withVersion(v)}
     * @param path the path to send it for
     * @param data the data to send
     * @param <T> the request's result
     * @return the request's future; complete already in blocking mode
     */
    public static <T> CompletableFuture<T> send(boolean blocking, PathAndBytesable<T> request, String path,
            byte[] data) {
        try {
            return blocking ? CompletableFuture.completedFuture(request.forPath(path, data))
                    : request.forPathAsync(path, data);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * @param blocking true to run the transaction on this thread
     * @param transaction the client's {@code transaction()}
     * @param operations the operations, made by {@code transactionOp()}
     * @return the transaction's future; complete already in blocking mode
     */
    public static CompletableFuture<List<BatonTransactionResult>> send(boolean blocking,
            TransactionBuilder transaction, List<BatonOp> operations) {
        try {
            return blocking ? CompletableFuture.completedFuture(transaction.forOperations(operations))
                    : transaction.forOperationsAsync(operations);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
