package dev.baton.testing;

import static dev.baton.testing.History.Kind.ACQUIRED;
import static dev.baton.testing.History.Kind.BECAME_LEADER;
import static dev.baton.testing.History.Kind.CONNECTED;
import static dev.baton.testing.History.Kind.DISCONNECTED;
import static dev.baton.testing.History.Kind.ENTER_CALLED;
import static dev.baton.testing.History.Kind.ENTER_RETURNED;
import static dev.baton.testing.History.Kind.FAULT_HEALED;
import static dev.baton.testing.History.Kind.FAULT_INJECTED;
import static dev.baton.testing.History.Kind.LEAVE_CALLED;
import static dev.baton.testing.History.Kind.LEAVE_RETURNED;
import static dev.baton.testing.History.Kind.LOST;
import static dev.baton.testing.History.Kind.NOTE;
import static dev.baton.testing.History.Kind.PAUSED;
import static dev.baton.testing.History.Kind.RELEASED;
import static dev.baton.testing.History.Kind.RESUMED;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BarrierAndLivenessCheckerTest {

    private final HistoryChecker barrier = Checkers.barrier(3);
    private final HistoryChecker liveness = Checkers.liveness(Duration.ofSeconds(5));

    /** Records the same event for members a, b and c, in that order, at {@code t} milliseconds. */
    private static Script everyone(Script s, long t, History.Kind kind, String name) {
        for (String m : List.of("a", "b", "c")) {
            s.at(t, m, kind, name);
        }
        return s;
    }

    private static Script fullRound(Script s, long t, String barrierName) {
        everyone(s, t, ENTER_CALLED, barrierName);
        for (String m : List.of("c", "a", "b")) {
            s.at(t + 1, m, ENTER_RETURNED, barrierName);
        }
        for (String m : List.of("b", "a", "c")) {
            s.at(t + 2, m, LEAVE_CALLED, barrierName);
        }
        everyone(s, t + 3, LEAVE_RETURNED, barrierName);
        return s;
    }

    @Test
    void barrierRoundsWhereEveryoneWaitsAreFine() {
        Script s = fullRound(new Script(), 0, "/race/1");
        fullRound(s, 10, "/race/2");
        fullRound(s, 20, "/race/2");   // reuse of a name: second round

        assertThat(barrier.check(s.events())).isEmpty();
    }

    @Test
    void enterReturningBeforeAllMembersEnteredIsReported() {
        List<History.Event> h = new Script()
                .at(0, "x", NOTE, "")                    // #0
                .at(1, "a", ENTER_CALLED, "/b")          // #1
                .at(2, "b", ENTER_CALLED, "/b")          // #2
                .at(3, "a", ENTER_RETURNED, "/b")        // #3 only 2 of 3 entered
                .at(4, "c", ENTER_CALLED, "/b")          // #4
                .at(5, "b", ENTER_RETURNED, "/b")        // #5 fine
                .events();

        assertThat(barrier.check(h)).singleElement().satisfies(v -> {
            assertThat(v.checker()).isEqualTo("barrier");
            assertThat(v.message()).contains("'/b' round 1", "a's enter returned at #3", "only 2 of 3", "[a, b]");
            assertThat(Script.seqs(v)).containsExactly(1L, 2L, 3L);
        });
    }

    @Test
    void leaveReturningBeforeAllMembersCalledLeaveIsReported() {
        Script s = new Script();
        everyone(s, 0, ENTER_CALLED, "/b");
        everyone(s, 1, ENTER_RETURNED, "/b");
        s.at(2, "a", LEAVE_CALLED, "/b").at(3, "a", LEAVE_RETURNED, "/b");

        assertThat(barrier.check(s.events())).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("leave returned", "only 1 of 3"));
    }

    @Test
    void aMemberWhoseEnterGaveUpOrWhoLostTouchNeedNotCallLeave() {
        Script gaveUp = new Script();
        everyone(gaveUp, 0, ENTER_CALLED, "/b");
        gaveUp.at(1, "a", ENTER_RETURNED, "/b").at(1, "b", ENTER_RETURNED, "/b"); // c's enter timed out
        gaveUp.at(2, "a", LEAVE_CALLED, "/b").at(2, "b", LEAVE_CALLED, "/b");
        gaveUp.at(3, "a", LEAVE_RETURNED, "/b").at(3, "b", LEAVE_RETURNED, "/b");
        assertThat(barrier.check(gaveUp.events())).as("c's node went with its enter").isEmpty();

        Script lostTouch = new Script();
        everyone(lostTouch, 0, ENTER_CALLED, "/b");
        everyone(lostTouch, 1, ENTER_RETURNED, "/b");
        lostTouch.at(2, "c", DISCONNECTED, "");
        lostTouch.at(3, "a", LEAVE_CALLED, "/b").at(3, "b", LEAVE_CALLED, "/b");
        lostTouch.at(4, "a", LEAVE_RETURNED, "/b").at(4, "b", LEAVE_RETURNED, "/b");
        assertThat(barrier.check(lostTouch.events())).as("c's session may have ended").isEmpty();
    }

    @Test
    void aMemberStillOutOfTouchSinceBeforeItsEnterNeedNotCallLeave() {
        // An expiry ordered before c's enter call lands during the round: c's node goes, a and b leave.
        Script s = new Script();
        s.at(0, "c", DISCONNECTED, "");
        everyone(s, 1, ENTER_CALLED, "/b");
        everyone(s, 2, ENTER_RETURNED, "/b");
        s.at(3, "a", LEAVE_CALLED, "/b").at(3, "b", LEAVE_CALLED, "/b");
        s.at(4, "a", LEAVE_RETURNED, "/b").at(4, "b", LEAVE_RETURNED, "/b");
        assertThat(barrier.check(s.events())).isEmpty();

        Script paused = new Script();
        paused.at(0, "c", PAUSED, "");
        everyone(paused, 1, ENTER_CALLED, "/b");
        everyone(paused, 2, ENTER_RETURNED, "/b");
        paused.at(3, "a", LEAVE_CALLED, "/b").at(3, "b", LEAVE_CALLED, "/b").at(4, "a", LEAVE_RETURNED, "/b");
        assertThat(barrier.check(paused.events())).isEmpty();

        Script backInTouch = new Script();
        backInTouch.at(0, "c", DISCONNECTED, "").at(0, "c", PAUSED, "");
        backInTouch.at(1, "c", RESUMED, "").at(1, "c", CONNECTED, "");
        everyone(backInTouch, 2, ENTER_CALLED, "/b");
        everyone(backInTouch, 3, ENTER_RETURNED, "/b");
        backInTouch.at(4, "a", LEAVE_CALLED, "/b").at(4, "b", LEAVE_CALLED, "/b").at(5, "a", LEAVE_RETURNED, "/b");
        assertThat(barrier.check(backInTouch.events())).as("c was back in touch before the round")
                .singleElement().satisfies(v -> assertThat(v.message()).contains("only 2 of 3"));
    }

    @Test
    void aConnectedMemberThatPassedEnterStillCountsForLeave() {
        Script s = new Script();
        everyone(s, 0, ENTER_CALLED, "/b");
        everyone(s, 1, ENTER_RETURNED, "/b");
        s.at(2, "c", DISCONNECTED, "").at(2, "c", CONNECTED, ""); // before its enter call of round 2: no excuse
        everyone(s, 3, LEAVE_CALLED, "/b");
        everyone(s, 4, LEAVE_RETURNED, "/b");
        everyone(s, 5, ENTER_CALLED, "/b");
        everyone(s, 6, ENTER_RETURNED, "/b");
        s.at(7, "a", LEAVE_CALLED, "/b").at(7, "b", LEAVE_CALLED, "/b");
        s.at(8, "a", LEAVE_RETURNED, "/b"); // c entered round 2, stayed connected, never called leave

        assertThat(barrier.check(s.events())).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("leave returned", "round 2", "only 2 of 3"));
    }

    @Test
    void earlyReturnInALaterRoundOfTheSameNameIsReported() {
        Script s = fullRound(new Script(), 0, "/b");
        s.at(10, "a", ENTER_CALLED, "/b").at(11, "b", ENTER_CALLED, "/b").at(12, "b", ENTER_RETURNED, "/b");

        assertThat(barrier.check(s.events())).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("round 2"));
    }

    @Test
    void memberCountPerBarrierName() {
        List<History.Event> h = new Script()
                .at(0, "a", ENTER_CALLED, "/two")
                .at(1, "b", ENTER_CALLED, "/two")
                .at(2, "a", ENTER_RETURNED, "/two")
                .at(3, "a", ENTER_CALLED, "/three")
                .at(4, "b", ENTER_CALLED, "/three")
                .at(5, "a", ENTER_RETURNED, "/three")
                .events();

        assertThat(Checkers.barrier(name -> name.equals("/two") ? 2 : 3).check(h)).hasSize(1);
    }

    @Test
    void holderWithinTheBoundAfterTheHealIsFine() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 1)
                .fault(100, FAULT_INJECTED, "kill-1")
                .at(200, "a", LOST, "/lock", 1)
                .fault(10_000, FAULT_HEALED, "kill-1")
                .at(12_000, "b", ACQUIRED, "/lock", 5)
                .at(20_000, "b", RELEASED, "/lock", 5)
                .events();

        assertThat(liveness.check(h)).isEmpty();
    }

    @Test
    void noHolderWithinTheBoundIsReported() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 1)           // #0
                .fault(100, FAULT_INJECTED, "partition-a")  // #1
                .at(200, "a", LOST, "/lock", 1)             // #2
                .fault(10_000, FAULT_HEALED, "partition-a") // #3
                .at(11_000, "x", NOTE, "")                  // #4
                .at(16_000, "b", ACQUIRED, "/lock", 5)      // #5, 6 s after the heal
                .events();

        assertThat(liveness.check(h)).singleElement().satisfies(v -> {
            assertThat(v.checker()).isEqualTo("liveness");
            assertThat(v.message()).contains("lock '/lock'", "within 5000.000 ms", "healed at #3");
            assertThat(Script.seqs(v)).containsExactly(3L, 4L);
        });
    }

    @Test
    void historyEndingBeforeTheBoundWithoutHolderIsReported() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 1)
                .at(1, "a", LOST, "/lock", 1)
                .fault(100, FAULT_INJECTED, "f")
                .fault(200, FAULT_HEALED, "f")
                .events();

        assertThat(liveness.check(h)).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("history ends"));
    }

    @Test
    void holderAcrossTheHealCountsButOnlyWhileConnected() {
        Script s = new Script()
                .at(0, "a", ACQUIRED, "/lock", 1)
                .fault(100, FAULT_INJECTED, "f")
                .fault(200, FAULT_HEALED, "f")
                .at(6_000, "x", NOTE, "");
        assertThat(liveness.check(s.events())).isEmpty();

        Script disconnected = new Script()
                .at(0, "a", ACQUIRED, "/lock", 1)
                .fault(100, FAULT_INJECTED, "f")
                .at(150, "a", DISCONNECTED)
                .fault(200, FAULT_HEALED, "f")
                .at(6_000, "a", CONNECTED);
        assertThat(liveness.check(disconnected.events())).hasSize(1);
    }

    @Test
    void onlyHealsThatLeaveNoFaultAndNoNewFaultWithinTheBoundAreChecked() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 1)
                .at(1, "a", RELEASED, "/lock", 1)
                .fault(100, FAULT_INJECTED, "f1")
                .fault(200, FAULT_INJECTED, "f2")
                .fault(300, FAULT_HEALED, "f1")        // f2 still active: not checked
                .fault(10_000, FAULT_HEALED, "f2")     // quiet, but f3 comes within the bound
                .fault(12_000, FAULT_INJECTED, "f3")
                .fault(13_000, FAULT_HEALED, "f3")     // checked: holder at 14 s
                .at(14_000, "b", BECAME_LEADER, "/leader", 2)
                .at(14_001, "b", ACQUIRED, "/lock", 2)
                .at(30_000, "x", NOTE, "")
                .events();

        assertThat(liveness.check(h)).isEmpty();
    }

    @Test
    void livenessOfNamedKeysOnly() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/idle", 1)
                .at(1, "a", RELEASED, "/idle", 1)
                .fault(100, FAULT_INJECTED, "f")
                .fault(200, FAULT_HEALED, "f")
                .at(300, "b", ACQUIRED, "/busy", 2)
                .at(9_000, "x", NOTE, "")
                .events();

        assertThat(Checkers.liveness(Duration.ofSeconds(5), "/busy").check(h)).isEmpty();
        assertThat(Checkers.liveness(Duration.ofSeconds(5)).check(h)).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("'/idle'"));
        assertThat(Checkers.liveness(Duration.ofSeconds(5), "/never").check(h)).hasSize(1);
    }

    @Test
    void aWaiterMayPassABarrierOnlyOnceItIsLoweredOrIfItCameBeforeTheRaise() {
        List<History.Event> fine = new Script()
                .at(0, "w1", ENTER_CALLED, "gate-1")      // before the raise: passing at once is right
                .at(1, "w1", ENTER_RETURNED, "gate-1")
                .at(2, "r", ACQUIRED, "gate-1")
                .at(3, "w2", ENTER_CALLED, "gate-1")
                .at(9, "r", RELEASED, "gate-1")
                .at(10, "w2", ENTER_RETURNED, "gate-1")   // after the lowering began
                .events();
        assertThat(Checkers.barrierBlocks().check(fine)).isEmpty();
    }

    @Test
    void aWaiterThatPassesAStandingBarrierIsReportedAloneWithTheRaiserNamed() {
        List<History.Event> h = new Script()
                .at(0, "r", ACQUIRED, "gate-1")           // #0
                .at(1, "w", ENTER_CALLED, "gate-1")       // #1
                .at(2, "w", ENTER_RETURNED, "gate-1")     // #2 the barrier stands
                .at(5, "r", RELEASED, "gate-1")           // #3
                .events();
        assertThat(Checkers.barrierBlocks().check(h)).singleElement().satisfies(v -> {
            assertThat(v.checker()).isEqualTo("barrier-blocks");
            assertThat(v.message()).contains("w passed barrier 'gate-1' at #2 while it stood: r raised it at #0");
            assertThat(v.marked()).extracting(History.Event::client).containsOnly("w");
        });
    }
}
