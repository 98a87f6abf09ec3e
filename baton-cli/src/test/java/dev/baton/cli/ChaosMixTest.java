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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    void aWrittenHistoryIsJudgedAgainWithTheSameVerdict(@TempDir Path dir) throws IOException {
        // Two holders of the mutex at once; the older one's session is lost 1 ms after the newer grant.
        List<Event> events = List.of(
                new Event(0, 1_000_000, "c1-baton", Kind.CONNECTED, "", History.NO_TOKEN, "CONNECTED session 0x1"),
                new Event(1, 2_000_000, "c2-curator", Kind.CONNECTED, "", History.NO_TOKEN, "CONNECTED session 0x2"),
                new Event(2, 3_000_000, "c2-curator", Kind.ACQUIRED, "mutex", 10, ""),
                new Event(3, 4_000_000, "c1-baton", Kind.ACQUIRED, "mutex", 20, ""),
                new Event(4, 5_000_000, "c2-curator", Kind.DISCONNECTED, "", History.NO_TOKEN, "LOST"),
                new Event(5, 6_000_000, "c1-baton", Kind.RELEASED, "mutex", 20, ""));
        Path curators = dir.resolve("curators.history");
        Files.writeString(curators, History.format(events, Set.of()));
        Cli.Result judged = baton("chaos", "--judge", curators.toString(), "--recipe", "mutex,latch");
        assertThat(judged.exitCode()).as(judged.out() + judged.err()).isZero();
        assertThat(judged.out()).contains("mutex                PASS*", "clients: c1-baton, c2-curator",
                "blamed on c2-curator, whose session ended").doesNotContain("latch  ");

        // Without the session's end, nothing tells the stale hold: both are blamed and the run fails.
        Path both = dir.resolve("both.history");
        Files.writeString(both, History.format(events.stream().filter(e -> e.seq() != 4).toList(), Set.of()));
        Cli.Result failed = baton("chaos", "--judge", both.toString(), "--recipe", "mutex");
        assertThat(failed.exitCode()).isEqualTo(1);
        assertThat(failed.out()).contains("mutex                FAIL", "involving a Baton client");

        assertThat(baton("chaos", "--judge", dir.resolve("missing").toString()).err())
                .contains("cannot read the history", "missing");
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
    void anOlderHolderIsStaleWhenItsSessionEndedSoonAfterEvenIfTheCheckerDidNotMarkIt() {
        Map<String, ClientLibrary> clients = Map.of("c1-baton", BATON, "c4-curator", CURATOR);
        Event curatorHolds = event(1, "c4-curator", Kind.ACQUIRED, 10, "");
        Event batonHolds = event(3, "c1-baton", Kind.ACQUIRED, 20, "");
        Violation twoAtOnce = twoHolders(curatorHolds, batonHolds); // the checker marks the two holds only
        Event suspended = event(5, "c4-curator", Kind.DISCONNECTED, History.NO_TOKEN, "SUSPENDED");
        Event lost = event(9, "c4-curator", Kind.DISCONNECTED, History.NO_TOKEN, "LOST");
        Event reconnected = event(10, "c4-curator", Kind.CONNECTED, History.NO_TOKEN, "RECONNECTED");

        // Told its session was lost 6 µs after the Baton grant, without reconnecting in between: Curator's.
        assertThat(withChanges(clients, Duration.ofSeconds(4), suspended, lost, reconnected).blamed(twoAtOnce))
                .containsExactly("c4-curator");
        // Reconnected first (its session lived on), or lost it only after a session timeout: both are blamed.
        assertThat(withChanges(clients, Duration.ofSeconds(4), suspended, reconnected, lost).blamed(twoAtOnce))
                .containsExactly("c1-baton", "c4-curator");
        assertThat(withChanges(clients, Duration.ofNanos(5_000), suspended, lost, reconnected).blamed(twoAtOnce))
                .containsExactly("c1-baton", "c4-curator");
    }

    @Test
    void aLowerTokenIsItsHoldersWhenItsSessionEndedUnderThatHold() {
        // A Curator client paused past its session resumes believing the grant it was about to get; its node
        // died with its session meanwhile and a Baton client took the lock with a newer node.
        Map<String, ClientLibrary> clients = Map.of("c1-baton", BATON, "c2-curator", CURATOR);
        Event batonHolds = event(1, "c1-baton", Kind.ACQUIRED, 20, "");
        Event curatorHolds = event(2, "c2-curator", Kind.ACQUIRED, 10, "");
        Violation lower = Checkers.fencingTokensIncrease("mutex").check(List.of(batonHolds, curatorHolds)).get(0);
        Event suspended = event(3, "c2-curator", Kind.DISCONNECTED, History.NO_TOKEN, "SUSPENDED");
        Event lost = event(4, "c2-curator", Kind.DISCONNECTED, History.NO_TOKEN, "LOST");
        Event reconnected = event(5, "c2-curator", Kind.CONNECTED, History.NO_TOKEN, "RECONNECTED");

        assertThat(withChanges(clients, Duration.ofSeconds(4), suspended, lost, reconnected).blamed(lower))
                .containsExactly("c2-curator");
        // Its session lived on (reconnected first): nothing says which grant is wrong.
        assertThat(withChanges(clients, Duration.ofSeconds(4), suspended, reconnected, lost).blamed(lower))
                .containsExactly("c1-baton", "c2-curator");
    }

    private static ChaosReport withChanges(Map<String, ClientLibrary> clients, Duration timeout, Event... changes) {
        return new ChaosReport(Map.of(), Map.of(), Map.of(), 0, Optional.empty(), new ChaosReport.Sessions(
                clients.size(), List.of(), false, List.of(changes), timeout), Map.of(), clients, Map.of(), List.of());
    }

    @Test
    void anEarlyDoubleBarrierReturnIsTheReturningMembersAndAStaleReadTheReaders() {
        Map<String, ClientLibrary> clients = Map.of("c1-baton", BATON, "c2-curator", CURATOR);
        ChaosReport report = new ChaosReport(Map.of(), Map.of(), Map.of(), 0, Optional.empty(),
                new ChaosReport.Sessions(2, List.of(), false), Map.of(), clients, Map.of(), List.of());
        Event batonLeaves = new Event(1, 1_000, "c1-baton", Kind.LEAVE_CALLED, "double-barrier-7", History.NO_TOKEN,
                "");
        Event curatorReturns = new Event(2, 2_000, "c2-curator", Kind.LEAVE_RETURNED, "double-barrier-7",
                History.NO_TOKEN, "");
        Violation early = new Violation("barrier", "barrier 'double-barrier-7' round 1: c2-curator's leave returned"
                + " at #2 when only 1 of 2 members had called leave [c1-baton]", List.of(batonLeaves, curatorReturns),
                "", List.of(batonLeaves, curatorReturns));
        assertThat(report.involved(early)).containsExactly("c1-baton", "c2-curator");
        assertThat(report.blame(early).clients()).containsExactly("c2-curator");
        assertThat(report.curatorOnly(early)).isTrue();

        // A Curator client's read from a server behind: the reader's; the Baton writer is only named.
        List<Event> ops = List.of(
                new Event(0, 1_000, "c1-baton", Kind.OP_INVOKED, "atomic-long", History.NO_TOKEN, "add 1"),
                new Event(1, 2_000, "c1-baton", Kind.OP_OK, "atomic-long", History.NO_TOKEN, "add 1 => 0 1"),
                new Event(2, 3_000, "c2-curator", Kind.OP_INVOKED, "atomic-long", History.NO_TOKEN, "read"),
                new Event(3, 4_000, "c2-curator", Kind.OP_OK, "atomic-long", History.NO_TOKEN, "read => 0"));
        Violation stale = Checkers.linearizable("atomic-long").check(ops).get(0);
        assertThat(stale.message()).contains(Checkers.STALE_READ);
        assertThat(report.blame(stale).clients()).containsExactly("c2-curator");
        assertThat(report.curatorOnly(stale)).isTrue();
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

    @Test
    void theServersLogsTellAPutQueuedTwiceFromANodeTakenTwice() {
        Map<String, ClientLibrary> clients = Map.of("c1-baton", BATON, "c2-curator", CURATOR, "c3-baton", BATON);
        ChaosReport report = new ChaosReport(Map.of(), Map.of(), Map.of(), 0, Optional.empty(),
                new ChaosReport.Sessions(3, List.of(), false), Map.of(), clients, Map.of(), List.of(),
                Map.of("queue-unlocked/c2-curator-7", 2, "queue-unlocked/c1-baton-8", 1));

        // Two nodes carried it: the Curator producer's put queued it twice; the Baton consumers took one each.
        Violation doubledPut = takenTwice("queue-unlocked/c2-curator-7");
        assertThat(report.blame(doubledPut).clients()).containsExactly("c2-curator");
        assertThat(report.blame(doubledPut).why()).contains("2 nodes carried it");
        assertThat(report.curatorOnly(doubledPut)).isTrue();

        // One node: the consumers took it twice, whoever produced it.
        Violation takenFromOneNode = takenTwice("queue-unlocked/c1-baton-8");
        assertThat(report.blame(takenFromOneNode).clients()).containsExactly("c1-baton", "c3-baton");
        assertThat(report.curatorOnly(takenFromOneNode)).isFalse();

        // Not in the logs (not read): consumers and producer share it, as before.
        assertThat(report.blame(takenTwice("queue-unlocked/c2-curator-9")).clients())
                .containsExactly("c1-baton", "c2-curator", "c3-baton");
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
        List<Violation> curators = Checkers.linearizable("atomic-long").check(twice("c1-curator"));
        assertThat(curators).hasSize(1); // a violation at all
        assertThat(ChaosChecks.explainedByRetriedCuratorWrites(ChaosRecipe.ATOMIC_LONG, twice("c1-curator"),
                Map.of("c1-curator", CURATOR, "c2-baton", BATON), curators)).isEqualTo(curators);
        List<Violation> batons = Checkers.linearizable("atomic-long").check(twice("c1-baton"));
        assertThat(ChaosChecks.explainedByRetriedCuratorWrites(ChaosRecipe.ATOMIC_LONG, twice("c1-baton"),
                Map.of("c1-baton", BATON, "c2-baton", BATON), batons)).isEmpty();
    }

    @Test
    void aWriteAppliedTwiceExplainsOnlyTheViolationsItCauses() {
        // Curator's doubled write first, then, later and unrelated, a Baton client's read of a value the counter
        // never held: only the first is Curator's.
        List<Event> events = new ArrayList<>(twice("c1-curator"));
        int n = events.size();
        events.add(new Event(n, 1_000L * (n + 1), "c2-baton", Kind.OP_INVOKED, "atomic-long", History.NO_TOKEN,
                "read"));
        events.add(new Event(n + 1, 1_000L * (n + 2), "c2-baton", Kind.OP_OK, "atomic-long", History.NO_TOKEN,
                "read => 7"));
        List<Violation> found = Checkers.linearizable("atomic-long").check(events);
        assertThat(found).hasSize(2);
        assertThat(ChaosChecks.explainedByRetriedCuratorWrites(ChaosRecipe.ATOMIC_LONG, events,
                Map.of("c1-curator", CURATOR, "c2-baton", BATON), found)).containsExactly(found.get(0));
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
