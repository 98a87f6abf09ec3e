package dev.baton;

import dev.baton.retry.RetryPolicy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.KeeperException;

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
     * @param t a failure, possibly wrapped
     * @return the ZooKeeper error code if the failure is a {@link KeeperException}, otherwise null
     */
    public static KeeperException.Code code(Throwable t) {
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
     * operation would: a {@link KeeperException} as itself, a runtime exception as itself, anything else wrapped
     * in an {@link IllegalStateException}. Interrupting the wait leaves the future running.
     *
     * @param future an operation's future, such as one from {@code forPathAsync}
     * @param <T> the value's type
     * @return the value
     * @throws KeeperException if the operation failed with one
     * @throws InterruptedException if interrupted while waiting
     */
    public static <T> T await(CompletableFuture<T> future) throws KeeperException, InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof KeeperException ke) {
                throw ke;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(cause);
        }
    }
}
