package dev.baton.discovery;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Hands out the instances in turn. Thread-safe; one counter shared by all callers.
 *
 * @param <T> the payload's type
 */
public final class RoundRobinStrategy<T> implements ProviderStrategy<T> {
    private final AtomicInteger next = new AtomicInteger();

    /** A strategy starting at the first instance. */
    public RoundRobinStrategy() {
    }

    @Override
    public @Nullable ServiceInstance<T> getInstance(InstanceProvider<T> instanceProvider) {
        List<ServiceInstance<T>> instances = instanceProvider.getInstances();
        if (instances.isEmpty()) {
            return null;
        }
        return instances.get(Math.floorMod(next.getAndIncrement(), instances.size()));
    }
}
