package dev.baton.recipes.cache;

import dev.baton.BatonClient;
import dev.baton.BatonEventType;
import dev.baton.BatonListener;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.ListenerContainer;
import dev.baton.internal.WatchRemoval;
import dev.baton.listen.Listenable;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.util.Objects;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
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
 * <p>Thread-safe; no thread of its own: listeners added without an executor run on ZooKeeper's event thread
 * (watch events, reset after the registration completes) and must not block.
 */
public final class PersistentWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PersistentWatcher.class);

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

    // Guarded by this.
    private long generation;

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
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        long gen;
        synchronized (this) {
            lifecycle.start();
            gen = ++generation;
        }
        client.getEventListenable().addListener(closingListener);
        client.getConnectionStateListenable().addListener(connectionListener);
        if (client.getState() == BatonClient.State.CLOSED) {
            clientClosed(); // the closing event was delivered before the listener was added
            return;
        }
        register(gen);
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
        synchronized (this) {
            boolean started = lifecycle.close() == Lifecycle.State.STARTED;
            generation++;
            if (!started) {
                return;
            }
        }
        stopListening();
        WatchRemoval.remove(client, watcher, basePath, mode(), "PersistentWatcher");
    }

    /** The client closed while the watcher was started: the listeners hear of it once, as a closed event. */
    private void clientClosed() {
        synchronized (this) {
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
        try {
            client.watchers().add()
                    .withMode(mode())
                    .usingWatcher(watcher).forPathAsync(basePath).whenComplete((ok, error) -> {
                        if (error != null) {
                            Throwable cause = Failures.unwrap(error);
                            if (Failures.isConnectionProblem(cause) || cause instanceof IllegalStateException) {
                                LOG.debug("PersistentWatcher {}: registration failed, retried on reconnect: {}",
                                        basePath, cause.toString());
                            } else {
                                LOG.error("PersistentWatcher {}: registration failed", basePath, cause);
                            }
                            return;
                        }
                        WatchRemoval.registered(client, watcher, basePath, mode());
                        synchronized (this) {
                            if (lifecycle.state() == Lifecycle.State.CLOSED) {
                                WatchRemoval.remove(client, watcher, basePath, mode(), "PersistentWatcher", true);
                                return;
                            }
                            if (gen != generation) {
                                return;
                            }
                        }
                        resetListeners.forEach(Runnable::run);
                    });
        } catch (IllegalStateException e) {
            LOG.debug("PersistentWatcher {}: client closed", basePath);
            if (client.getState() == BatonClient.State.CLOSED) {
                clientClosed();
            }
        }
    }

    private AddWatchMode mode() {
        return recursive ? AddWatchMode.PERSISTENT_RECURSIVE : AddWatchMode.PERSISTENT;
    }

    private void process(WatchedEvent event) {
        synchronized (this) {
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
        synchronized (this) {
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
