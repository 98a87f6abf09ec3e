package dev.baton.discovery;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * Hands out an instance chosen at random, uniformly. Thread-safe.
 *
 * @param <T> the payload's type
 */
public final class RandomStrategy<T> implements ProviderStrategy<T> {

    /** A strategy. */
    public RandomStrategy() {
    }

    @Override
    public @Nullable ServiceInstance<T> getInstance(InstanceProvider<T> instanceProvider) {
        List<ServiceInstance<T>> instances = instanceProvider.getInstances();
        return instances.isEmpty() ? null : instances.get(ThreadLocalRandom.current().nextInt(instances.size()));
    }
}
