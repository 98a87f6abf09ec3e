package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SessionLossCheckerTest {

    private final HistoryChecker checker = Checkers.noSessionLost();

    @Test
    void disconnectionsOnOneSessionAndAFaultsOwnMarkAreNoLoss() {
        History h = new History();
        History.Recorder c1 = h.recorder("c1");
        c1.connected("CONNECTED session 0x1a");
        c1.disconnected("SUSPENDED");
        c1.connected("RECONNECTED session 0x1a");
        c1.cutOff("f1", "session expired on the servers by fault f1");
        c1.connected("RECONNECTED session 0x1a");
        h.recorder("c2").disconnected("SUSPENDED");

        assertThat(checker.check(h.events())).isEmpty();
    }

    @Test
    void aLostSessionIsOneViolationAndTheNewSessionAfterItIsNotAnother() {
        History h = new History();
        History.Recorder c1 = h.recorder("c1");
        c1.connected("CONNECTED session 0x1a");
        c1.disconnected("SUSPENDED");
        c1.disconnected("LOST");
        c1.connected("RECONNECTED session 0x2b");

        List<Violation> found = checker.check(h.events());

        assertThat(found).singleElement().satisfies(v -> {
            assertThat(v.checker()).isEqualTo("no-session-lost");
            assertThat(v.message()).contains("client c1 lost its session");
        });
    }

    @Test
    void aNewSessionWithoutALossToldIsAViolationToo() {
        History h = new History();
        History.Recorder c1 = h.recorder("c1");
        c1.connected("CONNECTED session 0x1a");
        c1.connected("RECONNECTED session 0x2b");

        assertThat(checker.check(h.events())).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("session 0x2b", "after session 0x1a"));
    }
}
