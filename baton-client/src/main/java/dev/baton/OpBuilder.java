package dev.baton;

import dev.baton.internal.Failures;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * The common last steps of every operation builder: blocking, future and background forms all run the one
 * composition {@link #run}, in blocking or asynchronous mode.
 *
 * @param <T> the operation's result
 */
abstract class OpBuilder<T> {
    final DefaultBatonClient client;
    /** True while {@link #run} serves {@code inBackground}: the event reports a stat the caller did not ask for. */
    boolean forEvent;

    OpBuilder(DefaultBatonClient client) {
        this.client = client;
    }

    /**
     * The operation. Validates its arguments and throws at once for bad input; everything else is in the future.
     *
     * @param data the data for operations that take it; null when the caller gave none
     */
    abstract CompletableFuture<T> run(Exec exec, String path, byte @Nullable [] data);

    /** The event reported for a successful result. */
    abstract BatonEvent successEvent(String path, T result);

    /** What the background event reports. */
    abstract BatonEventType eventType();

    /** Runs the operation, reported to the operation listeners when there are any. */
    private CompletableFuture<T> start(boolean blocking, String path, byte @Nullable [] data) {
        Exec exec = client.exec(blocking);
        ClientCore core = client.core();
        if (!core.isObserved()) {
            return run(exec, path, data);
        }
        Traced traced = new Traced(core, eventType(), path);
        return traced.report(run(exec.tracing(traced), path, data));
    }

    public T forPath(String path) throws KeeperException, InterruptedException {
        return Failures.await(start(true, path, null));
    }

    public T forPath(String path, byte[] data) throws KeeperException, InterruptedException {
        return Failures.await(start(true, path, Objects.requireNonNull(data, "data")));
    }

    public CompletableFuture<T> forPathAsync(String path) {
        return start(false, path, null);
    }

    public CompletableFuture<T> forPathAsync(String path, byte[] data) {
        return start(false, path, Objects.requireNonNull(data, "data"));
    }

    public BackgroundPathAndBytesable inBackground() {
        return new Background(null, null);
    }

    public BackgroundPathAndBytesable inBackground(BackgroundCallback callback) {
        return new Background(Objects.requireNonNull(callback, "callback"), null);
    }

    public BackgroundPathAndBytesable inBackground(BackgroundCallback callback, Executor executor) {
        return new Background(Objects.requireNonNull(callback, "callback"),
                Objects.requireNonNull(executor, "executor"));
    }

    private final class Background implements BackgroundPathAndBytesable {
        private final @Nullable BackgroundCallback callback;
        private final @Nullable Executor executor;

        Background(@Nullable BackgroundCallback callback, @Nullable Executor executor) {
            this.callback = callback;
            this.executor = executor;
        }

        @Override
        public void forPath(String path) {
            start(path, null);
        }

        @Override
        public void forPath(String path, byte[] data) {
            start(path, Objects.requireNonNull(data, "data"));
        }

        private void start(String path, byte @Nullable [] data) {
            forEvent = true;
            CompletableFuture<T> future = OpBuilder.this.start(false, path, data);
            client.deliver(future, eventType(), path, result -> successEvent(path, result), this.callback, executor);
        }
    }
}
