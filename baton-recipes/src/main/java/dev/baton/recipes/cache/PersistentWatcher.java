package dev.baton.recipes.cache;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.BatonEventType;
import dev.baton.BatonListener;
import dev.baton.UnsupportedServerFeatureException;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.WatchRemoval;
import dev.baton.listen.Listenable;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A persistent watch ({@link AddWatchMode#PERSISTENT}, or {@link AddWatchMode#PERSISTENT_RECURSIVE} for a whole
 * subtree) that stays registered across reconnects and session loss, and says when it was (re-)registered.
 *
 * <pre>{@code
 * try (PersistentWatcher watcher = new PersistentWatcher(client, "/app/config", true)) {
 *     watcher.getListenable().addListener(event -> System.out.println(event.getType() + " " + event.getPath()));
 *     watcher.getResetListenable().addListener(() -> reloadEverything()); // changes may have been missed
 *     watcher.start();
 * }
 * }</pre>
 *
 * <p>ZooKeeper keeps a persistent watch across a reconnect in the same session, but not across a new session;
 * and in neither case does it report the changes made while the client was disconnected. So after every
 * {@code RECONNECTED} this watcher registers the watch again (harmless if it was kept) and then calls the reset
 * listeners: that is the moment to re-read what matters. The reset listeners are also called after the first
 * registration, when the watch is known to be in place.
 *
 * <p>The watch listeners get every {@link WatchedEvent} ZooKeeper delivers to the watch, including its
 * connection-state events ({@link Watcher.Event.EventType#None}, with a null path). When the client closes while
 * the watcher is started, or {@link #start()} finds the client already closed, the listeners get one last event
 * of type {@code None} and state {@link Watcher.Event.KeeperState#Closed}, as from Curator's watcher, and the
 * watcher is closed: a listener waiting for events learns that none will come.
 *
 * <h2>Servers without persistent watches</h2>
 * ZooKeeper has persistent watches since 3.6. On an older server the client refuses the watch without sending
 * it ({@link dev.baton.UnsupportedServerFeatureException}, see {@link dev.baton.ServerFeature}); a watcher of one
 * node then falls back to one-shot watches (an existence watch and, while the node exists, a child watch), set
 * again after each event, and calls the reset listeners once they are in place. Events between a watch firing and
 * its renewal come as the event that fired, so re-read on each event. A recursive watcher cannot fall back (one-shot
 * watches on every node of a subtree are a cache's work: use {@link BatonCache}, which does that on such a server):
 * {@link #start()} refuses it with an {@link IllegalStateException} whose cause is the client's
 * {@link dev.baton.UnsupportedServerFeatureException} and whose message ends with that exception's (the feature, the
 * version it needs and the server's), and leaves nothing registered. If the client is not connected at
 * {@code start()} the server is known only once it connects: the refusal is then logged at error level, and the
 * watcher closes itself, leaving nothing registered.
 *
 * <p>Thread-safe; no thread of its own: listeners added without an executor run on ZooKeeper's event thread
 * (watch events, reset after the registration completes) and must not block.
 */
public final class PersistentWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PersistentWatcher.class);

    private final Object lock = new Object();
    private final BatonClient client;
    private final Lifecycle lifecycle;
    private final String basePath;
    private final boolean recursive;
    private final ListenerContainer<Watcher> listeners = new ListenerContainer<>(Runnable::run,
            (message, e) -> LOG.error("PersistentWatcher listener failed: {}", message, e));
    private final ListenerContainer<Runnable> resetListeners = new ListenerContainer<>(Runnable::run,
            (message, e) -> LOG.error("PersistentWatcher reset listener failed: {}", message, e));
    private final Watcher watcher = this::process;
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;
    private final BatonListener closingListener = (c, event) -> {
        if (event.type() == BatonEventType.CLOSING) {
            clientClosed();
        }
    };

    @GuardedBy("lock")
    private long generation;
    /** The one-shot imitation of the watch, on a server without persistent watches; else null. */
    @GuardedBy("lock")
    private @Nullable OneShotWatch oneShot;

    /**
     * @param client the client
     * @param basePath the watched node (it need not exist)
     * @param recursive true to watch the whole subtree, false for the node alone
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public PersistentWatcher(BatonClient client, String basePath, boolean recursive) {
        this.client = Objects.requireNonNull(client, "client");
        this.basePath = BatonPaths.validate(Objects.requireNonNull(basePath, "basePath"));
        this.lifecycle = new Lifecycle("PersistentWatcher " + basePath);
        this.recursive = recursive;
    }

    /**
     * Registers the watch in the background and returns at once; the reset listeners are called once it is in
     * place. While the client is connected the request is sent before this returns, ahead of anything a namespaced
     * client still has to create for its namespace; as ZooKeeper handles one session's requests in order, a change
     * made through the same session (this client or any of its namespace views) after {@code start()} returns is
     * reported even if the reset listeners have not been called yet.
     *
     * <p>While the client is connected, whether the server has persistent watches is known before this returns
     * (the client asks the server's version once per connection, on the calling thread).
     *
     * @throws IllegalStateException if already started or closed; or, for a recursive watcher, if the connected
     *         server has no persistent watches (before ZooKeeper 3.6): then the cause is the client's
     *         {@link UnsupportedServerFeatureException}, nothing is left registered and the watcher is closed
     */
    public void start() {
        long gen;
        synchronized (lock) {
            lifecycle.start();
            gen = ++generation;
        }
        client.getEventListenable().addListener(closingListener);
        client.getConnectionStateListenable().addListener(connectionListener);
        if (client.getState() == BatonClient.State.CLOSED) {
            clientClosed(); // the closing event was delivered before the listener was added
            return;
        }
        CompletableFuture<Void> added = send();
        if (recursive && added != null && added.isCompletedExceptionally()) {
            Throwable cause = Failures.unwrap(added.handle((ok, error) -> error).join());
            if (cause instanceof UnsupportedServerFeatureException unsupported) {
                // Refused before anything was sent: undo the start, leaving nothing registered.
                synchronized (lock) {
                    lifecycle.close();
                    generation++;
                }
                client.getEventListenable().removeListener(closingListener);
                client.getConnectionStateListenable().removeListener(connectionListener);
                throw new IllegalStateException("PersistentWatcher " + basePath + " cannot watch recursively: "
                        + unsupported.getMessage(), unsupported);
            }
        }
        whenRegistered(gen, added);
    }

    /**
     * Listeners of the watched events.
     *
     * @return where to add and remove them
     */
    public Listenable<Watcher> getListenable() {
        return listeners;
    }

    /**
     * Listeners called each time the watch has been registered: after {@link #start()} and after every
     * reconnect. Changes made while the client was disconnected were not reported; re-read what matters here.
     *
     * @return where to add and remove them
     */
    public Listenable<Runnable> getResetListenable() {
        return resetListeners;
    }

    /**
     * Removes the watch (from the server when it can be reached, from the client in any case), the connection
     * listener and all listeners. Closing twice does nothing.
     */
    @Override
    public void close() {
        synchronized (lock) {
            boolean started = lifecycle.close() == Lifecycle.State.STARTED;
            generation++;
            if (!started) {
                return;
            }
        }
        stopListening();
        OneShotWatch fallback;
        synchronized (lock) {
            fallback = oneShot;
        }
        if (fallback != null) {
            fallback.close();
        } else {
            WatchRemoval.remove(client, watcher, basePath, mode(), "PersistentWatcher");
        }
    }

    /** The client closed while the watcher was started: the listeners hear of it once, as a closed event. */
    private void clientClosed() {
        synchronized (lock) {
            if (lifecycle.close() != Lifecycle.State.STARTED) {
                return;
            }
            generation++;
        }
        WatchedEvent closed = new WatchedEvent(Watcher.Event.EventType.None, Watcher.Event.KeeperState.Closed,
                null);
        listeners.forEach(w -> w.process(closed));
        stopListening(); // the watch goes with the session
    }

    private void stopListening() {
        client.getEventListenable().removeListener(closingListener);
        client.getConnectionStateListenable().removeListener(connectionListener);
        listeners.clear();
        resetListeners.clear();
    }

    private void register(long gen) {
        whenRegistered(gen, send());
    }

    /** Sends the registration; null (and the watcher closed, if the client is) if the client refused it. */
    private @Nullable CompletableFuture<Void> send() {
        try {
            return client.watchers().add().withMode(mode()).usingWatcher(watcher).forPathAsync(basePath);
        } catch (IllegalStateException e) {
            LOG.debug("PersistentWatcher {}: client closed", basePath);
            if (client.getState() == BatonClient.State.CLOSED) {
                clientClosed();
            }
            return null;
        }
    }

    private void whenRegistered(long gen, @Nullable CompletableFuture<Void> added) {
        if (added == null) {
            return;
        }
        Futures.whenDone(added, (ok, error) -> {
            if (error != null) {
                Throwable cause = Failures.unwrap(error);
                if (cause instanceof UnsupportedServerFeatureException unsupported) {
                    unsupported(gen, unsupported);
                } else if (Failures.isConnectionProblem(cause)
                        || cause instanceof IllegalStateException) {
                    LOG.debug("PersistentWatcher {}: registration failed, retried on reconnect: {}",
                            basePath, cause.toString());
                } else {
                    LOG.error("PersistentWatcher {}: registration failed", basePath, cause);
                }
                return;
            }
            WatchRemoval.registered(client, watcher, basePath, mode());
            synchronized (lock) {
                if (lifecycle.state() == Lifecycle.State.CLOSED) {
                    WatchRemoval.remove(client, watcher, basePath, mode(), "PersistentWatcher", true);
                    return;
                }
            }
            registered(gen);
        });
    }

    /** The watch is in place: the reset listeners hear of it, unless a newer registration is under way. */
    private void registered(long gen) {
        synchronized (lock) {
            if (gen != generation || lifecycle.state() != Lifecycle.State.STARTED) {
                return;
            }
        }
        resetListeners.forEach(Runnable::run);
    }

    /**
     * The server has no persistent watches (before ZooKeeper 3.6). A watch of one node falls back to one-shot
     * watches set again after each event ({@link OneShotWatch}); a recursive watch cannot: it says why once and
     * closes (nothing was registered), as {@link #start()} would have refused it had the server been known then.
     */
    private void unsupported(long gen, UnsupportedServerFeatureException cause) {
        if (recursive) {
            synchronized (lock) {
                if (gen != generation || lifecycle.close() != Lifecycle.State.STARTED) {
                    return;
                }
                generation++;
            }
            LOG.error("PersistentWatcher {}: cannot watch recursively, closed: {}", basePath, cause.getMessage());
            stopListening();
            return;
        }
        OneShotWatch fallback;
        synchronized (lock) {
            if (gen != generation || lifecycle.state() != Lifecycle.State.STARTED) {
                return;
            }
            if (oneShot == null) {
                LOG.info("PersistentWatcher {}: one-shot watches instead: {}", basePath, cause.getMessage());
                oneShot = new OneShotWatch(client, basePath, this::process);
            }
            fallback = oneShot;
        }
        Futures.whenDone(fallback.arm(), (ok, error) -> {
            if (error == null) {
                registered(gen);
            } else {
                LOG.debug("PersistentWatcher {}: one-shot watches not set, set again on reconnect: {}", basePath,
                        error.toString());
            }
        });
    }

    private AddWatchMode mode() {
        return recursive ? AddWatchMode.PERSISTENT_RECURSIVE : AddWatchMode.PERSISTENT;
    }

    private void process(WatchedEvent event) {
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
        }
        listeners.forEach(w -> w.process(event));
    }

    private void connectionStateChanged(BatonClient c, ConnectionState newState) {
        if (newState != ConnectionState.RECONNECTED) {
            return;
        }
        long gen;
        synchronized (lock) {
            if (!lifecycle.isStarted()) {
                return;
            }
            gen = ++generation;
        }
        register(gen);
    }

    @Override
    public String toString() {
        return "PersistentWatcher[" + basePath + (recursive ? ", recursive" : "") + "]";
    }
}
