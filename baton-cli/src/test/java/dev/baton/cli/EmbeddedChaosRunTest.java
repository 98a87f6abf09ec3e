package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.RandomFaults.FaultKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A chaos run on one embedded server: it takes the faults that can reach it (none that needs separate servers),
 * and the checkers still catch the deliberately broken variants, here with one client of each library on them.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@Tag("chaos")
class EmbeddedChaosRunTest {

    @Test
    void anEmbeddedServerTakesTheFaultsThatCanReachItAndTheCheckersCatchTheBrokenVariantsOfBothLibraries()
            throws Exception {
        // Two clients, one of each library, so that the deaf mutex is nearly always held by one of them, and
        // session expiry drawn three times as often as another kind: the deaf holder is caught when a fault ends
        // its session and the other client takes the lock while it still believes.
        List<FaultKind> mix = new ArrayList<>(ChaosRuns.EMBEDDED_KINDS);
        mix.add(FaultKind.EXPIRE);
        mix.add(FaultKind.EXPIRE);
        ChaosRun.Settings settings = new ChaosRun.Settings(List.of(ChaosRecipe.MUTEX, ChaosRecipe.ATOMIC_LONG,
                ChaosRecipe.BROKEN_COUNTER, ChaosRecipe.DEAF_MUTEX, ChaosRecipe.STUCK_MUTEX,
                ChaosRecipe.BROKEN_RWLOCK, ChaosRecipe.BROKEN_BARRIER, ChaosRecipe.BROKEN_DOUBLE_BARRIER,
                ChaosRecipe.BROKEN_QUEUE, ChaosRecipe.BROKEN_LOCKED_QUEUE, ChaosRecipe.BROKEN_DISCOVERY),
                Duration.ofSeconds(20), 2, 4242L, Duration.ofSeconds(4), mix, true).withCurator(50);
        ChaosRuns.Run run = ChaosRuns.run("embedded", settings);
        ChaosReport report = run.report();
        String text = run.text();
        assertThat(text).contains("1 embedded server", "embedded server up: 127.0.0.1:");
        assertThat(report.faults()).as(text).isNotEmpty();
        assertThat(report.faults().keySet()).as(text).noneMatch(FaultKind::needsEnsemble);
        assertThat(report.clients()).as(text).containsOnlyKeys("c1-baton", "c2-curator");
        report.verdicts().forEach((recipe, verdict) -> {
            if (recipe.broken()) {
                assertThat(verdict.violations()).as("%s must be caught:%n%s", recipe.id(), text).isNotEmpty();
            } else {
                assertThat(verdict.violations()).as("%s: none may involve a Baton client:%n%s", recipe.id(), text)
                        .allMatch(report::curatorOnly);
                assertThat(report.counts().get(recipe)).as("%s did work:%n%s", recipe.id(), text)
                        .doesNotStartWith("0 ");
            }
        });
    }
}
