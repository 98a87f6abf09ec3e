package dev.baton.discovery;

import org.jspecify.annotations.Nullable;

/**
 * Chooses one instance for a {@link ServiceProvider}'s {@code getInstance()}: {@link RoundRobinStrategy} (the
 * default), {@link RandomStrategy}, {@link StickyStrategy}, or one of the application's own.
 *
 * <p>Implementations must be thread-safe and must not block: they run on the caller's thread with the cached
 * instances, and never ask ZooKeeper.
 *
 * @param <T> the payload's type
 */
@FunctionalInterface
public interface ProviderStrategy<T> {

    /**
     * {@return the chosen instance, or null if there is none}
     *
     * @param instanceProvider the instances to choose from
     */
    @Nullable ServiceInstance<T> getInstance(InstanceProvider<T> instanceProvider);
}
