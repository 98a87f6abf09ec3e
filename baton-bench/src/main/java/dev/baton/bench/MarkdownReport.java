package dev.baton.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** Renders scenario results as markdown: one table per scenario, one row per library (its median round). */
final class MarkdownReport {

    private MarkdownReport() {
    }

    /**
     * {@return the report, ending with a newline}
     *
     * @param results the scenarios' results
     * @param options the settings they ran with, for the heading
     * @param serverDescription where they ran
     */
    static String render(List<ScenarioResult> results, BenchOptions options, String serverDescription) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT,
                "Each row: a library's median round (by throughput) of %d rounds × %,d ops, run in turns of %,d ops"
                        + " interleaved with the other libraries, after %d warm-up round(s) of %,d ops; %s; Java %s,"
                        + " %d CPUs.%n",
                options.rounds(), options.ops(), Math.min(options.slice(), options.ops()), options.warmupRounds(),
                options.warmupOps(), serverDescription, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors()));
        out.append(String.format(Locale.ROOT, "Ratio columns pair each turn with the other libraries' adjacent turns of"
                + " the same round and take the median over all turns: ops/s vs Curator = Curator's mean time per op"
                + " ÷ this library's (above 1 is faster); p50 vs Curator = this library's p50 latency ÷ Curator's,"
                + " the median over rounds (below 1 is faster); time/op vs ZooKeeper = this library's mean time per op"
                + " ÷ the bare ZooKeeper client's − 1 (the overhead; + is slower).%n"));
        for (ScenarioResult result : results) {
            out.append(System.lineSeparator());
            out.append(table(result));
        }
        return out.toString();
    }

    /** One scenario's heading and table. */
    static String table(ScenarioResult result) {
        StringBuilder out = new StringBuilder();
        out.append("### ").append(result.scenario()).append(System.lineSeparator()).append(System.lineSeparator());
        out.append(result.description()).append('.').append(System.lineSeparator()).append(System.lineSeparator());
        out.append("| Library | ops/s | p50 µs | p99 µs | ZK requests/op | ops/s vs Curator | p50 vs Curator"
                + " | time/op vs ZooKeeper |")
                .append(System.lineSeparator());
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|").append(System.lineSeparator());
        for (String library : result.libraries()) {
            RunResult r = result.median(library);
            double vsCurator = 1 / result.pairedTimeRatio(library, Libraries.CURATOR);
            double p50VsCurator = result.p50Ratio(library, Libraries.CURATOR);
            double vsZooKeeper = result.pairedTimeRatio(library, Libraries.ZOOKEEPER);
            out.append(String.format(Locale.ROOT, "| %s | %,.0f | %.1f | %.1f | %s | %s | %s | %s |%n",
                    library, r.opsPerSecond(), r.p50Nanos() / 1e3, r.p99Nanos() / 1e3,
                    Double.isNaN(r.requestsPerOp()) ? "n/a" : String.format(Locale.ROOT, "%.2f", r.requestsPerOp()),
                    Double.isNaN(vsCurator) ? "n/a" : String.format(Locale.ROOT, "%.2f×", vsCurator),
                    Double.isNaN(p50VsCurator) ? "n/a" : String.format(Locale.ROOT, "%.2f×", p50VsCurator),
                    Double.isNaN(vsZooKeeper) ? "n/a" : String.format(Locale.ROOT, "%+.1f%%",
                            (vsZooKeeper - 1) * 100)));
        }
        out.append(hookOverhead(result));
        out.append(requestsByPhase(result));
        return out.toString();
    }

    /**
     * What attaching metrics costs Baton, when both ran: the paired time-per-op ratio of {@code Baton+metrics}
     * to {@code Baton}.
     *
     * @return a line with a blank line before it, or "" when either did not run
     */
    static String hookOverhead(ScenarioResult result) {
        double ratio = result.pairedTimeRatio(Libraries.BATON_METRICS, Libraries.BATON);
        if (Double.isNaN(ratio)) {
            return "";
        }
        String nl = System.lineSeparator();
        return String.format(Locale.ROOT, "%nMetrics hook overhead: %s takes %+.1f%% time per op vs %s, i.e. %.3f× its"
                + " throughput (median of paired turns).%n", Libraries.BATON_METRICS, (ratio - 1) * 100,
                Libraries.BATON, 1 / ratio).replace("\n", nl);
    }

    /**
     * The server's requests per op split by phase and operation type, from each library's median round: the
     * phase {@link RunResult#WHOLE_OP}, then the scenario's own phases. Phase first, so the libraries' rows of
     * one phase sit together.
     *
     * @return the table with a blank line before it, or "" when the server did not count requests
     */
    static String requestsByPhase(ScenarioResult result) {
        List<String> phases = new ArrayList<>();
        for (String library : result.libraries()) {
            result.median(library).requestsByPhase().keySet().stream().filter(p -> !phases.contains(p))
                    .forEach(phases::add);
        }
        if (phases.isEmpty()) {
            return "";
        }
        String nl = System.lineSeparator();
        StringBuilder out = new StringBuilder();
        out.append(nl).append("ZK requests per op by phase and type (each library's median round):").append(nl)
                .append(nl);
        out.append("| Phase | Library | requests/op | by type |").append(nl);
        out.append("|---|---|---:|---|").append(nl);
        for (String phase : phases) {
            for (String library : result.libraries()) {
                RunResult r = result.median(library);
                Map<String, Long> counts = r.requestsByPhase().get(phase);
                if (counts == null) {
                    continue;
                }
                long total = counts.values().stream().mapToLong(Long::longValue).sum();
                StringJoiner types = new StringJoiner(", ");
                counts.forEach((type, n) -> types.add(String.format(Locale.ROOT, "%s %.2f", type,
                        (double) n / r.ops())));
                out.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %s |%n", phase, library,
                        (double) total / r.ops(), types.length() == 0 ? "none" : types));
            }
        }
        return out.toString();
    }
}
