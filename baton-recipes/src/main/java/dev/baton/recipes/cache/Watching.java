package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link BatonCache} learns of changes on the server, and the reads that go with that way. Two strategies:
 * {@link PersistentWatching} registers one persistent watch on the cache's root (ZooKeeper 3.6 and newer) and
 * reads without watches; {@link OneShotWatching} registers nothing and lets every read leave a one-shot watch
 * (a data watch on each node read, a child watch on each node listed), for servers without persistent watches.
 * The cache turns the events of either into the same listener calls; see {@link BatonCache}.
 *
 * <p>Thread-safe; the callbacks run on the thread that completes the request (usually ZooKeeper's event thread).
 */
abstract class Watching {
    /** What a read of one node found. */
    @FunctionalInterface
    interface ReadCallback {
        /**
         * Receives the outcome of one read.
         *
         * @param stat the node's stat, or null if there is no such node or the read failed
         * @param data the node's data (null without data, or when {@code stat} is null)
         * @param error why the read failed (a {@code NONODE} failure means no such node), or null
         */
        void done(@Nullable Stat stat, byte @Nullable [] data, @Nullable Throwable error);
    }

    final BatonClient client;
    final String root;
    final boolean dataLess;
    /** Where the watch events for the cache go. */
    final Consumer<WatchedEvent> events;

    Watching(BatonClient client, String root, boolean dataLess, Consumer<WatchedEvent> events) {
        this.client = client;
        this.root = root;
        this.dataLess = dataLess;
        this.events = events;
    }

    /**
     * Puts the cache's standing watch in place, if this way has one; idempotent.
     *
     * @return a future that completes once it is in place, or fails (with
     *         {@link dev.baton.UnsupportedServerFeatureException} if the server lacks what this way needs)
     */
    abstract CompletableFuture<Void> register();

    /**
     * Removes the cache's watches (for {@link BatonCache#close()}).
     *
     * @param watched the paths the cache may have left one-shot watches on
     * @param async true never to wait (on ZooKeeper's event thread)
     */
    abstract void remove(Collection<String> watched, boolean async);

    /** {@return true if every node below the maximum depth must be listed, even childless, to watch its children} */
    abstract boolean listsEveryNode();

    /** {@return true for one-shot watches: a created node's children must be listed to be watched} */
    abstract boolean isOneShot();

    /** Reads a node (its stat alone when data-less); {@code callback} hears of it once, however it ends. */
    abstract void read(String path, ReadCallback callback);

    /**
     * Lists a node's children, storing the node's stat in {@code stat}.
     *
     * @return the names, or a failed future
     */
    abstract CompletableFuture<List<String>> list(String path, Stat stat);

    /** Sends a request; one refused before it is sent (the client is closed) gives a failed future. */
    static <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> request) {
        try {
            return request.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Hands a read's outcome to its callback in the callback's terms. */
    static void deliver(CompletableFuture<?> read, @Nullable Stat stat, ReadCallback callback) {
        Futures.whenDone(read, (result, error) -> {
            if (error != null) {
                callback.done(null, null, error);
            } else if (result instanceof Stat found) {
                callback.done(found, null, null); // exists: the stat, or null for no node
            } else {
                callback.done(stat, (byte[]) result, null); // getData: the stat was filled in before completion
            }
        });
    }

    /** {@return true if {@code error} says there is no such node} */
    static boolean isNoNode(@Nullable Throwable error) {
        return error != null && Failures.code(error) == KeeperException.Code.NONODE;
    }
}
