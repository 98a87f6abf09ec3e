package dev.baton.testing;

import static dev.baton.testing.History.Kind.ACQUIRED;
import static dev.baton.testing.History.Kind.CONNECTED;
import static dev.baton.testing.History.Kind.DISCONNECTED;
import static dev.baton.testing.History.Kind.ENTER_CALLED;
import static dev.baton.testing.History.Kind.FAULT_HEALED;
import static dev.baton.testing.History.Kind.FAULT_INJECTED;
import static dev.baton.testing.History.Kind.OP_INVOKED;
import static dev.baton.testing.History.Kind.OP_OK;
import static dev.baton.testing.History.Kind.PAUSED;
import static dev.baton.testing.History.Kind.RELEASED;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DiscoveryCheckerTest {

    private final HistoryChecker findsLive = Checkers.discoveryFindsLive();

    @Test
    void aQueryMustFindEveryInstanceLiveThroughoutIt() {
        List<History.Event> h = new Script()
                .at(0, "a", ENTER_CALLED, "discovery")                   // #0
                .at(0, "a", ACQUIRED, "discovery")                       // #1
                .at(0, "b", ENTER_CALLED, "discovery")                   // #2
                .at(1, "b", ACQUIRED, "discovery")                       // #3
                .op(2, "r", OP_INVOKED, "discovery", "query")            // #4
                .op(3, "r", OP_OK, "discovery", "query => a")            // #5 missed b
                .events();

        assertThat(findsLive.check(h)).singleElement().satisfies(v -> {
            assertThat(v.checker()).isEqualTo("discovery-finds-live");
            assertThat(v.message()).contains("r's query (#4 to #5) missed b, live since #3; it found [a]");
            assertThat(v.marked()).extracting(History.Event::seq).containsExactly(3L, 4L, 5L);
        });
    }

    @Test
    void anInstanceWhoseOwnerWasOutOfTouchOrUnregisteringNeedNotBeFound() {
        List<History.Event> h = new Script()
                .at(0, "a", ENTER_CALLED, "discovery")
                .at(0, "a", ACQUIRED, "discovery")
                .at(0, "b", ENTER_CALLED, "discovery")
                .at(1, "b", ACQUIRED, "discovery")
                .at(1, "c", ENTER_CALLED, "discovery")
                .at(2, "c", ACQUIRED, "discovery")
                .at(2, "e", ENTER_CALLED, "discovery")
                .at(2, "e", DISCONNECTED)                                // between: its confirmation is void
                .at(2, "e", ACQUIRED, "discovery")
                .op(3, "r", OP_INVOKED, "discovery", "query")
                .at(4, "a", DISCONNECTED)                                // its session may be ending
                .at(5, "b", PAUSED)
                .at(6, "c", RELEASED, "discovery")
                .op(7, "r", OP_OK, "discovery", "query => ")
                .at(8, "d", ENTER_CALLED, "discovery")
                .at(8, "d", ACQUIRED, "discovery")                       // live only after the query began
                .op(9, "r", OP_INVOKED, "discovery", "query")
                .op(10, "r", OP_OK, "discovery", "query => d")
                .events();

        assertThat(findsLive.check(h)).isEmpty();
    }

    @Test
    void aConfirmationWhileCutOffByAFaultDoesNotCountUntilTheClientIsBackAfterTheHeal() {
        List<History.Event> h = new Script()
                .fault(0, FAULT_INJECTED, "f1")
                .at(1, "a", DISCONNECTED, "f1")                          // its session is being expired
                .at(2, "a", ENTER_CALLED, "discovery")                   // it still sees its node: no matter
                .at(3, "a", ACQUIRED, "discovery")
                .op(4, "r", OP_INVOKED, "discovery", "query")
                .op(5, "r", OP_OK, "discovery", "query => ")             // the expiry landed: gone
                .fault(6, FAULT_HEALED, "f1")
                .at(7, "a", CONNECTED)
                .at(8, "a", ENTER_CALLED, "discovery")
                .at(9, "a", ACQUIRED, "discovery")                       // registered again, in touch
                .op(10, "r", OP_INVOKED, "discovery", "query")
                .op(11, "r", OP_OK, "discovery", "query => ")            // missed
                .events();

        assertThat(findsLive.check(h)).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("missed a, live since #9"));
    }
}
