package dev.baton.bench;

import dev.baton.bench.impl.BatonBenchClient;
import dev.baton.bench.impl.CuratorBenchClient;
import dev.baton.bench.impl.ZooKeeperBenchClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/** The registry of library adapters, in report order. */
final class Libraries {

    /** The names the ratio columns compare against. */
    static final String BATON = "Baton";
    static final String CURATOR = "Curator";
    static final String ZOOKEEPER = "ZooKeeper";
    /** Baton with the metrics hook and a Micrometer registry attached; run only when named. */
    static final String BATON_METRICS = "Baton+metrics";

    private static final List<Supplier<BenchClient>> ALL = List.of(
            BatonBenchClient::new,
            CuratorBenchClient::new,
            ZooKeeperBenchClient::new);

    /** Adapters that run only when named, in report order after the others. */
    private static final List<Supplier<BenchClient>> OPTIONAL = List.of(
            () -> new BatonBenchClient(true));

    private Libraries() {
    }

    /**
     * New, unopened adapters for the libraries with the given names (case-insensitive), in report order; all of
     * them but the optional ones ({@code baton+metrics}) for an empty list.
     *
     * @throws IllegalArgumentException naming an unknown library
     */
    static List<BenchClient> create(List<String> names) {
        List<BenchClient> all = new ArrayList<>();
        ALL.forEach(s -> all.add(s.get()));
        if (names.isEmpty()) {
            return all;
        }
        OPTIONAL.forEach(s -> all.add(s.get()));
        List<String> wanted = names.stream().map(n -> n.toLowerCase(Locale.ROOT)).toList();
        for (String name : wanted) {
            if (all.stream().noneMatch(c -> c.name().toLowerCase(Locale.ROOT).equals(name))) {
                throw new IllegalArgumentException("unknown library '" + name + "'; known: "
                        + String.join(", ", all.stream().map(BenchClient::name).toList()));
            }
        }
        return all.stream().filter(c -> wanted.contains(c.name().toLowerCase(Locale.ROOT))).toList();
    }
}
