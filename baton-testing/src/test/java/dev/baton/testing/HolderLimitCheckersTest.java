package dev.baton.testing;

import static dev.baton.testing.History.Kind.ACQUIRED;
import static dev.baton.testing.History.Kind.CONNECTED;
import static dev.baton.testing.History.Kind.DISCONNECTED;
import static dev.baton.testing.History.Kind.LOST;
import static dev.baton.testing.History.Kind.NOTE;
import static dev.baton.testing.History.Kind.PAUSED;
import static dev.baton.testing.History.Kind.RELEASED;
import static dev.baton.testing.History.Kind.RESUMED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Checkers#atMostHolders(int)} (semaphores) and {@link Checkers#readWriteExclusion} on hand-made histories. */
class HolderLimitCheckersTest {

    private final HistoryChecker twoLeases = Checkers.atMostHolders(2);
    private final HistoryChecker readWrite = Checkers.readWriteExclusion("w", "r");

    @Test
    void asManyHoldersAsLeasesAreFine() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/sem", 10)
                .at(1, "b", ACQUIRED, "/sem", 11)
                .at(2, "a", RELEASED, "/sem", 10)
                .at(3, "c", ACQUIRED, "/sem", 12)
                .at(4, "b", LOST, "/sem", 11)
                .at(5, "d", ACQUIRED, "/sem", 13)
                .events();

        assertThat(twoLeases.check(h)).isEmpty();
    }

    @Test
    void oneConnectedHolderTooManyIsReportedWithTheWindowFromTheFirstHold() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/sem", 10)       // #0
                .at(1, "b", ACQUIRED, "/sem", 11)       // #1
                .at(2, "x", NOTE, "")                   // #2
                .at(3, "c", ACQUIRED, "/sem", 12)       // #3 the third holder of a 2-lease semaphore
                .at(4, "d", ACQUIRED, "/sem", 13)       // #4 same episode
                .at(5, "c", RELEASED, "/sem", 12)       // #5
                .events();

        List<Violation> v = twoLeases.check(h);

        assertThat(v).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("at-most-2-holders");
            assertThat(violation.message()).contains("lock '/sem' has 3 holders (at most 2 allowed)",
                    "a (token 10, since #0)", "b (token 11, since #1)", "c (token 12, since #3)");
            assertThat(Script.seqs(violation)).containsExactly(0L, 1L, 2L, 3L);
            assertThat(violation.excerpt()).contains(">> #0", ">> #1", ">> #3", "   #2");
        });
    }

    @Test
    void aDisconnectedOrPausedHolderDoesNotCountAgainstTheLimit() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/sem", 10)
                .at(1, "b", ACQUIRED, "/sem", 11)
                .at(2, "a", DISCONNECTED)
                .at(3, "b", PAUSED)
                .at(5_000, "c", ACQUIRED, "/sem", 12)
                .at(5_001, "d", ACQUIRED, "/sem", 13)
                .at(6_000, "a", LOST, "/sem", 10)
                .at(6_001, "a", CONNECTED)
                .at(7_000, "b", RESUMED)
                .at(7_100, "b", LOST, "/sem", 11)
                .events();

        assertThat(twoLeases.check(h)).isEmpty();
    }

    @Test
    void atMostOneHolderIsMutualExclusion() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "/lock", 10)
                .at(1, "b", ACQUIRED, "/lock", 11)
                .events();

        List<Violation> v = Checkers.atMostHolders(1, Duration.ZERO).check(h);

        assertThat(v).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("mutual-exclusion");
            assertThat(violation.message()).contains("lock '/lock' has 2 holders that");
        });
    }

    @Test
    void readersShareAndWritersFollowThem() {
        List<History.Event> h = new Script()
                .at(0, "r1", ACQUIRED, "r", 10)
                .at(1, "r2", ACQUIRED, "r", 11)
                .at(2, "r1", RELEASED, "r", 10)
                .at(3, "r2", RELEASED, "r", 11)
                .at(4, "w1", ACQUIRED, "w", 12)
                .at(5, "w1", RELEASED, "w", 12)
                .at(6, "w2", ACQUIRED, "w", 13)
                .at(7, "w2", LOST, "w", 13)
                .at(8, "r1", ACQUIRED, "r", 14)
                .events();

        assertThat(readWrite.check(h)).isEmpty();
    }

    @Test
    void aReaderWhileAWriterHoldsIsReported() {
        List<History.Event> h = new Script()
                .at(0, "w1", ACQUIRED, "w", 10)         // #0
                .at(1, "r1", NOTE, "")                  // #1
                .at(2, "r1", ACQUIRED, "r", 11)         // #2 the violation
                .at(3, "r2", ACQUIRED, "r", 12)         // #3 same episode
                .at(4, "w1", RELEASED, "w", 10)         // #4 ends it
                .events();

        List<Violation> v = readWrite.check(h);

        assertThat(v).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("read-write-exclusion");
            assertThat(violation.message()).contains("write lock 'w' and read lock 'r' have 2 holders at once",
                    "w1 ('w', token 10, since #0)", "r1 ('r', token 11, since #2)");
            assertThat(Script.seqs(violation)).containsExactly(0L, 1L, 2L);
            assertThat(violation.excerpt()).contains(">> #0", ">> #2", "   #1");
        });
    }

    @Test
    void aWriterWhileReadersHoldIsReported() {
        List<History.Event> h = new Script()
                .at(0, "r1", ACQUIRED, "r", 10)
                .at(1, "r2", ACQUIRED, "r", 11)
                .at(2, "w1", ACQUIRED, "w", 12)
                .events();

        assertThat(readWrite.check(h)).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("have 3 holders at once", "r1", "r2", "w1"));
    }

    @Test
    void twoWritersAreReportedAndOtherLocksAreIgnored() {
        List<History.Event> h = new Script()
                .at(0, "w1", ACQUIRED, "w", 10)
                .at(1, "w2", ACQUIRED, "w", 11)
                .at(2, "w2", RELEASED, "w", 11)
                .at(3, "x", ACQUIRED, "other", 12)
                .at(4, "y", ACQUIRED, "other", 13)
                .events();

        assertThat(readWrite.check(h)).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("have 2 holders at once", "w1", "w2"));
    }

    @Test
    void aWriterThatAlsoReadsConflictsWithNobody() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "w", 10)
                .at(1, "a", ACQUIRED, "r", 11)          // a downgrade: same client
                .at(2, "a", RELEASED, "w", 10)
                .at(3, "b", ACQUIRED, "r", 12)          // now only readers
                .events();

        assertThat(readWrite.check(h)).isEmpty();
    }

    @Test
    void aDisconnectedWriterOverlappingAReaderIsFine() {
        List<History.Event> h = new Script()
                .at(0, "w1", ACQUIRED, "w", 10)
                .at(10, "w1", DISCONNECTED)
                .at(5_000, "r1", ACQUIRED, "r", 12)
                .at(6_000, "w1", LOST, "w", 10)
                .at(6_001, "w1", CONNECTED)
                .events();

        assertThat(readWrite.check(h)).isEmpty();
    }

    @Test
    void badArgumentsFailFast() {
        assertThatThrownBy(() -> Checkers.atMostHolders(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxHolders");
        assertThatThrownBy(() -> Checkers.atMostHolders(2, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resumeGrace");
        assertThatThrownBy(() -> Checkers.readWriteExclusion("x", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Checkers.readWriteExclusion(null, "r")).isInstanceOf(NullPointerException.class);
    }
}
