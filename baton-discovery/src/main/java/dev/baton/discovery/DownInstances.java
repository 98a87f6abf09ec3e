package dev.baton.discovery;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A provider's noted errors, per instance id, applied as a {@link DownInstancePolicy}. Errors stick to the
 * instance's id, not to its data, so an instance whose registration is updated stays down. Thread-safe.
 */
final class DownInstances<T> implements InstanceFilter<T> {
    private final DownInstancePolicy policy;
    private final LongSupplier nanoClock;
    private final Map<String, Errors> errors = new ConcurrentHashMap<>();

    private record Errors(long firstAtNanos, int count) {
    }

    DownInstances(DownInstancePolicy policy, LongSupplier nanoClock) {
        this.policy = policy;
        this.nanoClock = nanoClock;
    }

    void noteError(ServiceInstance<T> instance) {
        long now = nanoClock.getAsLong();
        errors.merge(instance.getId(), new Errors(now, 1),
                (old, one) -> expired(old, now) ? one : new Errors(old.firstAtNanos, old.count + 1));
    }

    /** {@return true if no error is noted (the filter keeps every instance)} */
    boolean isEmpty() {
        return errors.isEmpty();
    }

    @Override
    public boolean apply(ServiceInstance<T> instance) {
        if (errors.isEmpty()) {
            return true;
        }
        Errors noted = errors.get(instance.getId());
        if (noted == null) {
            return true;
        }
        if (expired(noted, nanoClock.getAsLong())) {
            errors.remove(instance.getId(), noted);
            return true;
        }
        return noted.count < policy.errorThreshold();
    }

    private boolean expired(Errors noted, long now) {
        return now - noted.firstAtNanos >= policy.timeout().toNanos();
    }
}
