package dev.baton;

import dev.baton.internal.Failures;
import dev.baton.internal.TlsProbe;
import dev.baton.retry.RetryPolicy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs ZooKeeper requests with the client's connection wait and retry policy, in one of two modes.
 *
 * <p>Every operation is written once, as a composition of {@link CompletableFuture}s. In blocking mode each
 * request uses the handle's blocking API on the caller's thread, so every future is already complete when it is
 * returned and the composition runs inline, like straight-line code. In asynchronous mode requests use the
 * callback API and retries are scheduled on the client's scheduler, so no thread waits.
 */
final class Exec {
    private static final Logger LOG = LoggerFactory.getLogger(Exec.class);

    private final ClientCore core;
    private final boolean blocking;
    /** The namespace node made sure of before the first request, as Curator does; null for none. */
    private final @Nullable String namespaceRoot;
    /** The operation this runner serves while operation listeners watch; null otherwise. */
    private final @Nullable Traced traced;

    Exec(ClientCore core, boolean blocking) {
        this(core, blocking, null);
    }

    /**
     * @param namespaceRoot the namespace's own path: before its first request of any kind (a read or a watch as
     *     much as a create), the client creates it if missing, once per client; null for no namespace
     */
    Exec(ClientCore core, boolean blocking, @Nullable String namespaceRoot) {
        this(core, blocking, namespaceRoot, null);
    }

    private Exec(ClientCore core, boolean blocking, @Nullable String namespaceRoot, @Nullable Traced traced) {
        this.core = core;
        this.blocking = blocking;
        this.namespaceRoot = namespaceRoot;
        this.traced = traced;
    }

    /** {@return true for the blocking mode, whose futures are complete when returned} */
    boolean isBlocking() {
        return blocking;
    }

    /** This runner for one watched operation: its retries are counted in {@code operation}. */
    Exec tracing(Traced operation) {
        return new Exec(core, blocking, namespaceRoot, operation);
    }

    /** The session id of the current handle. */
    long sessionId() {
        return core.session().handle().getSessionId();
    }

    /** One request on the current handle, after waiting (up to the connection timeout) for a connection. */
    <T> CompletableFuture<T> once(ZkCall<T> call) {
        String root = namespaceRoot;
        if (root != null && !core.isEnsured(root)) {
            return ensureNamespace(root).thenCompose(v -> connectedOnce(call));
        }
        return connectedOnce(call);
    }

    /**
     * {@link #once} for a request that needs no node, such as a watch registration: it is sent at once, and the
     * namespace node, where it is not yet made sure of, is created right behind it rather than before it.
     * ZooKeeper handles one session's requests in order, so a watch registered this way is in place before any
     * request the caller makes afterwards, including a create of the watched node through another view of the
     * session; waiting for the namespace node first would let such a create slip in ahead of the watch. The
     * result completes once both are done, so the namespace node still exists after the first operation of any
     * kind.
     */
    <T> CompletableFuture<T> onceAheadOfNamespace(ZkCall<T> call) {
        String root = namespaceRoot;
        if (root == null || core.isEnsured(root)) {
            return connectedOnce(call);
        }
        return connected().thenCompose(v -> {
            CompletableFuture<T> sent = invoke(call);
            return ensureNamespace(root).thenCompose(ensured -> sent);
        });
    }

    /**
     * Creates the namespace node and its parents where missing. A failure is logged, not thrown: the request
     * that follows fails for itself if it must (a connection loss is then retried, and the next attempt makes
     * sure of the namespace again).
     */
    private CompletableFuture<Void> ensureNamespace(String root) {
        Exec plain = core.exec(blocking);
        return Creates.mkdirs(core.rootClient(), plain, root, CreateMode.PERSISTENT)
                .handle((v, error) -> {
                    if (error == null) {
                        core.markEnsured(root);
                    } else {
                        LOG.debug("Could not make sure the namespace node {} exists", root, error);
                    }
                    return null;
                });
    }

    private <T> CompletableFuture<T> connectedOnce(ZkCall<T> call) {
        return connected().thenCompose(v -> invoke(call));
    }

    /** Completes once the session is connected, waiting up to the connection timeout (blocking: on this thread). */
    private CompletableFuture<Void> connected() {
        Session session = core.session();
        if (session.isConnected()) {
            return CompletableFuture.completedFuture(null);
        }
        long waitMs = core.config().connectionTimeout().toMillis();
        if (blocking) {
            try {
                if (!session.awaitConnected(waitMs)) {
                    return core.isClosed() ? failed(core.closedException()) : failed(session.notConnected());
                }
            } catch (InterruptedException e) {
                return failed(e);
            }
            return CompletableFuture.completedFuture(null);
        }
        return session.whenConnected(waitMs);
    }

    private <T> CompletableFuture<T> invoke(ZkCall<T> call) {
        ZooKeeper zk;
        try {
            zk = core.session().handle();
        } catch (RuntimeException e) {
            return failed(e);
        }
        if (blocking) {
            try {
                return CompletableFuture.completedFuture(call.sync(zk));
            } catch (KeeperException | InterruptedException | RuntimeException e) {
                return failed(e);
            }
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            call.async(zk, result);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /** {@link #onceAheadOfNamespace} under the retry policy. */
    <T> CompletableFuture<T> retryingAheadOfNamespace(ZkCall<T> call) {
        return retrying(() -> onceAheadOfNamespace(call));
    }

    /** {@link #once} under the retry policy. */
    <T> CompletableFuture<T> retrying(ZkCall<T> call) {
        return retrying(() -> once(call));
    }

    /**
     * Runs {@code attempt}, and runs it again while it fails with a code the retry policy accepts and the policy
     * allows another try.
     */
    <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> attempt) {
        return retrying(attempt, 0, System.nanoTime());
    }

    private <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> attempt, int retryCount, long startNanos) {
        CompletableFuture<T> first;
        try {
            first = attempt.get();
        } catch (RuntimeException e) {
            first = failed(e);
        }
        if (first.isDone() && !first.isCompletedExceptionally()) {
            return first; // the common case of a blocking call: no retry machinery to build
        }
        return first.exceptionallyCompose(error -> {
            Throwable cause = Failures.unwrap(error);
            RetryPolicy policy = core.config().retryPolicy();
            if (cause instanceof KeeperException ke && policy.isRetryable(ke.code()) && !core.isClosed()
                    && !(ke.getCause() instanceof TlsProbe.TlsFailure)) { // refused again if tried again
                Duration elapsed = Duration.ofNanos(System.nanoTime() - startNanos);
                Optional<Duration> delay = policy.delayBeforeRetry(retryCount, elapsed);
                if (delay.isPresent()) {
                    if (traced != null) {
                        traced.retried();
                    }
                    return delay(delay.get()).thenCompose(v -> retrying(attempt, retryCount + 1, startNanos));
                }
            }
            return Exec.<T>failed(cause);
        });
    }

    CompletableFuture<Void> delay(Duration delay) {
        long ms = delay.toMillis();
        if (ms <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        if (blocking) {
            try {
                Thread.sleep(ms);
                return CompletableFuture.completedFuture(null);
            } catch (InterruptedException e) {
                return failed(e);
            }
        }
        return core.pause(Duration.ofMillis(ms));
    }

    static <T> CompletableFuture<T> failed(Throwable t) {
        return CompletableFuture.failedFuture(t);
    }
}
