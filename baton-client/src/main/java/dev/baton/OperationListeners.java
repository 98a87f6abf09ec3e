package dev.baton;

import dev.baton.listen.Listenable;
import dev.baton.state.ConnectionState;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The client's {@link OperationListener}s. Unlike the other listener lists, this one sits on every operation's
 * path, so it is an array read without a lock: an unobserved client pays one volatile read per operation, and a
 * listener added without an executor is called directly, with nothing allocated for the call.
 */
final class OperationListeners implements Listenable<OperationListener> {
    private static final Entry[] NONE = new Entry[0];

    /** A listener, and the executor it is called on; null to call it directly. */
    private record Entry(OperationListener listener, @Nullable Executor executor) {
    }

    private final Object lock = new Object();
    private final BiConsumer<String, Throwable> errorHandler;
    private volatile Entry[] entries = NONE;

    OperationListeners(BiConsumer<String, Throwable> errorHandler) {
        this.errorHandler = errorHandler;
    }

    @Override
    public void addListener(OperationListener listener) {
        add(Objects.requireNonNull(listener, "listener"), null);
    }

    @Override
    public void addListener(OperationListener listener, Executor executor) {
        add(Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(executor, "executor"));
    }

    private void add(OperationListener listener, @Nullable Executor executor) {
        synchronized (lock) {
            Entry[] current = entries;
            for (int i = 0; i < current.length; i++) {
                if (current[i].listener().equals(listener)) {
                    Entry[] copy = current.clone();
                    copy[i] = new Entry(listener, executor); // added again: its executor is replaced
                    entries = copy;
                    return;
                }
            }
            Entry[] grown = Arrays.copyOf(current, current.length + 1);
            grown[current.length] = new Entry(listener, executor);
            entries = grown;
        }
    }

    @Override
    public void removeListener(OperationListener listener) {
        synchronized (lock) {
            Entry[] current = entries;
            for (int i = 0; i < current.length; i++) {
                if (current[i].listener().equals(listener)) {
                    Entry[] shrunk = new Entry[current.length - 1];
                    System.arraycopy(current, 0, shrunk, 0, i);
                    System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                    entries = shrunk;
                    return;
                }
            }
        }
    }

    boolean isEmpty() {
        return entries.length == 0;
    }

    void operationCompleted(OperationEvent event) {
        each(OperationListener::operationCompleted, event);
    }

    void connectionStateChanged(ConnectionState state) {
        each(OperationListener::connectionStateChanged, state);
    }

    /** Calls every listener; {@code call} is a method reference, so nothing is allocated for a direct call. */
    private <T> void each(BiConsumer<OperationListener, T> call, T argument) {
        for (Entry entry : entries) {
            OperationListener listener = entry.listener();
            Executor executor = entry.executor();
            if (executor == null) {
                try {
                    call.accept(listener, argument);
                } catch (RuntimeException | Error e) {
                    errorHandler.accept("operation listener " + listener + " threw", e);
                }
            } else {
                dispatch(listener, executor, () -> call.accept(listener, argument));
            }
        }
    }

    private void dispatch(OperationListener listener, Executor executor, Runnable call) {
        try {
            executor.execute(() -> {
                try {
                    call.run();
                } catch (RuntimeException | Error e) {
                    errorHandler.accept("operation listener " + listener + " threw", e);
                }
            });
        } catch (RuntimeException e) {
            errorHandler.accept("could not call operation listener " + listener, e);
        }
    }
}
