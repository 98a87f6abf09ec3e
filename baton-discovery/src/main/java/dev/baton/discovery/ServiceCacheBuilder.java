package dev.baton.discovery;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link ServiceCache}: {@code discovery.serviceCacheBuilder().name("orders").build()}. Not thread-safe.
 *
 * @param <T> the payload's type
 */
public final class ServiceCacheBuilder<T> {
    private final ServiceDiscovery<T> discovery;
    private @Nullable String name;

    ServiceCacheBuilder(ServiceDiscovery<T> discovery) {
        this.discovery = discovery;
    }

    /**
     * {@return this}
     *
     * @param name the service to cache (required)
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is not a znode name
     */
    public ServiceCacheBuilder<T> name(String name) {
        this.name = Names.requireNodeName(name, "name");
        return this;
    }

    /**
     * {@return a new cache, not started}
     *
     * @throws NullPointerException if no name was set
     */
    public ServiceCache<T> build() {
        return new ServiceCache<>(discovery, Objects.requireNonNull(name, "name"));
    }
}
