package dev.baton.micrometer;

import dev.baton.BatonClient;
import dev.baton.BatonEventType;
import dev.baton.OperationEvent;
import dev.baton.OperationListener;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.leader.LeaderSelector;
import dev.baton.recipes.locks.InterProcessLock;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.state.ConnectionState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer metrics for a {@link BatonClient} and the recipes registered with it; works with or without Spring.
 *
 * <pre>{@code
 * try (BatonMetrics metrics = BatonMetrics.monitor(client, registry, Tags.of("app", "billing"))) {
 *     InterProcessLock lock = metrics.lock(new InterProcessMutex(client, "/locks/invoices"));
 *     metrics.leader(latch);
 *     ...
 * }                                           // close(): the meters leave the registry
 * }</pre>
 *
 * <p>Client meters, recorded through the client's {@link OperationListener} hook:
 * <ul>
 *   <li>{@code baton.operations} timer, tags {@code operation} (the operation's {@link BatonEventType} in lower
 *       case: {@code create}, {@code get_data}, {@code children}, ...) and {@code result} ({@code ok}, or the
 *       {@link KeeperException.Code} name such as {@code NONODE}; an {@code exists} that finds no node is
 *       {@code ok});</li>
 *   <li>{@code baton.retries} counter, tag {@code operation}: retries the retry policy made;</li>
 *   <li>{@code baton.connection.state} gauge, tag {@code state} (one per {@link ConnectionState}): 1 for the
 *       current state, 0 for the others;</li>
 *   <li>{@code baton.connection.transitions} counter, tag {@code state}: how often each state was entered;</li>
 *   <li>{@code baton.session.expirations} counter: sessions lost ({@code LOST}).</li>
 * </ul>
 * Recipe meters, tag {@code path}, for recipes registered here: {@code baton.lock.acquire} timer (tag
 * {@code result}: {@code acquired}, {@code timeout}, {@code failed}), {@code baton.lock.held} long-task timer
 * (one active task per acquisition), {@code baton.leader} gauge (1 while an instance in this process leads).
 * Every meter also carries the tags given to {@link #monitor(BatonClient, MeterRegistry, Iterable)}.
 *
 * <p>The operation path costs a cached meter lookup per operation. Thread-safe; {@link #close()} removes every
 * meter this instance made and unhooks it from the client.
 */
public final class BatonMetrics implements AutoCloseable {
    private static final ConnectionState[] STATES = ConnectionState.values();

    private final BatonClient client;
    private final MeterRegistry registry;
    private final Tags tags;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Set<Meter> meters = ConcurrentHashMap.newKeySet();
    private final Map<BatonEventType, Timer> okTimers = new ConcurrentHashMap<>();
    private final Map<String, Timer> failedTimers = new ConcurrentHashMap<>();
    private final Map<BatonEventType, Counter> retryCounters = new ConcurrentHashMap<>();
    private final Map<ConnectionState, Counter> transitions = new EnumMap<>(ConnectionState.class);
    private final Counter expirations;
    private final Map<String, LeaderGauge> leaders = new ConcurrentHashMap<>();
    private final Map<String, LockMeters> locks = new ConcurrentHashMap<>();
    /** The client's connection state; null before its first connection. */
    private volatile @Nullable ConnectionState current;
    private final OperationListener hook = new OperationListener() {
        @Override
        public void operationCompleted(OperationEvent event) {
            record(event);
        }

        @Override
        public void connectionStateChanged(ConnectionState newState) {
            current = newState;
            Objects.requireNonNull(transitions.get(newState), "a counter per state, made up front").increment();
            if (newState == ConnectionState.LOST) {
                expirations.increment();
            }
        }
    };

    private BatonMetrics(BatonClient client, MeterRegistry registry, Tags tags) {
        this.client = client;
        this.registry = registry;
        this.tags = tags;
        this.current = client.getConnectionState();
        for (ConnectionState state : STATES) {
            transitions.put(state, add(Counter.builder("baton.connection.transitions").tags(tags)
                    .tag("state", state.name()).description("Times the client entered a connection state")
                    .register(registry)));
            add(Gauge.builder("baton.connection.state", this, m -> m.current == state ? 1 : 0).tags(tags)
                    .tag("state", state.name()).description("1 for the client's current connection state")
                    .register(registry));
        }
        this.expirations = add(Counter.builder("baton.session.expirations").tags(tags)
                .description("ZooKeeper sessions lost (expired, or treated as expired)").register(registry));
        client.getOperationListenable().addListener(hook);
    }

    /**
     * Starts recording a client's meters into a registry.
     *
     * @param client the client (started or not)
     * @param registry where the meters go
     * @return the binding; close it to remove the meters
     * @throws NullPointerException if an argument is null
     */
    public static BatonMetrics monitor(BatonClient client, MeterRegistry registry) {
        return monitor(client, registry, Tags.empty());
    }

    /**
     * Starts recording a client's meters into a registry, each meter carrying {@code tags}.
     *
     * @param client the client (started or not)
     * @param registry where the meters go
     * @param tags tags added to every meter, such as the application or the ensemble
     * @return the binding; close it to remove the meters
     * @throws NullPointerException if an argument is null
     */
    public static BatonMetrics monitor(BatonClient client, MeterRegistry registry, Iterable<Tag> tags) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(tags, "tags");
        return new BatonMetrics(client, registry, Tags.of(tags));
    }

    private <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }

    private void record(OperationEvent event) {
        if (closed.get()) {
            return;
        }
        BatonEventType type = event.type();
        Timer timer;
        if (event.isOk()) {
            timer = okTimers.computeIfAbsent(type, t -> operationTimer(t, "ok"));
        } else {
            timer = failedTimers.computeIfAbsent(event.type().name() + ' ' + event.resultCode().name(),
                    key -> operationTimer(event.type(), event.resultCode().name()));
        }
        timer.record(event.duration());
        if (event.retries() > 0) {
            Counter retries = retryCounters.computeIfAbsent(type, t -> add(Counter.builder("baton.retries")
                    .tags(tags).tag("operation", operation(t))
                    .description("Retries of ZooKeeper operations under the retry policy").register(registry)));
            retries.increment(event.retries());
        }
    }

    private Timer operationTimer(BatonEventType type, String result) {
        return add(Timer.builder("baton.operations").tags(tags).tag("operation", operation(type))
                .tag("result", result).description("ZooKeeper operations, retries included")
                .register(registry));
    }

    private static String operation(BatonEventType type) {
        return type.name().toLowerCase(Locale.ROOT);
    }

    /**
     * Records a mutex's acquisitions under its own path.
     *
     * @param mutex the mutex
     * @return a lock that does what {@code mutex} does and records {@code baton.lock.acquire} and
     *     {@code baton.lock.held}; use it in place of {@code mutex}
     * @throws NullPointerException if {@code mutex} is null
     * @throws IllegalStateException if this binding is closed
     */
    public InterProcessLock lock(InterProcessMutex mutex) {
        return lock(Objects.requireNonNull(mutex, "mutex"), mutex.getPath());
    }

    /**
     * Records a lock's acquisitions.
     *
     * @param lock any lock: mutex, semaphore mutex, a read or write lock, a multi-lock
     * @param path the {@code path} tag, usually the lock's path
     * @return a lock that does what {@code lock} does and records {@code baton.lock.acquire} and
     *     {@code baton.lock.held}; use it in place of {@code lock}
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if this binding is closed
     */
    public InterProcessLock lock(InterProcessLock lock, String path) {
        Objects.requireNonNull(lock, "lock");
        Objects.requireNonNull(path, "path");
        requireOpen();
        LockMeters lockMeters = locks.computeIfAbsent(path, p -> new LockMeters(
                add(acquireTimer(p, "acquired")), add(acquireTimer(p, "timeout")), add(acquireTimer(p, "failed")),
                add(LongTaskTimer.builder("baton.lock.held").tags(tags).tag("path", p)
                        .description("Locks held by this process, and for how long").register(registry)),
                closed));
        return new MeteredLock(lock, lockMeters);
    }

    private Timer acquireTimer(String path, String result) {
        return Timer.builder("baton.lock.acquire").tags(tags).tag("path", path).tag("result", result)
                .description("Lock acquisitions, from the call to the outcome").register(registry);
    }

    /**
     * Shows a latch's leadership as the {@code baton.leader} gauge of its path.
     *
     * @param latch the latch
     * @return closing it takes the latch off the gauge
     * @throws NullPointerException if {@code latch} is null
     * @throws IllegalStateException if this binding is closed
     */
    public AutoCloseable leader(LeaderLatch latch) {
        Objects.requireNonNull(latch, "latch");
        return leader(latch.getPath(), latch::hasLeadership);
    }

    /**
     * Shows a selector's leadership as the {@code baton.leader} gauge of its path.
     *
     * @param selector the selector
     * @return closing it takes the selector off the gauge
     * @throws NullPointerException if {@code selector} is null
     * @throws IllegalStateException if this binding is closed
     */
    public AutoCloseable leader(LeaderSelector selector) {
        Objects.requireNonNull(selector, "selector");
        return leader(selector.getPath(), selector::hasLeadership);
    }

    /**
     * Shows any leadership as the {@code baton.leader} gauge: 1 while at least one of the suppliers registered
     * for the path says true.
     *
     * @param path the {@code path} tag
     * @param leading tells whether this instance leads now; called when the gauge is read, so it must be quick
     * @return closing it takes the supplier off the gauge (and the gauge off the registry after the last one)
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if this binding is closed
     */
    public AutoCloseable leader(String path, BooleanSupplier leading) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(leading, "leading");
        requireOpen();
        leaders.compute(path, (p, existing) -> {
            LeaderGauge gauge = existing;
            if (gauge == null) {
                Set<BooleanSupplier> instances = new CopyOnWriteArraySet<>();
                gauge = new LeaderGauge(instances, add(Gauge.builder("baton.leader", instances, BatonMetrics::anyLeads)
                        .tags(tags).tag("path", p).description("1 while this process leads the election at the path")
                        .strongReference(true).register(registry)));
            }
            gauge.instances().add(leading);
            return gauge;
        });
        AtomicBoolean done = new AtomicBoolean();
        return () -> {
            if (done.compareAndSet(false, true)) {
                leaders.computeIfPresent(path, (p, gauge) -> {
                    gauge.instances().remove(leading);
                    if (!gauge.instances().isEmpty()) {
                        return gauge;
                    }
                    registry.remove(gauge.gauge());
                    meters.remove(gauge.gauge());
                    return null;
                });
            }
        };
    }

    /** The {@code baton.leader} gauge of one path and the instances it reads. */
    private record LeaderGauge(Set<BooleanSupplier> instances, Gauge gauge) {
    }

    private static double anyLeads(Set<BooleanSupplier> instances) {
        for (BooleanSupplier instance : instances) {
            if (instance.getAsBoolean()) {
                return 1;
            }
        }
        return 0;
    }

    private void requireOpen() {
        if (closed.get()) {
            throw new IllegalStateException("these metrics are closed");
        }
    }

    /**
     * Stops recording: unhooks from the client and removes every meter this binding made from the registry.
     * Locks wrapped by {@link #lock} keep working, without recording. Calling it again does nothing.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        client.getOperationListenable().removeListener(hook);
        for (Meter meter : meters) {
            registry.remove(meter);
        }
        meters.clear();
        leaders.clear();
        locks.clear();
    }
}
