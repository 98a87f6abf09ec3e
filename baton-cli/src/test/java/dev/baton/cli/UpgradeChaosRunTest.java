package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.RandomFaults.FaultKind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A chaos run whose one fault is a rolling upgrade of the servers from ZooKeeper 3.8 to 3.9. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@Tag("chaos")
class UpgradeChaosRunTest {

    @Test
    void aRollingUpgradeFrom38To39UnderALatchAMutexAndAQueueLosesNoSessionAndBreaksNothing() throws Exception {
        // One fault, drawn at once: 1 s of faults starts one rolling upgrade, which runs to its end (the next
        // would roll back). Then the usual quiet spell, the queue drains and the checkers read the history.
        ChaosRun.Settings settings = new ChaosRun.Settings(List.of(ChaosRecipe.LATCH, ChaosRecipe.MUTEX,
                ChaosRecipe.QUEUE), Duration.ofSeconds(1), 3, 2938L, Duration.ofSeconds(4),
                List.of(FaultKind.ROLLING_UPGRADE), false, Optional.of("3.8"), Optional.of("3.9"), 0);
        ChaosRuns.Run run = ChaosRuns.run("upgrade", settings);
        ChaosReport report = run.report();
        String text = run.text();
        assertThat(text).contains("ZooKeeper 3.8.6", "rolling upgrade 3.8.6 -> 3.9.5",
                "fault f1 healed: every server on 3.9.5");
        assertThat(report.faults()).as(text).isEqualTo(Map.of(FaultKind.ROLLING_UPGRADE, 1));
        assertThat(report.serverVersions()).as(text).hasSize(3).allSatisfy((id, v) -> assertThat(v)
                .startsWith("3.9."));
        assertThat(report.sessions().counted()).isTrue();
        assertThat(report.sessions().losses()).as(text).isEmpty();
        report.verdicts().forEach((recipe, verdict) -> {
            assertThat(verdict.violations()).as("%s:%n%s", recipe.id(), text).isEmpty();
            assertThat(report.counts().get(recipe)).as("%s did work:%n%s", recipe.id(), text)
                    .doesNotStartWith("0 ");
        });
        assertThat(report.passed()).as(text).isTrue();
        assertThat(text).contains("servers (srvr): 1=3.9.5, 2=3.9.5, 3=3.9.5", "0 violations");
    }
}
