package dev.baton.discovery;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link ServiceProvider}: {@code discovery.serviceProviderBuilder().serviceName("orders").build()}, with
 * {@link RoundRobinStrategy} and the default {@link DownInstancePolicy} unless told otherwise. Not thread-safe;
 * {@link #build()} copies, so a builder can make several providers.
 *
 * @param <T> the payload's type
 */
public final class ServiceProviderBuilder<T> {
    private final ServiceDiscovery<T> discovery;
    private @Nullable String serviceName;
    private @Nullable ProviderStrategy<T> providerStrategy;
    private DownInstancePolicy downInstancePolicy = new DownInstancePolicy();
    private final List<InstanceFilter<T>> filters = new ArrayList<>();

    ServiceProviderBuilder(ServiceDiscovery<T> discovery) {
        this.discovery = discovery;
    }

    /**
     * {@return this}
     *
     * @param serviceName the service to provide instances of (required)
     * @throws NullPointerException if {@code serviceName} is null
     * @throws IllegalArgumentException if {@code serviceName} is not a znode name
     */
    public ServiceProviderBuilder<T> serviceName(String serviceName) {
        this.serviceName = Names.requireNodeName(serviceName, "serviceName");
        return this;
    }

    /**
     * {@return this}
     *
     * @param providerStrategy how {@code getInstance()} chooses (default: a new {@link RoundRobinStrategy} per
     *        provider)
     * @throws NullPointerException if {@code providerStrategy} is null
     */
    public ServiceProviderBuilder<T> providerStrategy(ProviderStrategy<T> providerStrategy) {
        this.providerStrategy = Objects.requireNonNull(providerStrategy, "providerStrategy");
        return this;
    }

    /**
     * {@return this}
     *
     * @param downInstancePolicy when instances reported by {@code noteError} are skipped (default: 30 s, 2 errors)
     * @throws NullPointerException if {@code downInstancePolicy} is null
     */
    public ServiceProviderBuilder<T> downInstancePolicy(DownInstancePolicy downInstancePolicy) {
        this.downInstancePolicy = Objects.requireNonNull(downInstancePolicy, "downInstancePolicy");
        return this;
    }

    /**
     * Adds a filter; an instance is handed out only if every filter keeps it (disabled instances and down
     * instances are always left out).
     *
     * @param filter the filter
     * @return this
     * @throws NullPointerException if {@code filter} is null
     */
    public ServiceProviderBuilder<T> additionalFilter(InstanceFilter<T> filter) {
        filters.add(Objects.requireNonNull(filter, "filter"));
        return this;
    }

    /**
     * {@return a new provider, not started}
     *
     * @throws NullPointerException if no service name was set
     */
    public ServiceProvider<T> build() {
        Objects.requireNonNull(serviceName, "serviceName");
        return new ServiceProvider<>(discovery, serviceName,
                providerStrategy != null ? providerStrategy : new RoundRobinStrategy<>(), downInstancePolicy,
                List.copyOf(filters));
    }
}
