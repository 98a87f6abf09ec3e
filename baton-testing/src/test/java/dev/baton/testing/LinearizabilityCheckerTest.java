package dev.baton.testing;

import static dev.baton.testing.History.Kind.OP_FAILED;
import static dev.baton.testing.History.Kind.OP_INVOKED;
import static dev.baton.testing.History.Kind.OP_OK;
import static dev.baton.testing.History.Kind.OP_UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The counter linearizability checker on hand-made histories: what it accepts and what it must refuse. */
@Timeout(60)
class LinearizabilityCheckerTest {

    private static final String C = "counter";

    private final HistoryChecker linearizable = Checkers.linearizable(C);

    /** Appends an operation of {@code client} from {@code from} to {@code to} ms with answer {@code result}. */
    private static Script ok(Script s, long from, long to, String client, String op, String result) {
        return s.op(from, client, OP_INVOKED, C, op).op(to, client, OP_OK, C, op + " => " + result);
    }

    @Test
    void aSequentialHistoryOfACounterIsLinearizable() {
        Script s = new Script();
        ok(s, 0, 1, "a", "add 1", "0 1");
        ok(s, 2, 3, "b", "read", "1");
        ok(s, 4, 5, "a", "cas 1 5", "true");
        ok(s, 6, 7, "b", "cas 1 2", "false");
        ok(s, 8, 9, "b", "add 2", "5 7");
        ok(s, 10, 11, "a", "set 3", "");
        ok(s, 12, 13, "a", "read", "3");

        assertThat(linearizable.check(s.events())).isEmpty();
    }

    @Test
    void overlappingOperationsMayTakeEffectInEitherOrder() {
        Script s = new Script()
                .op(0, "a", OP_INVOKED, C, "add 1")
                .op(1, "b", OP_INVOKED, C, "add 1")
                .op(5, "b", OP_OK, C, "add 1 => 0 1")   // b went first although a was invoked first
                .op(10, "a", OP_OK, C, "add 1 => 1 2");
        ok(s, 11, 12, "c", "read", "2");

        assertThat(linearizable.check(s.events())).isEmpty();
    }

    @Test
    void aLostIncrementIsAViolation() {
        Script s = new Script();
        ok(s, 0, 1, "a", "add 1", "0 1");
        ok(s, 2, 3, "b", "add 1", "0 1"); // began after a's increment returned, yet saw 0

        List<Violation> found = linearizable.check(s.events());
        assertThat(found).singleElement().satisfies(v -> {
            assertThat(v.checker()).isEqualTo("linearizable");
            assertThat(v.message()).contains("b: add 1 => 0 1", "could hold [1]");
            assertThat(Script.seqs(v)).containsExactly(2L, 3L);
        });
    }

    @Test
    void aDoubledIncrementIsAViolation() {
        Script s = new Script();
        ok(s, 0, 1, "a", "add 1", "0 1");
        ok(s, 2, 3, "b", "read", "2");

        assertThat(linearizable.check(s.events())).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("b: read => 2"));
    }

    @Test
    void aStaleReadIsAViolation() {
        Script s = new Script();
        ok(s, 0, 1, "a", "add 1", "0 1");
        ok(s, 2, 3, "b", "read", "0");

        assertThat(linearizable.check(s.events())).hasSize(1);
    }

    @Test
    void eachViolationIsReportedNotOnlyTheFirst() {
        Script s = new Script();
        ok(s, 0, 1, "a", "add 1", "0 1");
        ok(s, 2, 3, "b", "add 1", "0 1"); // lost a's increment
        ok(s, 4, 5, "a", "add 1", "1 2"); // goes on from b's answer: fine
        ok(s, 6, 7, "c", "read", "0"); // stale
        ok(s, 8, 9, "b", "add 1", "2 3"); // the stale read changed nothing: fine
        ok(s, 10, 11, "a", "add 1", "3 4");
        ok(s, 12, 13, "c", "read", "5"); // an increment no one made
        ok(s, 14, 15, "b", "add 1", "5 6"); // and the counter went on from there: fine

        assertThat(linearizable.check(s.events())).extracting(Violation::message).satisfiesExactly(
                m -> assertThat(m).contains("b: add 1 => 0 1"),
                m -> assertThat(m).contains("c: read => 0",
                        Checkers.STALE_READ + ": the counter may have held 0 earlier"),
                m -> assertThat(m).contains("c: read => 5").doesNotContain(Checkers.STALE_READ));
    }

    @Test
    void aReadOfAValueTheCounterPassedOnItsWayIsStale() {
        // b's answer needs a's increment first: the counter went 0, 1, 2 within one step of the search.
        Script s = new Script()
                .op(0, "a", OP_INVOKED, C, "add 1")
                .op(1, "b", OP_INVOKED, C, "add 1")
                .op(2, "b", OP_OK, C, "add 1 => 1 2");
        ok(s, 3, 4, "c", "read", "1");
        s.op(10, "a", OP_OK, C, "add 1 => 0 1");

        assertThat(linearizable.check(s.events())).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("c: read => 1", Checkers.STALE_READ));
    }

    @Test
    void aCompareAndSetThatFailsWhileTheValueMatchedIsAViolation() {
        Script s = new Script();
        ok(s, 0, 1, "a", "read", "0");
        ok(s, 2, 3, "a", "cas 0 1", "false");

        assertThat(linearizable.check(s.events())).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("cas 0 1 => false"));
    }

    @Test
    void anOperationWithAnUnknownOutcomeMayHaveTakenEffectOrNot() {
        for (String seen : List.of("0", "1")) {
            Script s = new Script()
                    .op(0, "a", OP_INVOKED, C, "add 1")
                    .op(1, "a", OP_UNKNOWN, C, "add 1 => ConnectionLossException");
            ok(s, 5, 6, "b", "read", seen);
            assertThat(linearizable.check(s.events())).as("read %s", seen).isEmpty();
        }
        Script twice = new Script()
                .op(0, "a", OP_INVOKED, C, "add 1")
                .op(1, "a", OP_UNKNOWN, C, "add 1 => ConnectionLossException");
        ok(twice, 5, 6, "b", "read", "2");
        assertThat(linearizable.check(twice.events())).as("it takes effect once at most").hasSize(1);
    }

    @Test
    void anUnknownOutcomeTakesEffectBeforeTheSameClientsNextAnswerOrNever() {
        Script s = new Script()
                .op(0, "a", OP_INVOKED, C, "add 1")
                .op(1, "a", OP_UNKNOWN, C, "add 1 => ConnectionLossException");
        ok(s, 2, 3, "a", "read", "0");
        ok(s, 4, 5, "b", "read", "1"); // so a's add took effect, after a's read...
        ok(s, 6, 7, "c", "read", "0"); // ...and the counter cannot go back

        assertThat(linearizable.check(s.events())).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("c: read => 0"));
    }

    @Test
    void aFailedOperationHadNoEffect() {
        Script ok = new Script().op(0, "a", OP_INVOKED, C, "set 6").op(1, "a", OP_FAILED, C, "set 6");
        ok(ok, 2, 3, "b", "read", "0");
        assertThat(linearizable.check(ok.events())).isEmpty();

        Script bad = new Script().op(0, "a", OP_INVOKED, C, "set 6").op(1, "a", OP_FAILED, C, "set 6");
        ok(bad, 2, 3, "b", "read", "6");
        assertThat(linearizable.check(bad.events())).hasSize(1);
    }

    @Test
    void anInitialValueAndObjectNamesAreHonoured() {
        Script s = new Script();
        ok(s, 0, 1, "a", "read", "7");
        s.op(2, "a", OP_INVOKED, "other", "read").op(3, "a", OP_OK, "other", "read => 99");

        assertThat(Checkers.linearizable(7, C).check(s.events())).isEmpty();
        assertThat(Checkers.linearizable(C).check(s.events())).hasSize(1);
        assertThat(Checkers.linearizable().check(s.events())).as("every object: both read wrong from 0")
                .hasSize(2);
    }

    @Test
    void twoOperationsAtOnceByOneClientAreRefusedAsMalformed() {
        Script s = new Script().op(0, "a", OP_INVOKED, C, "add 1").op(1, "a", OP_INVOKED, C, "read");

        assertThatThrownBy(() -> linearizable.check(s.events())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one operation at a time");
    }

    @Test
    void aSearchTooLargeToFinishIsReportedNotPassed() {
        Script s = new Script();
        for (int i = 0; i < 20; i++) {
            s.op(i, "c" + i, OP_INVOKED, C, "add " + (1L << i));
        }
        s.op(100, "c0", OP_OK, C, "add 1 => 999 1000"); // no order can explain it; finding out takes 2^19 states

        assertThat(linearizable.check(s.events())).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("gave up", "not proven"));
    }
}
