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
            new QueueScenario(true));

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
}
