package dev.baton.discovery;

import java.util.List;

/**
 * The instances a {@link ProviderStrategy} chooses from: a {@link ServiceProvider}'s cached instances, filtered.
 *
 * @param <T> the payload's type
 */
@FunctionalInterface
public interface InstanceProvider<T> {

    /** {@return the instances to choose from now, in a stable order (by id); never null} */
    List<ServiceInstance<T>> getInstances();
}
