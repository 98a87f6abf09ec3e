package dev.baton.discovery;

import dev.baton.internal.Lifecycle;
import dev.baton.internal.BatonPaths;
import dev.baton.listen.Listenable;
import dev.baton.internal.ListenerContainer;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.cache.BatonCacheListener;
import dev.baton.recipes.cache.ChildData;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * after a reconnection, so no change is missed and no instance is reported twice. No thread of its own (Curator's
 * could take one per cache: CURATOR-223), so thousands of caches cost no threads. A registration whose data does
 * not decode is left out, with a logged warning. The service's node need not exist; nothing is created on the
 * server.
 *
 * <p>Thread-safe; {@link #getInstances()} never blocks and returns a list made once per change.
 *
 * @param <T> the payload's type
 */
public final class ServiceCache<T> implements Listenable<ServiceCacheListener>, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceCache.class);

    private final ServiceDiscovery<T> discovery;
    private final String name;
    private final String path;
    private final BatonCache cache;
    private final ListenerContainer<ServiceCacheListener> listeners = new ListenerContainer<>(Runnable::run,
            (message, e) -> LOG.error("ServiceCache listener failed: {}", message, e));
    private final Lifecycle state = new Lifecycle("ServiceCache");
    private final CompletableFuture<Void> initialized = new CompletableFuture<>();
    /** The decoded instances by id; the lists below are made from it once per change. */
    private final ConcurrentSkipListMap<String, ServiceInstance<T>> instances = new ConcurrentSkipListMap<>();
    /** Made on demand after a change; null while out of date. */
    private volatile Snapshot<T> snapshot;
    private final Set<ServiceCacheListener> added = ConcurrentHashMap.newKeySet();

    private record Snapshot<T>(List<ServiceInstance<T>> all, List<ServiceInstance<T>> enabled) {
    }

    ServiceCache(ServiceDiscovery<T> discovery, String name) {
        this.discovery = discovery;
        this.name = name;
        this.path = BatonPaths.makePath(discovery.basePath(), name);
        this.cache = BatonCache.build(discovery.client(), path);
        cache.listenable().addListener(new BatonCacheListener() {
            @Override
            public void event(Type type, ChildData oldData, ChildData data) {
                changed(type, oldData, data);
            }

            @Override
            public void initialized() {
                initialized.complete(null);
            }
        });
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
        cache.start();
        try {
            initialized.get(discovery.client().getSessionTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.info("ServiceCache {}: initial load not done yet; the cache fills once ZooKeeper answers", path);
        }
    }

    /** @return the service's name */
    public String getName() {
        return name;
    }

    /**
     * @return the cached instances, sorted by id (an unmodifiable snapshot; empty before {@link #start()} and after
     *         {@link #close()})
     */
    public List<ServiceInstance<T>> getInstances() {
        return snapshot().all();
    }

    /** @return the cached instances that are enabled, sorted by id (an unmodifiable snapshot) */
    List<ServiceInstance<T>> enabledInstances() {
        return snapshot().enabled();
    }

    private Snapshot<T> snapshot() {
        Snapshot<T> current = snapshot;
        if (current != null) {
            return current;
        }
        synchronized (instances) {
            current = snapshot;
            if (current == null) {
                // Marked out of date before a change is applied: a change applied during this copy marks it again.
                List<ServiceInstance<T>> all = List.copyOf(instances.values());
                current = new Snapshot<>(all, all.stream().filter(ServiceInstance::isEnabled).toList());
                snapshot = current;
            }
            return current;
        }
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
        cache.close();
        for (ServiceCacheListener listener : List.copyOf(added)) {
            removeListener(listener);
        }
        listeners.clear();
        instances.clear();
        snapshot = null;
        initialized.complete(null);
    }

    private void changed(BatonCacheListener.Type type, ChildData oldData, ChildData data) {
        ChildData node = data != null ? data : oldData;
        if (node.path().equals(path) || !BatonPaths.parent(node.path()).equals(path)) {
            return; // the service's node itself, or something below an instance
        }
        String id = BatonPaths.nodeName(node.path());
        boolean changed;
        ServiceInstance<T> instance = type == BatonCacheListener.Type.NODE_DELETED ? null
                : discovery.decode(node.path(), data.data());
        synchronized (instances) {
            snapshot = null;
            changed = instance != null ? !instance.equals(instances.put(id, instance)) : instances.remove(id) != null;
        }
        if (!changed) {
            return;
        }
        if (initialized.isDone() && state.isStarted()) {
            listeners.forEach(ServiceCacheListener::cacheChanged);
        }
    }

    @Override
    public String toString() {
        return "ServiceCache[" + path + ", " + instances.size() + " instances]";
    }
}
