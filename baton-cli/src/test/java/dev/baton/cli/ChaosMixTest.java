package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
import static dev.baton.cli.ClientLibrary.BATON;
import static dev.baton.cli.ClientLibrary.CURATOR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testing.Violation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The mix of a mixed chaos run: which clients run Curator, the option, and whom a violation is blamed on. */
class ChaosMixTest {

    @Test
    void theCuratorShareIsSpreadEvenlyWithAtLeastOneClientOfEachLibrary() {
        assertThat(libraries(4, 50)).containsExactly(BATON, CURATOR, BATON, CURATOR);
        assertThat(libraries(3, 50)).containsExactly(BATON, CURATOR, CURATOR);
        assertThat(libraries(5, 1)).containsExactly(BATON, BATON, BATON, BATON, CURATOR);
        assertThat(libraries(2, 99)).containsExactly(BATON, CURATOR);
        assertThat(libraries(5, 0)).containsOnly(BATON);
        assertThat(libraries(10, 30)).filteredOn(l -> l == CURATOR).hasSize(3);
    }

    @Test
    void theMixOptionTakesCuratorWithAnOptionalShare() {
        assertThat(ChaosCommand.curatorPercent("curator")).isEqualTo(50);
        assertThat(ChaosCommand.curatorPercent("Curator:30%")).isEqualTo(30);
        assertThat(ChaosCommand.curatorPercent("curator:75")).isEqualTo(75);
        assertThatThrownBy(() -> ChaosCommand.curatorPercent("curator:100%")).hasMessageContaining("from 1 to 99")
                .hasMessageContaining("curator:100%");
        assertThatThrownBy(() -> ChaosCommand.curatorPercent("zookeeper")).hasMessageContaining("--mix must look like")
                .hasMessageContaining("zookeeper");
        assertThat(baton("chaos", "--mix", "curator:0%").err()).contains("--mix curator:N% takes N from 1 to 99");
    }

    @Test
    void aViolationIsCuratorsOnlyWhenEveryClientInItRunsCurator() {
        Map<String, ClientLibrary> clients = new LinkedHashMap<>();
        clients.put("c1-baton", BATON);
        clients.put("c2-curator", CURATOR);
        clients.put("c4-curator", CURATOR);
        clients.put("c11-baton", BATON);
        ChaosRun.Report report = new ChaosRun.Report(Map.of(), Map.of(), Map.of(), 0, Optional.empty(),
                new ChaosRun.Sessions(4, List.of(), false), Map.of(), clients, Map.of());

        Violation curators = violation("lock 'mutex' has 2 holders: c2-curator, c4-curator");
        Violation mixed = violation("lock 'mutex' has 2 holders: c4-curator, c11-baton");
        Violation nobodyNamed = violation("no holder within 14000 ms of the last heal");

        assertThat(report.involved(curators)).containsExactly("c2-curator", "c4-curator");
        assertThat(report.curatorOnly(curators)).isTrue();
        // c1-baton is not read into c11-baton.
        assertThat(report.involved(mixed)).containsExactly("c11-baton", "c4-curator");
        assertThat(report.curatorOnly(mixed)).isFalse();
        // Nobody named, nothing marked, an empty window: not Curator's, so it fails the run.
        assertThat(report.curatorOnly(nobodyNamed)).isFalse();
    }

    private static Violation violation(String message) {
        return new Violation("mutual-exclusion", message, List.of(), "");
    }

    private static List<ClientLibrary> libraries(int clients, int percent) {
        return IntStream.rangeClosed(1, clients).mapToObj(i -> ClientLibrary.of(i, clients, percent)).toList();
    }
}
