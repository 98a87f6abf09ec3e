package dev.baton.discovery;

import dev.baton.internal.BatonPaths;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.cache.BatonCacheListener;
import dev.baton.recipes.cache.ChildData;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentSkipListMap;
import org.jspecify.annotations.Nullable;

/**
 * The one watch a {@link ServiceDiscovery} keeps on a service while any of its {@link ServiceCache}s of that service
 * is started: a {@link BatonCache} of {@code <basePath>/<name>} and the instances decoded from it. The caches are
 * views of it: a change is read from ZooKeeper and decoded once, however many caches follow the service (Curator
 * reads it once per cache). Made, shared and closed by {@link ServiceDiscovery#watch} and
 * {@link ServiceDiscovery#unwatch}.
 *
 * <p>Thread-safe; no thread of its own.
 */
final class ServiceWatch<T> {
    private final ServiceDiscovery<T> discovery;
    private final String path;
    private final BatonCache cache;
    /** The caches attached, in the order they attached. */
    private final List<ServiceCache<T>> views = new CopyOnWriteArrayList<>();
    /** The decoded instances by id; the lists below are made from it once per change. */
    private final ConcurrentSkipListMap<String, ServiceInstance<T>> instances = new ConcurrentSkipListMap<>();
    /** Made on demand after a change; null while out of date. */
    private volatile @Nullable Snapshot<T> snapshot;
    private volatile boolean initialized;

    /** The instances at one moment, all and only the enabled ones, sorted by id. */
    record Snapshot<T>(List<ServiceInstance<T>> all, List<ServiceInstance<T>> enabled) {
        static final Snapshot<?> EMPTY = new Snapshot<>(List.of(), List.of());
    }

    ServiceWatch(ServiceDiscovery<T> discovery, String name) {
        this.discovery = discovery;
        this.path = BatonPaths.makePath(discovery.basePath(), name);
        this.cache = BatonCache.build(discovery.client(), path);
        cache.listenable().addListener(new BatonCacheListener() {
            @Override
            public void event(Type type, @Nullable ChildData oldData, @Nullable ChildData data) {
                changed(type, oldData, data);
            }

            @Override
            public void initialized() {
                ServiceWatch.this.initialized = true;
                views.forEach(ServiceCache::loaded);
            }
        });
    }

    String path() {
        return path;
    }

    /** {@return the number of caches attached} */
    int size() {
        return views.size();
    }

    void start() {
        cache.start();
    }

    /** Attaches a cache; it is told {@link ServiceCache#loaded()} at once if the initial load is done already. */
    void attach(ServiceCache<T> view) {
        views.add(view);
        if (initialized) {
            view.loaded();
        }
    }

    void detach(ServiceCache<T> view) {
        views.remove(view);
    }

    /** Removes the watch, on the server too. */
    void close() {
        cache.close();
    }

    Snapshot<T> snapshot() {
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

    private void changed(BatonCacheListener.Type type, @Nullable ChildData oldData, @Nullable ChildData data) {
        ChildData node = Objects.requireNonNull(data != null ? data : oldData, "an event carries a node");
        if (node.path().equals(path) || !BatonPaths.parent(node.path()).equals(path)) {
            return; // the service's node itself, or something below an instance
        }
        String id = BatonPaths.nodeName(node.path());
        boolean changed;
        ServiceInstance<T> instance = type == BatonCacheListener.Type.NODE_DELETED || data == null ? null
                : discovery.decode(node.path(), data.data());
        synchronized (instances) {
            snapshot = null;
            changed = instance != null ? !instance.equals(instances.put(id, instance)) : instances.remove(id) != null;
        }
        if (changed && initialized) {
            views.forEach(ServiceCache::changed);
        }
    }
}
