package dev.baton.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.KeeperException;

/**
 * The benchmark command: runs the chosen scenarios for Baton, Apache Curator and the bare ZooKeeper client on the
 * same server in the same JVM, and prints one markdown table per scenario (progress goes to standard error, the
 * report to standard output); with {@code --out} or {@code --chart} it also writes an SVG chart
 * ({@link SvgChart}). See {@link BenchOptions#USAGE} or {@code --help} for the flags.
 *
 * <pre>{@code
 * baton-bench/run --ops 3000 --rounds 3 --out bench.md
 * }</pre>
 */
public final class BenchMain {

    private BenchMain() {
    }

    /**
     * Runs the benchmark. Exits with status 2 for bad arguments, 1 if a run failed and 0 after a run that did not
     * (explicitly: with {@code --tls}, ZooKeeper's Netty server factory leaves a non-daemon thread behind, the
     * executor of its channel group, which would keep the JVM running after the report).
     *
     * @param args the flags, see {@code --help}
     * @throws InterruptedException if interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        BenchOptions options;
        List<Scenario> scenarios;
        try {
            options = BenchOptions.parse(args);
            scenarios = Scenarios.select(options.scenarios(), options.tls());
            Libraries.create(options.libraries()); // validates the names before a server starts
        } catch (IllegalArgumentException e) {
            System.err.println("baton-bench: " + e.getMessage());
            System.err.print(BenchOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.print(BenchOptions.USAGE);
            return;
        }
        if (options.list()) {
            Scenarios.ALL.forEach(s -> System.out.printf("%-20s %s%n", s.name(), s.description()));
            return;
        }
        List<String> leftOut = options.tls() ? Scenarios.withoutTls(Scenarios.select(options.scenarios())) : List.of();
        if (!leftOut.isEmpty()) {
            System.err.println("baton-bench: --tls leaves out " + String.join(", ", leftOut)
                    + " (they count failed writes on a proxy that reads the plaintext protocol)");
        }
        try {
            Report report = run(options, scenarios, System.err);
            System.out.print(report.markdown());
            if (options.out() != null) {
                write(options.out(), report.markdown());
                System.err.println("report written to " + options.out());
            }
            if (options.chartFile() != null) {
                write(options.chartFile(), report.svg());
                System.err.println("chart written to " + options.chartFile());
            }
        } catch (KeeperException | IOException | RuntimeException e) {
            System.err.println("baton-bench: failed: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
        }
        System.out.flush();
        System.exit(0);
    }

    /** A run's results rendered: the markdown tables and the SVG chart. */
    record Report(String markdown, String svg) {
    }

    /**
     * Starts the server (unless {@link BenchOptions#connect()} names one; an ensemble with {@link
     * BenchOptions#ensemble()}; serving TLS with {@link BenchOptions#tls()}), runs the scenarios and renders the
     * report and the chart. The server, and with TLS its certificates, are gone when this returns or throws.
     */
    static Report run(BenchOptions options, List<Scenario> scenarios, PrintStream progress)
            throws KeeperException, InterruptedException {
        Duration latency = Duration.ofNanos(options.latencyNanos());
        try (BenchServer server = options.connect() != null ? behind(BenchServer.external(options.connect()), latency)
                : options.ensemble() > 0 ? BenchServer.ensemble(options.ensemble(), latency)
                : behind(BenchServer.embedded(options.tls()), latency)) {
            List<ScenarioResult> results = new BenchRunner(server, options, progress)
                    .run(scenarios, Libraries.create(options.libraries()));
            return new Report(MarkdownReport.render(results, options, server.describe()),
                    SvgChart.render(results, options, server.describe()));
        }
    }

    /** The server behind a delay line ({@link BenchServer#withLatency}); closes it if the line cannot start. */
    private static BenchServer behind(BenchServer server, Duration latency) {
        try {
            return server.withLatency(latency);
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    private static void write(Path file, String report) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, report, StandardCharsets.UTF_8);
    }
}
