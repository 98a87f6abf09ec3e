package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The {@code baton+metrics} adapter: only when named, and its overhead line in the report. Never timings. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MeteredBatonBenchTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void theMeteredBatonRunsOnlyWhenNamed() {
        assertThat(Libraries.create(List.of())).extracting(BenchClient::name).doesNotContain("Baton+metrics");
        assertThat(Libraries.create(List.of("Baton+Metrics", "baton"))).extracting(BenchClient::name)
                .containsExactly("Baton", "Baton+metrics");
    }

    @Test
    void theReportTellsTheHooksOverheadOnBothScenarios() throws Exception {
        BenchOptions options = BenchOptions.parse("--ops", "40", "--slice", "20", "--rounds", "1",
                "--warmup-ops", "10", "--scenarios", "sync-create-delete,get-data",
                "--libraries", "baton,baton+metrics");
        List<ScenarioResult> results;
        try (PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)) {
            results = new BenchRunner(BenchServer.of(zk.server()), options, out)
                    .run(Scenarios.select(options.scenarios()), Libraries.create(options.libraries()));
        }
        for (ScenarioResult result : results) {
            assertThat(result.libraries()).containsExactly("Baton", "Baton+metrics");
            assertThat(result.median("Baton+metrics").ops()).isEqualTo(40);
            assertThat(MarkdownReport.table(result)).contains("Metrics hook overhead: Baton+metrics takes");
        }
    }
}
