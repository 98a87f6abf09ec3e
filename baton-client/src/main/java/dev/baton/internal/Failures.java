package dev.baton.internal;

import dev.baton.retry.RetryPolicy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * Helpers for the failures of asynchronous operations, for code that composes {@code forPathAsync} futures
 * (recipes among them). Stateless.
 */
public final class Failures {
    private Failures() {
    }

    /**
     * Strips the {@link CompletionException} / {@link ExecutionException} wrappers futures add.
     *
     * @param t a failure
     * @return the first cause that is not such a wrapper
     */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * {@return the ZooKeeper error code if the failure is a {@link KeeperException}, otherwise null}
     *
     * @param t a failure, possibly wrapped
     */
    public static KeeperException.@Nullable Code code(Throwable t) {
        return unwrap(t) instanceof KeeperException ke ? ke.code() : null;
    }

    /**
     * Tells whether a failure says nothing about the server's state: connection loss, operation timeout,
     * session moved or session expired. The request may or may not have been applied.
     *
     * @param t a failure, possibly wrapped
     * @return true for those codes
     */
    public static boolean isConnectionProblem(Throwable t) {
        KeeperException.Code code = code(t);
        return code != null && (RetryPolicy.isRetryableCode(code) || code == KeeperException.Code.SESSIONEXPIRED);
    }

    /**
     * Waits for an operation's future and returns its value, or throws its failure as the blocking form of the
     * operation would: the cause itself if it is a {@link KeeperException}, an {@link InterruptedException}, a
     * runtime exception or an error; anything else wrapped in an {@link IllegalStateException}. Interrupting the
     * wait leaves the future running.
     *
     * @param future an operation's future, such as one from {@code forPathAsync}
     * @param <T> the value's type
     * @return the value
     * @throws KeeperException if the operation failed with one
     * @throws InterruptedException if interrupted while waiting, or the operation failed with one
     * @throws java.util.concurrent.CancellationException if the future was cancelled
     */
    public static <T> T await(CompletableFuture<T> future) throws KeeperException, InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw rethrow(e);
        }
    }

    /**
     * Throws a failed future's cause as it was thrown, as {@link #await} does.
     *
     * @param failure the failure, possibly wrapped
     * @return never; declared so that callers can write {@code throw rethrow(e)}
     * @throws KeeperException if the cause is one
     * @throws InterruptedException if the cause is one
     */
    public static RuntimeException rethrow(Throwable failure) throws KeeperException, InterruptedException {
        Throwable cause = unwrap(failure);
        if (cause instanceof KeeperException ke) {
            throw ke;
        }
        if (cause instanceof InterruptedException ie) {
            throw ie;
        }
        if (cause instanceof RuntimeException re) {
            throw re;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        throw new IllegalStateException(cause);
    }

    /**
     * A failure as a {@link CompletionException} whose cause is the failure itself, for a composition stage to
     * throw on: the stage's future then fails with that cause, not with a wrapper of a wrapper.
     *
     * @param failure the failure, possibly wrapped
     * @return the exception to throw
     */
    public static CompletionException asCompletion(Throwable failure) {
        Throwable cause = unwrap(failure);
        return cause instanceof CompletionException ce ? ce : new CompletionException(cause);
    }

    /**
     * A future that completes as {@code future} does, but fails with the cause itself rather than a
     * {@link CompletionException}: what a recipe hands its callers.
     *
     * @param future a composition's future
     * @param <T> the value's type
     * @return a new future
     */
    public static <T> CompletableFuture<T> unwrapped(CompletableFuture<T> future) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Futures.whenDone(future, (value, error) -> {
            if (error == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(unwrap(error));
            }
        });
        return result;
    }
}
