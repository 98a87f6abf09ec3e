package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException;

/**
 * Runs one operation builder through one of the client's three faces (blocking {@code forPath}, future
 * {@code forPathAsync}, background {@code inBackground(callback).forPath}) and gives back the outcome in one
 * shape, so a scenario written once checks all three. For the background face the {@link BatonEvent} is turned
 * into the same result, or into the {@link KeeperException} of {@link BatonEvent#resultCode()}, after its common
 * fields have been checked.
 */
final class Faces {
    /** How long a future or a background callback may take before the run counts as hung. */
    static final Duration WAIT = Duration.ofSeconds(10);

    private Faces() {
    }

    /** The three faces of an operation. */
    enum Face {
        BLOCKING,
        FUTURE,
        BACKGROUND
    }

    /**
     * What a run produced: a value or a {@link KeeperException}, and for the background face the event.
     *
     * @param <T> the operation's result type
     * @param value the result, null on failure (and for operations without one)
     * @param error the failure, or null
     * @param event the background event; null for the other faces
     */
    record Outcome<T>(T value, KeeperException error, BatonEvent event) {

        /** @return the value, or throws the failure */
        T get() throws KeeperException {
            if (error != null) {
                throw error;
            }
            return value;
        }

        /** @return the failure; fails the test if the run succeeded */
        KeeperException failure() {
            assertThat(error).as("expected the operation to fail, but it returned %s", value).isNotNull();
            return error;
        }
    }

    /** Runs a path-only operation. */
    static <T, B extends Pathable<T> & Backgroundable<? extends BackgroundPathable>> Outcome<T> run(
            Face face, B builder, String path, BatonEventType type, Function<BatonEvent, T> fromEvent)
            throws InterruptedException {
        return switch (face) {
            case BLOCKING -> blocking(() -> builder.forPath(path));
            case FUTURE -> future(builder.forPathAsync(path));
            case BACKGROUND -> {
                CompletableFuture<BatonEvent> event = new CompletableFuture<>();
                builder.inBackground((c, e) -> event.complete(e)).forPath(path);
                yield fromEvent(awaitEvent(event), type, path, fromEvent);
            }
        };
    }

    /** Runs an operation that takes data. */
    static <T, B extends PathAndBytesable<T> & Backgroundable<? extends BackgroundPathAndBytesable>> Outcome<T> run(
            Face face, B builder, String path, byte[] data, BatonEventType type, Function<BatonEvent, T> fromEvent)
            throws InterruptedException {
        return switch (face) {
            case BLOCKING -> blocking(() -> builder.forPath(path, data));
            case FUTURE -> future(builder.forPathAsync(path, data));
            case BACKGROUND -> {
                CompletableFuture<BatonEvent> event = new CompletableFuture<>();
                builder.inBackground((c, e) -> event.complete(e)).forPath(path, data);
                yield fromEvent(awaitEvent(event), type, path, fromEvent);
            }
        };
    }

    /** Runs a transaction. */
    static Outcome<List<BatonTransactionResult>> transaction(Face face, BatonClient client, List<BatonOp> ops)
            throws InterruptedException {
        return switch (face) {
            case BLOCKING -> blocking(() -> client.transaction().forOperations(ops));
            case FUTURE -> future(client.transaction().forOperationsAsync(ops));
            case BACKGROUND -> {
                CompletableFuture<BatonEvent> event = new CompletableFuture<>();
                client.transaction().inBackground((c, e) -> event.complete(e)).forOperations(ops);
                BatonEvent e = awaitEvent(event);
                assertThat(e.type()).isEqualTo(BatonEventType.TRANSACTION);
                if (!e.isOk()) {
                    assertThat(e.opResults()).as("opResults of a failed transaction").isNull();
                    yield new Outcome<>(null, KeeperException.create(e.code()), e);
                }
                yield new Outcome<>(e.opResults(), null, e);
            }
        };
    }

    // ---- the per-operation readers of a background event ----

    static String created(BatonEvent e) {
        return e.name();
    }

    static Void none(BatonEvent e) {
        return null;
    }

    // ---- internals ----

    @FunctionalInterface
    private interface Call<T> {
        T call() throws KeeperException, InterruptedException;
    }

    private static <T> Outcome<T> blocking(Call<T> call) throws InterruptedException {
        try {
            return new Outcome<>(call.call(), null, null);
        } catch (KeeperException e) {
            return new Outcome<>(null, e, null);
        }
    }

    private static <T> Outcome<T> future(CompletableFuture<T> future) throws InterruptedException {
        try {
            return new Outcome<>(future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS), null, null);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KeeperException ke) {
                return new Outcome<>(null, ke, null);
            }
            throw new AssertionError("future failed with a non-ZooKeeper error", e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("future not completed within " + WAIT, e);
        }
    }

    private static BatonEvent awaitEvent(CompletableFuture<BatonEvent> event) throws InterruptedException {
        try {
            return event.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("background callback not called within " + WAIT, e);
        }
    }

    /**
     * Checks the fields every background event has, then turns it into the outcome. An exists check of a
     * missing node is a success with a null result (resultCode NONODE, as Curator reports it).
     */
    private static <T> Outcome<T> fromEvent(BatonEvent e, BatonEventType type, String path,
            Function<BatonEvent, T> fromEvent) {
        assertThat(e.type()).as("event type of %s", e).isEqualTo(type);
        assertThat(e.path()).as("event path of %s", e).isEqualTo(path);
        assertThat(e.watchedEvent()).as("watchedEvent of %s", e).isNull();
        boolean missingForExists = type == BatonEventType.EXISTS && e.code() == KeeperException.Code.NONODE;
        if (e.isOk() || missingForExists) {
            return new Outcome<>(fromEvent.apply(e), null, e);
        }
        assertThat(e.data()).as("data of failed %s", e).isNull();
        assertThat(e.children()).as("children of failed %s", e).isNull();
        assertThat(e.stat()).as("stat of failed %s", e).isNull();
        assertThat(e.acls()).as("acls of failed %s", e).isNull();
        return new Outcome<>(null, KeeperException.create(e.code(), e.path()), e);
    }
}
