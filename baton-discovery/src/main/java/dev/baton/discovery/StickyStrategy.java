package dev.baton.discovery;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Keeps handing out the same instance while it is available (cached and passing the provider's filters), and
 * asks another strategy for a new one when it is not. Thread-safe.
 *
 * @param <T> the payload's type
 */
public final class StickyStrategy<T> implements ProviderStrategy<T> {
    private final ProviderStrategy<T> masterStrategy;
    private final AtomicReference<ServiceInstance<T>> current = new AtomicReference<>();
    private final AtomicInteger instanceNumber = new AtomicInteger(-1);

    /**
     * @param masterStrategy chooses the instance to stick to
     * @throws NullPointerException if {@code masterStrategy} is null
     */
    public StickyStrategy(ProviderStrategy<T> masterStrategy) {
        this.masterStrategy = Objects.requireNonNull(masterStrategy, "masterStrategy");
    }

    @Override
    public @Nullable ServiceInstance<T> getInstance(InstanceProvider<T> instanceProvider) {
        List<ServiceInstance<T>> instances = instanceProvider.getInstances();
        ServiceInstance<T> stuck = current.get();
        if (stuck != null && instances.contains(stuck)) {
            return stuck;
        }
        ServiceInstance<T> chosen = masterStrategy.getInstance(() -> instances);
        if (current.compareAndSet(stuck, chosen)) {
            if (chosen != null) {
                instanceNumber.incrementAndGet();
            }
            return chosen;
        }
        return current.get(); // another caller chose meanwhile: stick to its choice
    }

    /** {@return how many times an instance was chosen to stick to, less one ({@code -1} before the first)} */
    public int getInstanceNumber() {
        return instanceNumber.get();
    }
}
