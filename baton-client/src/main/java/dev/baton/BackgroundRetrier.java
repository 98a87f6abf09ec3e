package dev.baton;

import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps retrying work that must eventually happen (a guaranteed delete, removing an orphaned protected node)
 * until it succeeds, fails for a reason a retry cannot fix, or the client closes. It waits for a connection
 * rather than polling; after a connection-type failure it tries again with a growing pause, capped at a few
 * seconds.
 */
final class BackgroundRetrier {
    private static final Logger LOG = LoggerFactory.getLogger(BackgroundRetrier.class);
    private static final long MAX_PAUSE_MS = 4000;

    private final ClientCore core;
    private final Set<Task> pending = ConcurrentHashMap.newKeySet();

    BackgroundRetrier(ClientCore core) {
        this.core = core;
    }

    private final class Task {
        final String description;
        final Supplier<CompletableFuture<?>> work;
        long pauseMs = 50;

        Task(String description, Supplier<CompletableFuture<?>> work) {
            this.description = description;
            this.work = work;
        }

        void attempt() {
            if (core.isClosed() || !pending.contains(this)) {
                return;
            }
            Futures.whenDone(core.session().whenConnected(0).thenCompose(v -> work.get()), (v, error) -> {
                if (error == null) {
                    LOG.debug("Background work done: {}", description);
                    pending.remove(this);
                } else if (core.isClosed()) {
                    pending.remove(this);
                } else if (Failures.isConnectionProblem(error)) {
                    long pause = pauseMs;
                    pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
                    try {
                        core.rootClient().schedule(this::attempt, Duration.ofMillis(pause));
                    } catch (RuntimeException e) {
                        pending.remove(this);
                    }
                } else {
                    pending.remove(this);
                    core.reportError("background work failed: " + description, Failures.unwrap(error));
                }
            });
        }
    }

    /**
     * Starts {@code work} now (or once connected) and repeats it until it completes normally.
     *
     * @param description for logs and error reports
     * @param work one attempt; must treat "already done" (for example no such node) as success
     */
    void submit(String description, Supplier<CompletableFuture<?>> work) {
        if (core.isClosed()) {
            return;
        }
        Task task = new Task(description, work);
        pending.add(task);
        LOG.debug("Retrying in the background: {}", description);
        task.attempt();
    }

    /** How many tasks have not completed yet. */
    int pendingCount() {
        return pending.size();
    }

    void close() {
        pending.clear();
    }
}
