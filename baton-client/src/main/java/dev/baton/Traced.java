package dev.baton;

import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * One operation being watched for the {@link OperationListener}s: counts its retries (the {@link Exec} running
 * it calls {@link #retried()}) and reports its outcome. Made only while a listener is registered, so an
 * unobserved client builds none.
 */
final class Traced {
    private static final AtomicIntegerFieldUpdater<Traced> RETRIES =
            AtomicIntegerFieldUpdater.newUpdater(Traced.class, "retries");

    private final ClientCore core;
    private final BatonEventType type;
    private final @Nullable String path;
    private final long startNanos = System.nanoTime();
    /** Bumped from whichever thread decides a retry; parallel parts of one operation (a tree delete) add up. */
    private volatile int retries;

    Traced(ClientCore core, BatonEventType type, @Nullable String path) {
        this.core = core;
        this.type = type;
        this.path = path;
    }

    void retried() {
        RETRIES.incrementAndGet(this);
    }

    /**
     * Reports {@code operation}'s outcome once it is known: at once, without a stage, when it is already complete
     * (a blocking operation always is).
     */
    <T> CompletableFuture<T> report(CompletableFuture<T> operation) {
        if (operation.isDone()) {
            if (operation.isCompletedExceptionally()) {
                Futures.whenDone(operation, (value, error) -> completed(null, error));
            } else {
                completed(operation.getNow(null), null);
            }
        } else {
            Futures.whenDone(operation, this::completed);
        }
        return operation;
    }

    private void completed(@Nullable Object value, @Nullable Throwable error) {
        KeeperException.Code code;
        if (error == null) {
            code = type == BatonEventType.EXISTS && value == null ? KeeperException.Code.NONODE
                    : KeeperException.Code.OK;
        } else {
            KeeperException.Code failed = Failures.code(error);
            code = failed != null ? failed : KeeperException.Code.SYSTEMERROR;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
        core.reportOperation(new OperationEvent(type, path, took, code, retries));
    }
}
