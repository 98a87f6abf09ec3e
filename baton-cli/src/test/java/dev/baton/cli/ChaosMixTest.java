package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
import static dev.baton.cli.ClientLibrary.BATON;
import static dev.baton.cli.ClientLibrary.CURATOR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testing.Checkers;
import dev.baton.testing.History;
import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import dev.baton.testing.Violation;
import java.util.ArrayList;
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
        ChaosReport report = new ChaosReport(Map.of(), Map.of(), Map.of(), 0, Optional.empty(),
                new ChaosReport.Sessions(4, List.of(), false), Map.of(), clients, Map.of(), List.of());

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

    @Test
    void twoHoldersAreBlamedOnTheOlderHolderWhenItsSessionEndedUnderItsHold() {
        Map<String, ClientLibrary> clients = Map.of("c1-baton", BATON, "c2-curator", CURATOR);
        ChaosReport report = new ChaosReport(Map.of(), Map.of(), Map.of(), 0, Optional.empty(),
                new ChaosReport.Sessions(2, List.of(), false), Map.of(), clients, Map.of(), List.of());
        Event curatorHolds = event(1, "c2-curator", Kind.ACQUIRED, 10, "");
        Event curatorLost = event(2, "c2-curator", Kind.DISCONNECTED, History.NO_TOKEN, "LOST");
        Event batonHolds = event(3, "c1-baton", Kind.ACQUIRED, 20, "");
        Event curatorReconnects = event(4, "c2-curator", Kind.CONNECTED, History.NO_TOKEN, "RECONNECTED");

        Violation stale = twoHolders(curatorHolds, curatorLost, batonHolds, curatorReconnects);
        assertThat(report.involved(stale)).containsExactly("c1-baton", "c2-curator");
        assertThat(report.blamed(stale)).containsExactly("c2-curator");
        assertThat(report.curatorOnly(stale)).isTrue();

        // Without the lost session nothing says which hold is stale: both are blamed.
        Violation unclear = twoHolders(curatorHolds, batonHolds, curatorReconnects);
        assertThat(report.blamed(unclear)).containsExactly("c1-baton", "c2-curator");
        assertThat(report.curatorOnly(unclear)).isFalse();

        // A Baton holder that went on believing after its session ended is Baton's.
        Violation batonStale = twoHolders(event(1, "c1-baton", Kind.ACQUIRED, 10, ""),
                event(2, "c1-baton", Kind.DISCONNECTED, History.NO_TOKEN, "LOST"),
                event(3, "c2-curator", Kind.ACQUIRED, 20, ""));
        assertThat(report.blamed(batonStale)).containsExactly("c1-baton");
        assertThat(report.curatorOnly(batonStale)).isFalse();
    }

    @Test
    void aWaiterThatPassedAStandingBarrierIsBlamedAloneAndAnItemTakenTwiceOnItsConsumersAndProducer() {
        Map<String, ClientLibrary> clients = Map.of("c1-baton", BATON, "c2-curator", CURATOR, "c3-baton", BATON);
        ChaosReport report = new ChaosReport(Map.of(), Map.of(), Map.of(), 0, Optional.empty(),
                new ChaosReport.Sessions(3, List.of(), false), Map.of(), clients, Map.of(), List.of());

        Event waits = new Event(1, 1_000, "c2-curator", Kind.ENTER_CALLED, "barrier-c1-baton-3", History.NO_TOKEN, "");
        Event passes = new Event(2, 2_000, "c2-curator", Kind.ENTER_RETURNED, "barrier-c1-baton-3", History.NO_TOKEN,
                "");
        Violation passed = new Violation("barrier-blocks", "c2-curator passed barrier 'barrier-c1-baton-3' at #2"
                + " while it stood: c1-baton raised it at #0", List.of(waits, passes), "", List.of(waits, passes));
        assertThat(report.involved(passed)).containsExactly("c1-baton", "c2-curator");
        assertThat(report.blame(passed).clients()).containsExactly("c2-curator");
        assertThat(report.curatorOnly(passed)).isTrue();

        // An item taken twice: its consumers and its producer share it; Baton consumers make it not Curator's.
        Violation twiceFromCurator = takenTwice("queue-unlocked/c2-curator-7");
        assertThat(report.involved(twiceFromCurator)).containsExactly("c1-baton", "c3-baton");
        assertThat(report.blame(twiceFromCurator).clients()).containsExactly("c1-baton", "c2-curator", "c3-baton");
        assertThat(report.blame(twiceFromCurator).why()).contains("producer");
        assertThat(report.curatorOnly(twiceFromCurator)).isFalse();
        assertThat(report.blame(takenTwice("queue-unlocked/c3-baton-7")).clients())
                .containsExactly("c1-baton", "c3-baton");

        // A broken variant's violations are never Curator's: its code is the runner's in both libraries' clients.
        Violation brokenCounter = violation("no order of the operations on broken-counter explains c2-curator");
        ChaosReport broken = new ChaosReport(Map.of(ChaosRecipe.BROKEN_COUNTER, new ChaosReport.Verdict(
                List.of("linearizable"), List.of(brokenCounter))), Map.of(), Map.of(), 0, Optional.empty(),
                new ChaosReport.Sessions(3, List.of(), false), Map.of(), clients, Map.of(), List.of());
        assertThat(broken.curatorOnly(brokenCounter)).isTrue();
        assertThat(broken.excused(ChaosRecipe.BROKEN_COUNTER, brokenCounter)).isFalse();
        assertThat(broken.failing()).containsExactly(brokenCounter);
        assertThat(broken.passed()).isFalse();
    }

    private static Violation takenTwice(String item) {
        Event first = new Event(1, 1_000, "c1-baton", Kind.ITEM_TAKEN, item, History.NO_TOKEN, "");
        Event second = new Event(2, 2_000, "c3-baton", Kind.ITEM_TAKEN, item, History.NO_TOKEN, "");
        return new Violation("queue-at-most-once", "queue item '" + item + "' was taken twice: by c1-baton at #1 and"
                + " by c3-baton at #2", List.of(first, second), "", List.of(first, second));
    }

    private static Violation twoHolders(Event... marked) {
        return new Violation("mutual-exclusion", "lock 'mutex' has 2 holders", List.of(marked), "", List.of(marked));
    }

    private static Event event(long seq, String client, Kind kind, long token, String detail) {
        return new Event(seq, seq * 1_000, client, kind, kind == Kind.ACQUIRED ? "mutex" : "", token, detail);
    }

    @Test
    void aCounterWriteAppliedTwiceExplainsWhatAReaderSawOnlyWhenACuratorClientWroteIt() {
        // The writer's second increment goes through, its answer is lost, and its retry increments again: the
        // reader sees 2 while the writer's answer says it went from 2 to 3.
        assertThat(ChaosChecks.explainedByRetriedCuratorWrites(ChaosRecipe.ATOMIC_LONG, twice("c1-curator"),
                Map.of("c1-curator", CURATOR, "c2-baton", BATON))).isTrue();
        assertThat(ChaosChecks.explainedByRetriedCuratorWrites(ChaosRecipe.ATOMIC_LONG, twice("c1-baton"),
                Map.of("c1-baton", BATON, "c2-baton", BATON))).isFalse();
        // And it is a violation at all.
        assertThat(Checkers.linearizable("atomic-long").check(twice("c1-curator"))).isNotEmpty();
    }

    private static List<Event> twice(String writer) {
        String reader = "c2-baton";
        Object[][] lines = {
            {writer, Kind.OP_INVOKED, "add 1"}, {writer, Kind.OP_OK, "add 1 => 0 1"},
            {reader, Kind.OP_INVOKED, "read"}, {reader, Kind.OP_OK, "read => 1"},
            {writer, Kind.OP_INVOKED, "add 1"},
            {reader, Kind.OP_INVOKED, "read"}, {reader, Kind.OP_OK, "read => 2"},
            {writer, Kind.OP_OK, "add 1 => 2 3"},
        };
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            events.add(new Event(i, 1_000L * (i + 1), (String) lines[i][0], (Kind) lines[i][1], "atomic-long",
                    History.NO_TOKEN, (String) lines[i][2]));
        }
        return events;
    }

    private static Violation violation(String message) {
        return new Violation("mutual-exclusion", message, List.of(), "");
    }

    private static List<ClientLibrary> libraries(int clients, int percent) {
        return IntStream.rangeClosed(1, clients).mapToObj(i -> ClientLibrary.of(i, clients, percent)).toList();
    }
}
