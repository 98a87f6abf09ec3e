package dev.baton.testing;

import static dev.baton.testing.History.Kind.ACQUIRED;
import static dev.baton.testing.History.Kind.BECAME_LEADER;
import static dev.baton.testing.History.Kind.LOST;
import static dev.baton.testing.History.Kind.LOST_LEADERSHIP;
import static dev.baton.testing.History.Kind.RELEASED;
import static dev.baton.testing.History.Kind.TOKEN_REJECTED;
import static dev.baton.testing.History.Kind.TOKEN_USED;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TokenCheckersTest {

    private final HistoryChecker increasing = Checkers.fencingTokensIncrease();
    private final HistoryChecker stale = Checkers.noStaleTokenAccepted();

    @Test
    void increasingTokensAreFine() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 5)
                .at(1, "a", RELEASED, "/lock", 5)
                .at(2, "b", ACQUIRED, "/lock", 9)
                .at(3, "b", LOST, "/lock", 9)
                .at(4, "a", ACQUIRED, "/lock", 10)
                .at(5, "c", ACQUIRED, "/other", 1)   // names are independent
                .events();

        assertThat(increasing.check(h)).isEmpty();
    }

    @Test
    void onlyTheNamedKeysAreChecked() {
        List<History.Event> h = new Script()
                .at(0, "r1", ACQUIRED, "read", 6)    // readers share: they learn of their grants in any order
                .at(1, "r2", ACQUIRED, "read", 5)
                .at(2, "w1", ACQUIRED, "write", 4)
                .at(3, "w1", RELEASED, "write", 4)
                .at(4, "w2", ACQUIRED, "write", 3)   // #4 a real violation
                .events();

        assertThat(Checkers.fencingTokensIncrease("write").check(h)).singleElement()
                .satisfies(x -> assertThat(x.message()).contains("w2 got token 3"));
        assertThat(increasing.check(h)).hasSize(2);
    }

    @Test
    void equalTokensAcrossSuccessiveHoldersAreAViolation() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 3)       // #0
                .at(1, "a", RELEASED, "/lock", 5)       // #1
                .at(2, "a", ACQUIRED, "/lock", 5)       // #2
                .at(3, "a", RELEASED, "/lock", 5)       // #3
                .at(4, "b", ACQUIRED, "/lock", 5)       // #4 same token as a's hold
                .events();

        List<Violation> v = increasing.check(h);

        assertThat(v).singleElement().satisfies(x -> {
            assertThat(x.message()).contains("b got token 5", "token 5 of earlier holder a at #2");
            assertThat(Script.seqs(x)).containsExactly(2L, 3L, 4L);
        });
    }

    @Test
    void decreasingTokenIsAViolation() {
        List<History.Event> h = new Script()
                .at(0, "a", BECAME_LEADER, "/leader", 8)
                .at(1, "a", LOST_LEADERSHIP, "/leader", 8)
                .at(2, "b", BECAME_LEADER, "/leader", 7)
                .events();

        assertThat(increasing.check(h)).singleElement()
                .satisfies(x -> assertThat(x.message()).contains("leadership '/leader'", "token 7"));
    }

    @Test
    void sameHolderRegainingTheSameTokenIsAResumedHold() {
        List<History.Event> h = new Script()
                .at(0, "a", BECAME_LEADER, "/leader", 8)
                .at(1, "a", LOST_LEADERSHIP, "/leader", 8)   // SUSPENDED
                .at(2, "a", BECAME_LEADER, "/leader", 8)     // RECONNECTED, node still first
                .at(3, "a", LOST_LEADERSHIP, "/leader", 8)   // and once more (a one-hour run saw it)
                .at(4, "a", BECAME_LEADER, "/leader", 8)
                .events();

        assertThat(increasing.check(h)).isEmpty();
    }

    @Test
    void sameTokenAgainAfterAnotherHolderIsAViolation() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 8)
                .at(1, "a", LOST, "/lock", 8)
                .at(2, "b", ACQUIRED, "/lock", 9)
                .at(3, "b", RELEASED, "/lock", 9)
                .at(4, "a", ACQUIRED, "/lock", 8)
                .events();

        assertThat(increasing.check(h)).singleElement()
                .satisfies(x -> assertThat(Script.seqs(x)).containsExactly(2L, 3L, 4L));
    }

    @Test
    void resourceAcceptingEqualAndHigherTokensIsFine() {
        List<History.Event> h = new Script()
                .at(0, "a", TOKEN_USED, "db", 5)
                .at(1, "a", TOKEN_USED, "db", 5)
                .at(2, "b", TOKEN_USED, "db", 7)
                .at(3, "a", TOKEN_REJECTED, "db", 5)
                .at(4, "c", TOKEN_USED, "other", 1)
                .events();

        assertThat(stale.check(h)).isEmpty();
    }

    @Test
    void resourceAcceptingAStaleTokenIsAViolation() {
        List<History.Event> h = new Script()
                .at(0, "a", TOKEN_USED, "db", 5)   // #0
                .at(1, "b", TOKEN_USED, "db", 7)   // #1
                .at(2, "b", TOKEN_USED, "db", 7)   // #2
                .at(3, "a", TOKEN_USED, "db", 5)   // #3 stale
                .events();

        assertThat(stale.check(h)).singleElement().satisfies(x -> {
            assertThat(x.checker()).isEqualTo("no-stale-token-accepted");
            assertThat(x.message()).contains("accepted stale token 5 from a at #3", "token 7 from b at #1");
            assertThat(Script.seqs(x)).containsExactly(1L, 2L, 3L);
        });
    }
}
