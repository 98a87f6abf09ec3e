package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A mixed fleet under faults: Apache Curator's recipes in half the clients, Baton's in the others, on the same
 * znodes. No violation may involve a Baton client.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@Tag("chaos")
class MixedChaosRunTest {

    @Test
    void curatorAndBatonClientsShareEveryRecipeUnderFaultsAndNoViolationInvolvesABatonClient()
            throws Exception {
        // Two clients of each library on one embedded server, every recipe on the same znodes. The broken
        // variants run mixed in EmbeddedChaosRunTest, beside this class, with two clients; the broken semaphore
        // needs three to exceed its limit of two, so it runs here.
        List<ChaosRecipe> recipes = ChaosRecipe.parseList("all,broken-semaphore");
        ChaosRun.Settings settings = new ChaosRun.Settings(recipes, Duration.ofSeconds(15), 4, 6151L,
                Duration.ofSeconds(4), ChaosRuns.EMBEDDED_KINDS, true).withCurator(50);
        ChaosRuns.Run run = ChaosRuns.run("mixed", settings);
        ChaosReport report = run.report();
        String text = run.text();
        assertThat(report.clients()).as(text).containsExactly(Map.entry("c1-baton", ClientLibrary.BATON),
                Map.entry("c2-curator", ClientLibrary.CURATOR), Map.entry("c3-baton", ClientLibrary.BATON),
                Map.entry("c4-curator", ClientLibrary.CURATOR));
        assertThat(text).contains("4 client processes (2 on Apache Curator)");
        assertThat(report.faults()).as(text).isNotEmpty();
        assertThat(report.verdicts().keySet()).as(text).containsExactlyElementsOf(recipes);
        report.verdicts().forEach((recipe, verdict) -> {
            if (recipe.broken()) {
                assertThat(verdict.violations()).as("%s must be caught:%n%s", recipe.id(), text).isNotEmpty();
                return;
            }
            assertThat(verdict.violations()).as("%s: none may involve a Baton client:%n%s", recipe.id(), text)
                    .allMatch(report::curatorOnly);
            assertThat(report.successes().get(recipe)).as("both libraries did work in %s:%n%s", recipe.id(), text)
                    .containsKeys(ClientLibrary.BATON, ClientLibrary.CURATOR);
        });
    }
}
