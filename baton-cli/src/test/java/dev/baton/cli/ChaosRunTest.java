package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
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
 * The random-fault run of SPEC section 5, short: every real recipe in three client JVMs on a 3-server ensemble of
 * separate JVMs, under seeded random faults of every kind, then the checkers. A deliberately broken counter (a
 * read and a write without a version) runs alongside, to show that the linearizability checker is not a rubber
 * stamp on this very run. The long run is {@code baton chaos --duration 1h}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@Tag("chaos")
class ChaosRunTest {

    @Test
    void realRecipesPassEveryCheckerUnderSeededRandomFaultsAndABrokenCounterFails() throws Exception {
        List<ChaosRecipe> recipes = new ArrayList<>(ChaosRecipe.parseList("all"));
        recipes.add(ChaosRecipe.BROKEN_COUNTER);
        // Seed 8197 draws SIGSTOP of a server, a server kill, SIGSTOP of a client, a leader kill, a client
        // partition, a session expiry, a server cut from its peers and a quorum loss, in that order.
        ChaosRun.Settings settings = new ChaosRun.Settings(recipes, Duration.ofSeconds(30), 3, 8197L,
                Duration.ofSeconds(4), ChaosRuns.RANDOM_KINDS, false);
        ChaosRuns.Run run = ChaosRuns.run("ensemble", settings);
        ChaosReport report = run.report();
        String text = run.text();
        // How many of the drawn faults fit the 30 s depends on how fast servers restart on this machine (a
        // loaded one took 14 s for one restart): the first three always do.
        assertThat(report.faults().values().stream().mapToInt(Integer::intValue).sum()).as(text)
                .isGreaterThanOrEqualTo(3);
        assertThat(report.faults()).as(text).containsKeys(FaultKind.PAUSE_SERVER, FaultKind.KILL,
                FaultKind.PAUSE_CLIENT);
        report.verdicts().forEach((recipe, verdict) -> {
            if (recipe.broken()) {
                assertThat(verdict.violations()).as("%s must be caught:%n%s", recipe.id(), text).isNotEmpty()
                        .allSatisfy(v -> assertThat(v.checker()).isEqualTo("linearizable"));
            } else {
                assertThat(verdict.violations()).as("%s:%n%s", recipe.id(), text).isEmpty();
                assertThat(report.counts().get(recipe)).as("%s did work:%n%s", recipe.id(), text)
                        .doesNotStartWith("0 ");
            }
        });
        assertThat(text).contains("== verdict ==", "fault f1 ");
    }


    @Test
    void badOptionsAreRefusedBeforeAnythingStarts() {
        assertThat(baton("chaos", "--embedded", "--server-version", "3.8").err())
                .contains("--server-version needs separate-process servers; leave out --embedded");
        assertThat(baton("chaos", "--embedded", "--upgrade-to", "3.9", "--faults", "rolling-upgrade").err())
                .contains("--upgrade-to needs separate-process servers");
        assertThat(baton("chaos", "--faults", "rolling-upgrade").err())
                .contains("--faults rolling-upgrade needs --upgrade-to LINE");
        assertThat(baton("chaos", "--server-version", "3.8", "--upgrade-to", "3.9", "--faults", "kill").err())
                .contains("--upgrade-to 3.9 needs rolling-upgrade among --faults");
        assertThat(baton("chaos", "--server-version", "3.9", "--upgrade-to", "3.9.5").err())
                .contains("--upgrade-to 3.9.5 is the release the servers start on (3.9.5)");
        assertThat(baton("chaos", "--server-version", "4.1").err())
                .contains("--server-version 4.1", "on this class path: 3.5, 3.6, 3.7, 3.8, 3.9");
        assertThat(baton("chaos", "--embedded", "--faults", "kill,isolate").err())
                .contains("--faults isolate needs separate-process servers");
        assertThat(baton("chaos", "--faults", "reconfigure,partition-peers").err())
                .contains("--faults reconfigure cannot go with isolate or partition-peers");
        assertThat(baton("chaos", "--embedded", "--faults", "reconfigure").err())
                .contains("--faults reconfigure needs separate-process servers");
        assertThat(baton("chaos", "--recipe", "mutex,nope").exitCode()).isEqualTo(2);
        assertThat(baton("chaos", "--duration", "soon").err()).contains("--duration");
        assertThat(baton("chaos", "--clients", "1").err()).contains("--clients must be between 2 and 20");
        assertThat(baton("chaos", "--faults", "kill,meteor").err()).contains("unknown fault kind 'meteor'");
    }
}
