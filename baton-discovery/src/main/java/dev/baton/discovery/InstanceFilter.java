package dev.baton.discovery;

/**
 * Decides whether a {@link ServiceProvider} may hand out an instance ({@code additionalFilter}).
 *
 * @param <T> the payload's type
 */
@FunctionalInterface
public interface InstanceFilter<T> {

    /**
     * Called for every instance on every {@code getInstance()}: keep it cheap and non-blocking.
     *
     * @param instance a cached instance
     * @return true to keep it
     */
    boolean apply(ServiceInstance<T> instance);
}
