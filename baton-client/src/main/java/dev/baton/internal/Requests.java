package dev.baton.internal;

import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.BatonTransactionResult;
import dev.baton.PathAndBytesable;
import dev.baton.Pathable;
import dev.baton.TransactionBuilder;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

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
     * {@return the request's future; complete already in blocking mode}
     *
     * @param blocking true to run the request on this thread
     * @param request a built request, such as {@code client.getData().storingStatIn(stat)}
     * @param path the path to send it for
     * @param <T> the request's result
     */
    public static <T> CompletableFuture<T> send(boolean blocking, Pathable<T> request, String path) {
        try {
            return blocking ? CompletableFuture.completedFuture(request.forPath(path)) : request.forPathAsync(path);
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * {@return the request's future; complete already in blocking mode}
     *
     * @param blocking true to run the request on this thread
     * @param request a built request that takes data, such as {@code client.setData().withVersion(v)}
     * @param path the path to send it for
     * @param data the data to send
     * @param <T> the request's result
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
     * {@return the transaction's future; complete already in blocking mode}
     *
     * @param blocking true to run the transaction on this thread
     * @param transaction the client's {@code transaction()}
     * @param operations the operations, made by {@code transactionOp()}
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

    /**
     * Runs {@code round} until it gives a result; a round that gives null asks for another. Rounds that complete
     * at once (blocking mode) loop right here; otherwise the next round starts from the previous one's
     * completion. Either way the stack does not grow with the number of rounds. A round's failure (or one thrown
     * while starting it) fails the result with the cause itself.
     *
     * @param round starts one round
     * @param stopWhenDone once this future is done (an asynchronous caller gave up), no further round starts
     *     and the result is cancelled; null for none
     * @param <R> the result's type
     * @return the first non-null result of a round
     */
    public static <R> CompletableFuture<R> repeat(Supplier<CompletableFuture<R>> round,
            @Nullable CompletableFuture<?> stopWhenDone) {
        CompletableFuture<R> result = new CompletableFuture<>();
        repeat(round, stopWhenDone, result);
        return result;
    }

    private static <R> void repeat(Supplier<CompletableFuture<R>> round, @Nullable CompletableFuture<?> stopWhenDone,
            CompletableFuture<R> result) {
        while (true) {
            if (stopWhenDone != null && stopWhenDone.isDone()) {
                result.cancel(false);
                return;
            }
            CompletableFuture<R> attempt;
            try {
                attempt = round.get();
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return;
            }
            if (!attempt.isDone()) {
                Futures.whenDone(attempt, (value, error) -> {
                    if (error != null) {
                        result.completeExceptionally(Failures.unwrap(error));
                    } else if (value != null) {
                        result.complete(value);
                    } else {
                        repeat(round, stopWhenDone, result);
                    }
                });
                return;
            }
            R value;
            try {
                value = attempt.join();
            } catch (CompletionException | CancellationException e) {
                result.completeExceptionally(Failures.unwrap(e));
                return;
            }
            if (value != null) {
                result.complete(value);
                return;
            }
        }
    }

    /**
     * Fails a blocking recipe call made on ZooKeeper's event thread (inside a watcher or a callback): the reply or
     * event it would wait for could only be delivered by that very thread, so the wait could never end.
     *
     * @param client the client whose event thread is meant
     * @param what what the caller was about to do, as in "cannot {@code what} on ZooKeeper's event thread"
     * @throws IllegalStateException on the event thread
     */
    public static void requireNotEventThread(BatonClient client, String what) {
        if (client.isEventThread()) {
            throw new IllegalStateException("cannot " + what + " on ZooKeeper's event thread (inside a watcher or "
                    + "a callback): the wait could never end; use the asynchronous form there");
        }
    }

    /**
     * Lets a {@code close()} wait for work it cannot cancel (a create in flight, say) to finish, where waiting can
     * end: not on ZooKeeper's event thread (which would have to deliver the reply), not while disconnected, and for
     * at most one session timeout. The work is expected to finish in the background whenever this gives up.
     *
     * @param client the client the work runs on
     * @param inFlight completes when the work is done
     * @return true if the work is done
     */
    public static boolean awaitAtClose(BatonClient client, CompletableFuture<?> inFlight) {
        if (inFlight.isDone()) {
            return true;
        }
        if (!client.isConnected() || client.isEventThread()) {
            return false;
        }
        try {
            inFlight.get(client.getSessionTimeout().toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (TimeoutException | IllegalStateException e) {
            return false;
        }
    }
}
