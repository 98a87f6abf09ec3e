package dev.baton.internal;

import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of an asynchronous chain: a callback that handles an outcome itself and returns nothing anyone reads.
 *
 * <p>{@code stage.whenComplete(action)} returns a new future that carries any exception {@code action} throws;
 * dropped, that exception is never seen. {@link #whenDone} logs it instead, so that a bug in a callback shows up
 * in the log rather than as a recipe that silently stops.
 */
public final class Futures {

    private static final Logger LOG = LoggerFactory.getLogger(Futures.class);

    private Futures() {
    }

    /**
     * Runs {@code action} with the outcome of {@code stage} once it completes, on the thread that completes it (or
     * the caller's, if it is already complete). An exception thrown by {@code action} is logged at error level.
     *
     * @param stage the work
     * @param action receives the value (null on failure) and the failure (null on success)
     * @param <T> the type of the value
     */
    // The future whenComplete returns carries only what the action throws, which the action's wrapper logs.
    @SuppressWarnings("FutureReturnValueIgnored")
    public static <T> void whenDone(
            CompletionStage<T> stage, BiConsumer<? super @Nullable T, ? super @Nullable Throwable> action) {
        stage.whenComplete((value, error) -> {
            try {
                action.accept(value, error);
            } catch (RuntimeException | Error e) {
                LOG.error("A callback of an asynchronous operation failed", e);
            }
        });
    }
}
