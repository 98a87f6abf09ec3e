package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every scenario for every library with tiny counts on an embedded server and checks the shape of the
 * results and the request counts, never the timings.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BenchSmokeTest {

    private static final int OPS = 50;

    /** Requests the server should see per op from a client that adds no request of its own. */
    private static final Map<String, Double> EXPECTED_REQUESTS_PER_OP = Map.of(
            "sync-create-delete", 2.0,
            "async-create", 1.0,
            "get-data", 1.0);

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static List<ScenarioResult> results;
    private static String report;
    private static String progress;

    @BeforeAll
    static void runEverything() throws Exception {
        // Turns of 20 ops (20 + 20 + 10) exercise the interleaving and the per-round totals.
        BenchOptions options = BenchOptions.parse("--ops", "50", "--slice", "20", "--rounds", "1",
                "--warmup-ops", "10", "--in-flight", "8");
        ByteArrayOutputStream progressBytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(progressBytes, true, StandardCharsets.UTF_8)) {
            results = new BenchRunner(BenchServer.of(zk.server()), options, out)
                    .run(Scenarios.ALL, Libraries.create(List.of()));
        }
        progress = progressBytes.toString(StandardCharsets.UTF_8);
        report = MarkdownReport.render(results, options, "test server");
    }

    static List<String> scenarioNames() {
        return Scenarios.ALL.stream().map(Scenario::name).toList();
    }

    @Test
    void everyScenarioHasAResult() {
        assertThat(results).extracting(ScenarioResult::scenario).containsExactlyElementsOf(scenarioNames());
        assertThat(EXPECTED_REQUESTS_PER_OP).containsOnlyKeys(scenarioNames());
    }

    @ParameterizedTest
    @MethodSource("scenarioNames")
    void everyLibraryRanEveryOp(String scenario) {
        ScenarioResult result = result(scenario);
        assertThat(result.libraries()).containsExactly("Baton", "Curator", "ZooKeeper");
        for (String library : result.libraries()) {
            assertThat(result.rounds().get(library)).hasSize(1);
            RunResult row = result.median(library);
            assertThat(row.library()).isEqualTo(library);
            assertThat(row.ops()).as(library).isEqualTo(OPS);
            assertThat(row.opsPerSecond()).as(library).isPositive();
            assertThat(row.p50Nanos()).as(library).isPositive().isLessThanOrEqualTo(row.p99Nanos());
        }
    }

    @ParameterizedTest
    @MethodSource("scenarioNames")
    void requestsPerOpArePlausible(String scenario) {
        ScenarioResult result = result(scenario);
        double expected = EXPECTED_REQUESTS_PER_OP.get(scenario);
        // Exact for the bare client; the libraries may add a request now and then, never one per op.
        assertThat(result.median("ZooKeeper").requestsPerOp()).isCloseTo(expected, within(0.05));
        for (String library : List.of("Baton", "Curator")) {
            assertThat(result.median(library).requestsPerOp()).as(library)
                    .isGreaterThanOrEqualTo(expected - 0.05)
                    .isLessThan(expected + 0.5);
        }
    }

    @Test
    void reportHasATablePerScenarioWithRatios() {
        for (String scenario : scenarioNames()) {
            assertThat(report).contains("### " + scenario);
        }
        assertThat(report).contains("| Library | ops/s | p50 µs | p99 µs | ZK requests/op | ops/s vs Curator"
                + " | time/op vs ZooKeeper |");
        assertThat(report.lines().filter(l -> l.startsWith("| Curator |")))
                .hasSize(scenarioNames().size())
                .allSatisfy(l -> assertThat(l).contains("| 1.00× |"));
        assertThat(report.lines().filter(l -> l.startsWith("| ZooKeeper |")))
                .allSatisfy(l -> assertThat(l).contains("| +0.0% |"));
        assertThat(report.lines().filter(l -> l.startsWith("| Baton |"))).hasSize(scenarioNames().size());
        assertThat(progress).contains("warm-up", "round 1/1");
    }

    @Test
    void externalServerHasNoRequestCounts() throws Exception {
        BenchOptions options = BenchOptions.parse("--ops", "20", "--rounds", "1", "--warmup-rounds", "0",
                "--libraries", "zookeeper,baton");
        List<ScenarioResult> external = new BenchRunner(BenchServer.external(zk.connectString()), options,
                new PrintStream(PrintStream.nullOutputStream(), true, StandardCharsets.UTF_8))
                .run(Scenarios.select(List.of("get-data")), Libraries.create(options.libraries()));
        assertThat(external.get(0).median("Baton").requestsPerOp()).isNaN();
        assertThat(MarkdownReport.table(external.get(0)))
                .contains("| n/a |")
                .contains("| Baton |", "| ZooKeeper |")
                .doesNotContain("| Curator |");
    }

    @Test
    void durationStopsEachLibraryShortOfItsOps() throws Exception {
        BenchOptions options = BenchOptions.parse("--ops", "1000000", "--slice", "100000", "--duration", "0.2",
                "--rounds", "1", "--warmup-rounds", "0", "--libraries", "zookeeper");
        List<ScenarioResult> limited = new BenchRunner(BenchServer.of(zk.server()), options,
                new PrintStream(PrintStream.nullOutputStream(), true, StandardCharsets.UTF_8))
                .run(Scenarios.select(List.of("sync-create-delete")), Libraries.create(options.libraries()));
        RunResult row = limited.get(0).median("ZooKeeper");
        assertThat(row.ops()).isPositive().isLessThan(1_000_000);
        assertThat(row.elapsedNanos()).isLessThan(5_000_000_000L);
        assertThat(row.requestsPerOp()).isCloseTo(2.0, within(0.05));
    }

    private static ScenarioResult result(String scenario) {
        return results.stream().filter(r -> r.scenario().equals(scenario)).findFirst().orElseThrow();
    }
}
