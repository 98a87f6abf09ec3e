package dev.baton.bench;

import java.util.List;
import java.util.Locale;

/** Renders scenario results as markdown: one table per scenario, one row per library (its median round). */
final class MarkdownReport {

    private MarkdownReport() {
    }

    /**
     * @param results the scenarios' results
     * @param options the settings they ran with, for the heading
     * @param serverDescription where they ran
     * @return the report, ending with a newline
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
                + " ÷ this library's (above 1 is faster); time/op vs ZooKeeper = this library's mean time per op"
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
        out.append("| Library | ops/s | p50 µs | p99 µs | ZK requests/op | ops/s vs Curator | time/op vs ZooKeeper |")
                .append(System.lineSeparator());
        out.append("|---|---:|---:|---:|---:|---:|---:|").append(System.lineSeparator());
        for (String library : result.libraries()) {
            RunResult r = result.median(library);
            double vsCurator = 1 / result.pairedTimeRatio(library, Libraries.CURATOR);
            double vsZooKeeper = result.pairedTimeRatio(library, Libraries.ZOOKEEPER);
            out.append(String.format(Locale.ROOT, "| %s | %,.0f | %.1f | %.1f | %s | %s | %s |%n",
                    library, r.opsPerSecond(), r.p50Nanos() / 1e3, r.p99Nanos() / 1e3,
                    Double.isNaN(r.requestsPerOp()) ? "n/a" : String.format(Locale.ROOT, "%.2f", r.requestsPerOp()),
                    Double.isNaN(vsCurator) ? "n/a" : String.format(Locale.ROOT, "%.2f×", vsCurator),
                    Double.isNaN(vsZooKeeper) ? "n/a" : String.format(Locale.ROOT, "%+.1f%%",
                            (vsZooKeeper - 1) * 100)));
        }
        return out.toString();
    }
}
