package dev.baton.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The registry of scenarios. A new scenario is one class and one line in {@link #ALL}. */
final class Scenarios {

    /** Every scenario, in report order. */
    static final List<Scenario> ALL = List.of(
            new SyncCreateDeleteScenario(),
            new AsyncCreateScenario(),
            new GetDataScenario(),
            new LatchJoinScenario(),
            new LatchFailoverScenario(),
            new SelectorRotationScenario(),
            new CacheInitialLoadScenario(),
            new CacheEventLatencyScenario(),
            new DoubleBarrierScenario(),
            new AtomicIncrementScenario(),
            new MutexUncontendedScenario(),
            new MutexContendedScenario(),
            new SemaphoreScenario(),
            new ReadWriteLockScenario(),
            new DiscoveryScenarios.GetInstance(),
            new DiscoveryScenarios.Convergence(),
            new DiscoveryScenarios.Caches(),
            new QueueScenario(false),
            new QueueScenario(true),
            new SimpleQueueScenario());

    private Scenarios() {
    }

    /**
     * The scenarios with the given names, in the order given; all of them for an empty list.
     *
     * @throws IllegalArgumentException naming an unknown scenario and the known ones
     */
    static List<Scenario> select(List<String> names) {
        if (names.isEmpty()) {
            return ALL;
        }
        List<Scenario> selected = new ArrayList<>();
        for (String name : names) {
            selected.add(ALL.stream()
                    .filter(s -> s.name().equals(name.toLowerCase(Locale.ROOT)))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown scenario '" + name + "'; known: "
                            + String.join(", ", ALL.stream().map(Scenario::name).toList()))));
        }
        return selected;
    }

    /**
     * The scenarios with the given names as {@link #select(List)} picks them, for a run with or without
     * {@code --tls}. With TLS, a scenario that cannot run over it ({@link Scenario#runsOverTls()}) is refused when
     * named, and left out of "all" (an empty list; {@link #withoutTls} names what was left out).
     *
     * @param names the names, or empty for all
     * @param tls whether the run is over TLS
     * @return the scenarios to run, in order
     * @throws IllegalArgumentException naming an unknown scenario, or with TLS the named ones that cannot run over it
     */
    static List<Scenario> select(List<String> names, boolean tls) {
        List<Scenario> selected = select(names);
        if (!tls) {
            return selected;
        }
        List<String> refused = withoutTls(selected);
        if (names.isEmpty()) {
            return selected.stream().filter(Scenario::runsOverTls).toList();
        }
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException("--tls cannot run " + String.join(", ", refused) + ": their sessions go"
                    + " through a proxy that reads the plaintext ZooKeeper protocol to count failed writes");
        }
        return selected;
    }

    /**
     * {@return the names of those that cannot run over TLS, in order}
     *
     * @param scenarios some scenarios
     */
    static List<String> withoutTls(List<Scenario> scenarios) {
        return scenarios.stream().filter(s -> !s.runsOverTls()).map(Scenario::name).toList();
    }
}
