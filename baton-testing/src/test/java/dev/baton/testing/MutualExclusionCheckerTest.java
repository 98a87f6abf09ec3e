package dev.baton.testing;

import static dev.baton.testing.History.Kind.ACQUIRED;
import static dev.baton.testing.History.Kind.BECAME_LEADER;
import static dev.baton.testing.History.Kind.CONNECTED;
import static dev.baton.testing.History.Kind.DISCONNECTED;
import static dev.baton.testing.History.Kind.FAULT_HEALED;
import static dev.baton.testing.History.Kind.LOST;
import static dev.baton.testing.History.Kind.LOST_LEADERSHIP;
import static dev.baton.testing.History.Kind.NOTE;
import static dev.baton.testing.History.Kind.PAUSED;
import static dev.baton.testing.History.Kind.RELEASED;
import static dev.baton.testing.History.Kind.RESUMED;
import static dev.baton.testing.History.Kind.TOKEN_USED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MutualExclusionCheckerTest {

    private final HistoryChecker checker = Checkers.mutualExclusion();

    @Test
    void successiveHoldersAreFine() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 10)
                .at(5, "a", TOKEN_USED, "db", 10)
                .at(10, "a", RELEASED, "/lock", 10)
                .at(11, "b", ACQUIRED, "/lock", 12)
                .at(20, "b", LOST, "/lock", 12)
                .at(30, "c", ACQUIRED, "/lock", 14)
                .events();

        assertThat(checker.check(h)).isEmpty();
    }

    @Test
    void connectedDoubleHolderIsReportedWithTheWindowFromTheFirstHold() {
        List<History.Event> h = new Script()
                .at(0, "c", ACQUIRED, "/lock", 1)       // #0 unrelated earlier hold
                .at(1, "c", RELEASED, "/lock", 1)       // #1
                .at(2, "a", ACQUIRED, "/lock", 10)      // #2 start of the conflict
                .at(3, "x", NOTE, "")                   // #3
                .at(4, "b", ACQUIRED, "/lock", 12)      // #4 the violation
                .at(5, "a", RELEASED, "/lock", 10)      // #5 after the window
                .events();

        List<Violation> v = checker.check(h);

        assertThat(v).hasSize(1);
        assertThat(v.get(0).checker()).isEqualTo("mutual-exclusion");
        assertThat(v.get(0).message()).contains("lock '/lock'", "a (token 10, since #2)", "b (token 12, since #4)");
        assertThat(Script.seqs(v.get(0))).containsExactly(2L, 3L, 4L);
        assertThat(v.get(0).excerpt()).contains(">> #2", ">> #4", "   #3");
    }

    @Test
    void pausedHolderOverlappingANewHolderIsFine() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 10)
                .at(100, "a", PAUSED)
                .at(20_000, "b", ACQUIRED, "/lock", 12)
                .at(25_000, "a", RESUMED)
                .at(25_050, "a", DISCONNECTED)     // its client notices the lost time right after the resume
                .at(25_060, "a", LOST, "/lock", 10)
                .at(26_000, "b", RELEASED, "/lock", 12)
                .events();

        assertThat(checker.check(h)).isEmpty();
    }

    @Test
    void resumedHolderThatKeepsBelievingPastTheGraceIsReported() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 10)      // #0
                .at(100, "a", PAUSED)                   // #1
                .at(20_000, "b", ACQUIRED, "/lock", 12) // #2
                .at(25_000, "a", RESUMED)               // #3
                .at(30_000, "b", RELEASED, "/lock", 12) // #4, after the 2 s grace ended at 27 000 ms
                .events();

        List<Violation> v = checker.check(h);

        assertThat(v).hasSize(1);
        assertThat(v.get(0).message()).contains("end of the grace", "27000.000 ms");
        assertThat(Script.seqs(v.get(0))).containsExactly(0L, 1L, 2L, 3L);
    }

    @Test
    void withoutGraceAResumedBelieverCountsAtOnce() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 10)
                .at(100, "a", PAUSED)
                .at(20_000, "b", ACQUIRED, "/lock", 12)
                .at(25_000, "a", RESUMED)
                .at(25_050, "a", LOST, "/lock", 10)
                .events();

        assertThat(Checkers.mutualExclusion(Duration.ZERO).check(h)).hasSize(1);
        assertThat(Checkers.mutualExclusion().check(h)).isEmpty();
    }

    @Test
    void reconnectEndsTheGraceEarly() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 10)
                .at(100, "a", PAUSED)
                .at(20_000, "b", ACQUIRED, "/lock", 12)
                .at(25_000, "a", RESUMED)
                .at(25_010, "a", CONNECTED)           // reconnected and still believes: a real double holder
                .events();

        List<Violation> v = checker.check(h);

        assertThat(v).hasSize(1);
        assertThat(v.get(0).message()).contains("after #4");
    }

    @Test
    void disconnectedHolderOverlappingANewHolderIsFine() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 10)
                .at(10, "a", DISCONNECTED)
                .at(15_000, "b", ACQUIRED, "/lock", 12)
                .at(16_000, "a", LOST, "/lock", 10)
                .at(16_001, "a", CONNECTED)
                .events();

        assertThat(checker.check(h)).isEmpty();
    }

    @Test
    void holderThatReconnectsStillBelievingWhileAnotherHoldsIsReported() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 10)       // #0
                .at(10, "a", DISCONNECTED)               // #1
                .at(15_000, "b", ACQUIRED, "/lock", 12)  // #2
                .at(16_000, "a", CONNECTED)              // #3 the bug: should have seen LOST first
                .at(16_001, "a", LOST, "/lock", 10)      // #4
                .events();

        List<Violation> v = checker.check(h);

        assertThat(v).hasSize(1);
        assertThat(Script.seqs(v.get(0))).containsExactly(0L, 1L, 2L, 3L);
        assertThat(v.get(0).excerpt()).contains(">> #1", ">> #3");
    }

    @Test
    void aClientCutOffByAFaultCountsOnlyFromItsFirstConnectionAfterTheHeal() {
        // The expiry of b's session is ordered at #0 and lands at #4; b's RECONNECTED at #1 is of that session.
        List<History.Event> h = new Script()
                .at(0, "b", DISCONNECTED, "f1")           // #0 the fault's mark
                .at(10, "b", CONNECTED)                   // #1 the doomed session reconnects
                .at(20, "b", ACQUIRED, "/lock", 10)       // #2 granted to that session
                .at(30, "a", ACQUIRED, "/lock", 12)       // #3 b's session ended, its node with it
                .fault(40, FAULT_HEALED, "f1")            // #4 the expiry has landed
                .at(50, "a", RELEASED, "/lock", 12)       // #5
                .at(60, "b", DISCONNECTED)                // #6 b learns
                .at(70, "b", LOST, "/lock", 10)           // #7
                .events();
        assertThat(checker.check(h)).isEmpty();

        List<History.Event> believer = new Script()
                .at(0, "b", DISCONNECTED, "f1")           // #0
                .at(10, "b", ACQUIRED, "/lock", 10)       // #1
                .at(20, "a", ACQUIRED, "/lock", 12)       // #2
                .fault(30, FAULT_HEALED, "f1")            // #3
                .at(40, "b", CONNECTED)                   // #4 after the heal, still believing: counts
                .events();
        List<Violation> v = checker.check(believer);
        assertThat(v).hasSize(1);
        assertThat(v.get(0).excerpt()).contains(">> #4");
    }

    @Test
    void locksAndLeadershipsAreSeparateNames() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "x", 1)
                .at(1, "b", BECAME_LEADER, "x", 2)
                .at(2, "c", BECAME_LEADER, "y", 3)
                .at(3, "c", LOST_LEADERSHIP, "y", 3)
                .at(4, "d", BECAME_LEADER, "y", 4)
                .events();

        assertThat(checker.check(h)).isEmpty();
    }

    @Test
    void twoLeadersAreReported() {
        List<History.Event> h = new Script()
                .at(0, "a", BECAME_LEADER, "/leader", 1)
                .at(1, "b", BECAME_LEADER, "/leader", 2)
                .events();

        assertThat(checker.check(h)).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("leadership '/leader'"));
    }

    @Test
    void oneViolationPerEpisode() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 1)
                .at(1, "b", ACQUIRED, "/lock", 2)     // episode 1 starts
                .at(2, "c", ACQUIRED, "/lock", 3)     // same episode
                .at(3, "b", RELEASED, "/lock", 2)
                .at(4, "c", RELEASED, "/lock", 3)     // episode 1 ends
                .at(5, "d", ACQUIRED, "/lock", 4)     // episode 2
                .events();

        List<Violation> v = checker.check(h);

        assertThat(v).hasSize(2);
        assertThat(Script.seqs(v.get(1))).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
    }

    @Test
    void assertValidFailsWithTheExcerpt() {
        History history = new History();
        history.recorder("a").acquired("/lock", 1);
        history.recorder("b").acquired("/lock", 2);

        assertThatThrownBy(() -> Checkers.assertValid(history, Checkers.mutualExclusion(),
                Checkers.fencingTokensIncrease()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 violation(s) in a history of 2 events")
                .hasMessageContaining("[mutual-exclusion]")
                .hasMessageContaining(">> #0")
                .hasMessageContaining(">> #1");
    }

    @Test
    void assertValidPassesOnACleanHistory() {
        History history = new History();
        History.Recorder a = history.recorder("a");
        a.connected("CONNECTED");
        a.acquired("/lock", 1);
        a.released("/lock", 1);
        history.recorder("b").acquired("/lock", 2);

        Checkers.assertValid(history, Checkers.mutualExclusion(), Checkers.fencingTokensIncrease(),
                Checkers.noStaleTokenAccepted(), Checkers.barrier(3));
    }

    @Test
    void badArgumentsFailFast() {
        assertThatThrownBy(() -> Checkers.mutualExclusion(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resumeGrace");
        assertThatThrownBy(() -> Checkers.barrier(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Checkers.liveness(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Checkers.mutualExclusion(null)).isInstanceOf(NullPointerException.class);
    }
}
