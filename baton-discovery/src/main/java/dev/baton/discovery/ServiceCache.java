package dev.baton.discovery;

import dev.baton.internal.Lifecycle;
import dev.baton.listen.Listenable;
import dev.baton.internal.ListenerContainer;
import dev.baton.recipes.cache.BatonCache;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local, current copy of one service's instances, for reading without asking ZooKeeper. Made by
 * {@link ServiceDiscovery#serviceCacheBuilder()}.
 *
 * <pre>{@code
 * try (ServiceCache<Details> orders = discovery.serviceCacheBuilder().name("orders").build()) {
 *     orders.addListener(() -> System.out.println("orders: " + orders.getInstances().size()));
 *     orders.start();
 *     List<ServiceInstance<Details>> now = orders.getInstances();
 * }
 * }</pre>
 *
 * <p>Underneath is a {@link BatonCache} of {@code <basePath>/<name>}: one persistent recursive watch, re-read
 * after a reconnection, so no change is missed and no instance is reported twice. The caches of one service made
 * from one {@link ServiceDiscovery} (its providers' too) share that watch while any of them is started: a change is
 * read and decoded once for all of them. No thread of its own (Curator's could take one per cache: CURATOR-223), so
 * thousands of caches cost no threads. A registration whose data does not decode is left out, with a logged
 * warning. The service's node need not exist; nothing is created on the server.
 *
 * <p>Thread-safe; {@link #getInstances()} never blocks and returns a list made once per change.
 *
 * @param <T> the payload's type
 */
public final class ServiceCache<T> implements Listenable<ServiceCacheListener>, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceCache.class);

    private final ServiceDiscovery<T> discovery;
    private final String name;
    private final ListenerContainer<ServiceCacheListener> listeners = new ListenerContainer<>(Runnable::run,
            (message, e) -> LOG.error("ServiceCache listener failed: {}", message, e));
    private final Lifecycle state = new Lifecycle("ServiceCache");
    private final CompletableFuture<Void> initialized = new CompletableFuture<>();
    private final Set<ServiceCacheListener> added = ConcurrentHashMap.newKeySet();
    /** The shared watch while started; null before and after. */
    private final AtomicReference<ServiceWatch<T>> watch = new AtomicReference<>();

    ServiceCache(ServiceDiscovery<T> discovery, String name) {
        this.discovery = discovery;
        this.name = name;
    }

    /**
     * Starts caching and waits for the initial load, at most the client's session timeout (if ZooKeeper cannot be
     * reached it returns empty-handed; the cache fills once it can).
     *
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if already started or closed, or the discovery is closed
     */
    public void start() throws InterruptedException {
        state.start();
        discovery.opened(this);
        ServiceWatch<T> joined = discovery.watch(name, this);
        watch.set(joined);
        if (!state.isStarted()) {
            leave(); // closed meanwhile: close() may have found no watch to leave
            return;
        }
        try {
            initialized.get(discovery.client().getSessionTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.info("ServiceCache {}: initial load not done yet; the cache fills once ZooKeeper answers",
                    joined.path());
        }
    }

    /** {@return the service's name} */
    public String getName() {
        return name;
    }

    /**
     * {@return the cached instances, sorted by id (an unmodifiable snapshot; empty before {@link #start()} and after
     *         {@link #close()})}
     */
    public List<ServiceInstance<T>> getInstances() {
        return snapshot().all();
    }

    /** {@return the cached instances that are enabled, sorted by id (an unmodifiable snapshot)} */
    List<ServiceInstance<T>> enabledInstances() {
        return snapshot().enabled();
    }

    // The empty snapshot holds no instance, so it is one of any payload type.
    @SuppressWarnings("unchecked")
    private ServiceWatch.Snapshot<T> snapshot() {
        ServiceWatch<T> current = watch.get();
        return current != null ? current.snapshot() : (ServiceWatch.Snapshot<T>) ServiceWatch.Snapshot.EMPTY;
    }

    /**
     * Adds a listener called on ZooKeeper's event thread (connection states: on the client's event thread).
     * {@inheritDoc}
     */
    @Override
    public void addListener(ServiceCacheListener listener) {
        listeners.addListener(listener);
        added.add(listener);
        discovery.client().getConnectionStateListenable().addListener(listener);
    }

    @Override
    public void addListener(ServiceCacheListener listener, Executor executor) {
        listeners.addListener(listener, executor);
        added.add(listener);
        discovery.client().getConnectionStateListenable().addListener(listener, executor);
    }

    @Override
    public void removeListener(ServiceCacheListener listener) {
        listeners.removeListener(listener);
        added.remove(listener);
        discovery.client().getConnectionStateListenable().removeListener(listener);
    }

    /**
     * Stops caching: removes the watch (on the server too) and the listeners, and empties the cache. Closing twice
     * does nothing.
     */
    @Override
    public void close() {
        if (state.close() == Lifecycle.State.CLOSED) {
            return;
        }
        discovery.closed(this);
        leave();
        for (ServiceCacheListener listener : List.copyOf(added)) {
            removeListener(listener);
        }
        listeners.clear();
        initialized.complete(null);
    }

    /** Detaches from the shared watch, once. */
    private void leave() {
        ServiceWatch<T> ended = watch.getAndSet(null);
        if (ended != null) {
            discovery.unwatch(ended, this);
        }
    }

    /** Called by the watch once its initial load is done (at once if it was when this cache attached). */
    void loaded() {
        initialized.complete(null);
    }

    /** Called by the watch after each change of the instances. */
    void changed() {
        if (initialized.isDone() && state.isStarted()) {
            listeners.forEach(ServiceCacheListener::cacheChanged);
        }
    }

    @Override
    public String toString() {
        return "ServiceCache[" + name + ", " + snapshot().all().size() + " instances]";
    }
}
