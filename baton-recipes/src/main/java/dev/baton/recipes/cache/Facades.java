package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.internal.Failures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.Requests;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;

/** What the classic façades ({@link NodeCache}, {@link PathChildrenCache}, {@link TreeCache}) share. */
final class Facades {
    private Facades() {
    }

    /** A call of one classic listener, which may throw anything. */
    @FunctionalInterface
    interface Call<L> {
        void on(L listener) throws Exception;
    }

    /**
     * Calls every listener, each on its executor; what one throws is logged by the container and does not stop
     * the others.
     */
    static <L> void dispatch(ListenerContainer<L> listeners, Call<L> call) {
        listeners.forEach(listener -> {
            try {
                call.on(listener);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * Fails a second start before the façade adds its listener to the cache.
     *
     * @throws IllegalStateException if the cache was started or closed
     */
    static void requireLatent(BatonCache cache, Object facade) {
        Lifecycle.State state = cache.state();
        if (state != Lifecycle.State.LATENT) {
            throw new IllegalStateException(facade + " cannot be started: it is " + state);
        }
    }

    /**
     * Waits for a load or rebuild of a façade's cache, as Curator's blocking {@code rebuild()} does, for at most
     * the session timeout: longer, the client could not reach a server for the whole session.
     *
     * @throws KeeperException.ConnectionLossException if the read did not complete in that time
     * @throws IllegalStateException on ZooKeeper's event thread (the read needs it), or if the cache was closed
     */
    static void await(BatonClient client, CompletableFuture<Void> read, String path)
            throws KeeperException, InterruptedException {
        if (!read.isDone()) {
            Requests.requireNotEventThread(client, "wait for the cache of " + path);
        }
        try {
            read.get(client.getSessionTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw (KeeperException.ConnectionLossException) KeeperException.create(
                    KeeperException.Code.CONNECTIONLOSS, path);
        } catch (ExecutionException e) {
            throw Failures.rethrow(e);
        }
    }
}
