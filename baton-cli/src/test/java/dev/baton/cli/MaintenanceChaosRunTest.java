package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.RandomFaults.FaultKind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A chaos run whose one fault is a rolling restart of the three servers, with Curator and Baton clients on the
 * same recipes: every session moves to another server and survives, and nothing breaks.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@Tag("chaos")
class RollingRestartChaosRunTest {

    @Test
    void aRollingRestartUnderCuratorAndBatonClientsLosesNoBatonSessionAndBreaksNothing() throws Exception {
        // 1 s of faults starts one rolling restart, which runs to its end; then the quiet spell and the checks.
        ChaosRun.Settings settings = new ChaosRun.Settings(List.of(ChaosRecipe.LATCH, ChaosRecipe.MUTEX,
                ChaosRecipe.SEMAPHORE, ChaosRecipe.QUEUE), Duration.ofSeconds(1), 4, 7321L, Duration.ofSeconds(4),
                List.of(FaultKind.ROLLING_RESTART), false).withCurator(50);
        ChaosRuns.Run run = ChaosRuns.run("rolling-restart", settings);
        ChaosRun.Report report = run.report();
        String text = run.text();

        assertThat(report.faults()).as(text).isEqualTo(Map.of(FaultKind.ROLLING_RESTART, 1));
        assertThat(text).contains("fault f1 rolling-restart: rolling restart: servers", "fault f1 healed: every server"
                + " restarted").containsPattern("fault f1 step: server \\d restarted, quorum whole, leader \\d");
        assertThat(report.sessions().counted()).isTrue();
        assertThat(report.sessions().losses()).as(text).allMatch(report::curatorOnly);
        report.verdicts().forEach((recipe, verdict) -> {
            assertThat(verdict.violations()).as("%s: none may involve a Baton client:%n%s", recipe.id(), text)
                    .allMatch(report::curatorOnly);
            assertThat(report.successes().get(recipe)).as("both libraries did work in %s:%n%s", recipe.id(), text)
                    .containsKeys(ClientLibrary.BATON, ClientLibrary.CURATOR);
        });
        assertThat(report.passed()).as(text).isTrue();
    }
}
