package dev.baton.internal;

import dev.baton.listen.Listenable;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A thread-safe {@link Listenable} that calls each listener on its own executor and isolates listeners from
 * each other: an exception thrown by one listener is passed to the error handler and the others still run.
 *
 * <p>Recipes and the client use it for all their listener lists.
 *
 * @param <T> the listener type
 */
public final class ListenerContainer<T> implements Listenable<T> {
    private final Map<T, Executor> listeners = new ConcurrentHashMap<>();
    private final Executor defaultExecutor;
    private final BiConsumer<String, Throwable> errorHandler;

    /**
     * Creates a container.
     *
     * @param defaultExecutor where listeners added without an executor are called
     * @param errorHandler told about exceptions thrown by listeners
     * @throws NullPointerException if an argument is null
     */
    public ListenerContainer(Executor defaultExecutor, BiConsumer<String, Throwable> errorHandler) {
        this.defaultExecutor = Objects.requireNonNull(defaultExecutor, "defaultExecutor");
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
    }

    @Override
    public void addListener(T listener) {
        addListener(listener, defaultExecutor);
    }

    @Override
    public void addListener(T listener, Executor executor) {
        listeners.put(Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(executor, "executor"));
    }

    @Override
    public void removeListener(T listener) {
        if (listener != null) {
            listeners.remove(listener);
        }
    }

    /** Removes every listener. */
    public void clear() {
        listeners.clear();
    }

    /** {@return how many listeners are registered} */
    public int size() {
        return listeners.size();
    }

    /**
     * Calls {@code action} for every listener, each on the listener's executor. Exceptions thrown by the action
     * (or a rejected executor) go to the error handler.
     *
     * @param action what to do with each listener
     */
    public void forEach(Consumer<? super T> action) {
        Objects.requireNonNull(action, "action");
        listeners.forEach((listener, executor) -> {
            try {
                executor.execute(() -> {
                    try {
                        action.accept(listener);
                    } catch (Throwable e) {
                        errorHandler.accept("listener " + listener + " threw", e);
                    }
                });
            } catch (Throwable e) {
                errorHandler.accept("could not call listener " + listener, e);
            }
        });
    }
}
