package dev.baton.discovery;

import dev.baton.internal.Lifecycle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Hands out instances of one service, for callers to connect to: {@link #getInstance()} chooses one by its
 * {@link ProviderStrategy} among the cached instances that are enabled, not down (see {@link DownInstancePolicy}
 * and {@link #noteError}) and kept by the additional filters. Made by
 * {@link ServiceDiscovery#serviceProviderBuilder()}.
 *
 * <pre>{@code
 * try (ServiceProvider<Details> orders = discovery.serviceProviderBuilder().serviceName("orders").build()) {
 *     orders.start();
 *     ServiceInstance<Details> target = orders.getInstance();      // null if none is available
 *     try { call(target.buildUriSpec()); } catch (IOException e) { orders.noteError(target); }
 * }
 * }</pre>
 *
 * <p>Reads come from a {@link ServiceCache}: {@link #getInstance()} sends no request to ZooKeeper, and takes no
 * lock. No thread of its own. Thread-safe.
 *
 * @param <T> the payload's type
 */
public final class ServiceProvider<T> implements AutoCloseable {
    private final ServiceDiscovery<T> discovery;
    private final ServiceCache<T> cache;
    private final ProviderStrategy<T> strategy;
    private final DownInstances<T> down;
    private final List<InstanceFilter<T>> filters;
    private final InstanceProvider<T> candidates = this::candidates;
    private final Lifecycle state = new Lifecycle("ServiceProvider");

    ServiceProvider(ServiceDiscovery<T> discovery, String serviceName, ProviderStrategy<T> strategy,
            DownInstancePolicy policy, List<InstanceFilter<T>> filters) {
        this.discovery = discovery;
        this.cache = discovery.serviceCacheBuilder().name(serviceName).build();
        this.strategy = strategy;
        this.down = new DownInstances<>(policy, System::nanoTime);
        this.filters = filters;
    }

    /**
     * Starts the provider's cache and waits for its initial load (at most the client's session timeout).
     *
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if already started or closed, or the discovery is closed
     */
    public void start() throws InterruptedException {
        state.start();
        discovery.opened(this);
        cache.start();
    }

    /**
     * Chooses an instance among the available ones, without asking ZooKeeper.
     *
     * @return the instance, or null if none is available
     * @throws IllegalStateException if not started, or closed
     */
    public @Nullable ServiceInstance<T> getInstance() {
        checkStarted();
        return strategy.getInstance(candidates);
    }

    /**
     * {@return every available instance (enabled, not down, kept by the filters), sorted by id}
     *
     * @throws IllegalStateException if not started, or closed
     */
    public Collection<ServiceInstance<T>> getAllInstances() {
        checkStarted();
        return candidates();
    }

    /**
     * Reports that calling an instance failed; with enough reports within the policy's timeout, the instance is
     * left out until that timeout has passed since the first report.
     *
     * @param instance the instance
     * @throws NullPointerException if {@code instance} is null
     */
    public void noteError(ServiceInstance<T> instance) {
        down.noteError(Objects.requireNonNull(instance, "instance"));
    }

    /** Stops the provider's cache. Closing twice does nothing. */
    @Override
    public void close() {
        if (state.close() == Lifecycle.State.CLOSED) {
            return;
        }
        discovery.closed(this);
        cache.close();
    }

    private List<ServiceInstance<T>> candidates() {
        List<ServiceInstance<T>> enabled = cache.enabledInstances();
        if (filters.isEmpty() && down.isEmpty()) {
            return enabled; // the common case: the cache's own snapshot, no copy
        }
        List<ServiceInstance<T>> kept = new ArrayList<>(enabled.size());
        for (ServiceInstance<T> instance : enabled) {
            if (down.apply(instance) && keptByFilters(instance)) {
                kept.add(instance);
            }
        }
        return kept;
    }

    private boolean keptByFilters(ServiceInstance<T> instance) {
        for (InstanceFilter<T> filter : filters) {
            if (!filter.apply(instance)) {
                return false;
            }
        }
        return true;
    }

    private void checkStarted() {
        state.requireStarted();
    }

    @Override
    public String toString() {
        return "ServiceProvider[" + cache.getName() + "]";
    }
}
