package dev.baton.testing;

import static dev.baton.testing.History.Kind.ACQUIRED;
import static dev.baton.testing.History.Kind.CONNECTED;
import static dev.baton.testing.History.Kind.DISCONNECTED;
import static dev.baton.testing.History.Kind.ITEM_DONE;
import static dev.baton.testing.History.Kind.ITEM_DROPPED;
import static dev.baton.testing.History.Kind.ITEM_PUT;
import static dev.baton.testing.History.Kind.ITEM_TAKEN;
import static dev.baton.testing.History.Kind.PAUSED;
import static dev.baton.testing.History.Kind.RESUMED;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class QueueCheckersTest {

    private final HistoryChecker nothingLost = Checkers.queueNothingLost();
    private final HistoryChecker atMostOnce = Checkers.queueAtMostOnce();
    private final HistoryChecker exclusive = Checkers.queueExclusive();

    @Test
    void aQueueThatDeliversEverythingOnceSatisfiesAll() {
        List<History.Event> h = new Script()
                .at(0, "p", ITEM_PUT, "1")
                .at(1, "p", ITEM_PUT, "2")
                .at(2, "a", ITEM_TAKEN, "1")
                .at(3, "b", ITEM_TAKEN, "2")
                .at(4, "a", ITEM_DONE, "1")
                .at(5, "b", ITEM_DONE, "2")
                .events();

        assertThat(Checkers.check(h, nothingLost, atMostOnce, exclusive)).isEmpty();
    }

    @Test
    void anItemNeverDoneIsLost() {
        List<History.Event> h = new Script()
                .at(0, "p", ITEM_PUT, "1")          // #0
                .at(1, "p", ITEM_PUT, "2")          // #1 never taken
                .at(2, "a", ITEM_TAKEN, "1")        // #2
                .at(3, "a", ITEM_DROPPED, "1")      // #3 dropped, and nobody finished it
                .events();

        assertThat(nothingLost.check(h)).hasSize(2).satisfiesExactly(
                v -> {
                    assertThat(v.checker()).isEqualTo("queue-nothing-lost");
                    assertThat(v.message()).contains("'1'", "taken by a at #2, never done");
                    assertThat(Script.seqs(v)).containsExactly(0L, 1L, 2L);
                },
                v -> assertThat(v.message()).contains("'2'", "nobody took it"));
    }

    @Test
    void withoutALockPathAnItemTakenIsNotLostEvenIfNeverDoneButOneNeverTakenIs() {
        List<History.Event> h = new Script()
                .at(0, "a", ITEM_TAKEN, "1")        // #0 taken before its put was recorded: fine
                .at(1, "p", ITEM_PUT, "1")          // #1
                .at(2, "p", ITEM_PUT, "2")          // #2 never taken
                .at(3, "a", ITEM_DROPPED, "1")      // #3 its consumer died: gone by design
                .events();

        assertThat(Checkers.queueEveryItemTaken().check(h)).singleElement().satisfies(v -> {
            assertThat(v.checker()).isEqualTo("queue-every-item-taken");
            assertThat(v.message()).contains("'2' put by p at #2 was never taken");
        });
    }

    @Test
    void withoutALockPathAnItemNotTakenIsExcusedWhenATakeMayHaveLostItsAnswer() {
        List<History.Event> h = new Script()
                .at(0, "p", ITEM_PUT, "1")          // never taken, but a client lost touch after it
                .at(1, "a", DISCONNECTED)
                .at(2, "a", CONNECTED)
                .at(3, "p", ITEM_PUT, "2")          // nobody lost touch after this one
                .events();

        assertThat(Checkers.queueEveryItemTaken().check(h)).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("'2'"));
    }

    @Test
    void anItemTakenThatWasNeverPutIsReported() {
        List<History.Event> h = new Script()
                .at(0, "a", ITEM_TAKEN, "ghost")
                .at(1, "a", ITEM_DONE, "ghost")
                .events();

        assertThat(nothingLost.check(h)).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("'ghost'", "nobody put"));
    }

    @Test
    void anItemTakenTwiceBreaksAtMostOnceButNotNothingLost() {
        List<History.Event> h = new Script()
                .at(0, "p", ITEM_PUT, "1")          // #0
                .at(1, "a", ITEM_TAKEN, "1")        // #1
                .at(2, "a", ITEM_DONE, "1")         // #2
                .at(3, "b", ITEM_TAKEN, "1")        // #3 again: a doubled put, or a redelivery
                .at(4, "b", ITEM_DONE, "1")         // #4
                .events();

        assertThat(nothingLost.check(h)).isEmpty();
        assertThat(exclusive.check(h)).isEmpty(); // one after the other
        assertThat(atMostOnce.check(h)).singleElement().satisfies(v -> {
            assertThat(v.checker()).isEqualTo("queue-at-most-once");
            assertThat(v.message()).contains("'1'", "by a at #1", "by b at #3");
            assertThat(Script.seqs(v)).containsExactly(1L, 2L, 3L);
        });
    }

    @Test
    void twoConnectedConsumersOfOneItemAtOnceAreReported() {
        List<History.Event> h = new Script()
                .at(0, "p", ITEM_PUT, "1")          // #0
                .at(1, "a", ITEM_TAKEN, "1")        // #1
                .at(2, "a", DISCONNECTED)           // #2 a's session is in doubt: a does not count
                .at(3, "b", ITEM_TAKEN, "1")        // #3 fine so far
                .at(4, "a", CONNECTED)              // #4 a is back and still believes: two consumers
                .at(5, "a", ITEM_DONE, "1")
                .at(6, "b", ITEM_DONE, "1")
                .events();

        assertThat(exclusive.check(h)).singleElement().satisfies(v -> {
            assertThat(v.checker()).isEqualTo("queue-exclusive");
            assertThat(v.message()).contains("queue item '1'", "2 consumers", "a (", "b (", "after #4");
            assertThat(Script.seqs(v)).containsExactly(1L, 2L, 3L, 4L);
        });
    }

    @Test
    void aConsumerToldItLostTheItemBeforeReconnectingIsFine() {
        List<History.Event> h = new Script()
                .at(0, "p", ITEM_PUT, "1")
                .at(1, "a", ITEM_TAKEN, "1")
                .at(2, "a", DISCONNECTED)
                .at(3, "b", ITEM_TAKEN, "1")
                .at(4, "a", ITEM_DROPPED, "1")      // told LOST before it is connected again
                .at(5, "a", CONNECTED)
                .at(6, "b", ITEM_DONE, "1")
                .events();

        assertThat(Checkers.check(h, nothingLost, exclusive)).isEmpty();
    }

    @Test
    void aPausedConsumerCountsAgainAfterTheResumeGrace() {
        List<History.Event> h = new Script()
                .at(0, "p", ITEM_PUT, "1")
                .at(1, "a", ITEM_TAKEN, "1")
                .at(2, "a", PAUSED)
                .at(3, "b", ITEM_TAKEN, "1")
                .at(10, "a", RESUMED)               // grace: 2 s, during which a should learn it lost the item
                .at(5_000, "b", ITEM_DONE, "1")
                .events();

        assertThat(exclusive.check(h)).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("end of the grace after a resume"));
    }

    @Test
    void locksAreNotQueueItems() {
        List<History.Event> h = new Script()
                .at(0, "a", ACQUIRED, "1", 1)
                .at(1, "b", ACQUIRED, "1", 2)
                .events();

        assertThat(Checkers.check(h, nothingLost, atMostOnce, exclusive)).isEmpty();
        assertThat(Checkers.mutualExclusion().check(h)).hasSize(1);
    }
}
