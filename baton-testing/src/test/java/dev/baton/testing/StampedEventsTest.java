package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Events from another JVM keep the time at which they happened there: a line that arrives late (a busy machine,
 * a driver paused right after it acted) is still placed where it belongs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StampedEventsTest {

    /** A driver that records one event now and prints its line only after a delay. */
    public static final class LateLineDriver {
        private LateLineDriver() {
        }

        /**
         * Runs the driver.
         *
         * @param args ignored
         */
        public static void main(String[] args) {
            DriverMain driver = DriverMain.create();
            driver.on("act-late", a -> {
                History stamps = History.streaming(e -> { });
                Event e = stamps.recorder("driver").acquired(a.get(0), 1);
                long delayMs = Long.parseLong(a.get(1));
                Thread late = new Thread(() -> {
                    try {
                        Thread.sleep(delayMs); // the line's delay under test, not a wait for a condition
                    } catch (InterruptedException ex) {
                        return;
                    }
                    driver.event(e.toLine());
                });
                late.setDaemon(true);
                late.start();
                return "";
            });
            driver.run();
        }
    }

    @Test
    void anEventFromAnotherJvmIsPlacedWhenItHappenedNotWhenItsLineArrived() throws Exception {
        History history = new History();
        AtomicLong offset = new AtomicLong();
        try (DriverProcess driver = DriverProcess.builder(LateLineDriver.class).heap("64m")
                .eventListener(line -> History.parseLine(line).ifPresent(e -> history.recordAt(
                        e.nanos() + offset.get(), e.client(), e.kind(), e.name(), e.token(), e.detail())))
                .start()) {
            offset.set(driver.clockOffsetNanos());
            if (System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")) {
                assertThat(offset.get()).as("every JVM on Linux reads CLOCK_MONOTONIC").isZero();
            }

            history.note("before");
            driver.call("act-late", "/lock", "500");
            history.note("after");
            await().atMost(Duration.ofSeconds(30)).until(() -> history.size() == 3);
        }

        assertThat(history.events()).extracting(Event::kind).as("in order of arrival")
                .containsExactly(Kind.NOTE, Kind.NOTE, Kind.ACQUIRED);
        List<Event> ordered = history.timeOrdered();
        assertThat(ordered).extracting(Event::kind).as("in order of time")
                .containsExactly(Kind.NOTE, Kind.ACQUIRED, Kind.NOTE);
        assertThat(ordered).extracting(Event::seq).containsExactly(0L, 1L, 2L);
        assertThat(ordered.get(1).client()).isEqualTo("driver");
    }

    @Test
    void aStreamingHistoryForwardsInOrderAndKeepsNothing() {
        List<Event> sent = new ArrayList<>();
        History streaming = History.streaming(sent::add);
        long before = System.nanoTime();
        streaming.recorder("a").acquired("/lock", 3);
        streaming.recorder("a").released("/lock", 3);
        long after = System.nanoTime();

        assertThat(streaming.events()).isEmpty();
        assertThat(sent).extracting(Event::seq).containsExactly(0L, 1L);
        assertThat(sent).allSatisfy(e -> assertThat(e.nanos()).as("raw System.nanoTime()").isBetween(before, after));
    }

    @Test
    void timeOrderedSortsEventsRecordedAtEarlierTimesAndRenumbersThem() {
        History history = new History();
        long now = history.origin() + 1_000_000_000L;
        history.recordAt(now + 20, "b", Kind.RELEASED, "/lock", 2, "");
        history.recordAt(now + 10, "b", Kind.ACQUIRED, "/lock", 2, "");
        history.recordAt(now, "a", Kind.RELEASED, "/lock", 1, "");

        List<Event> ordered = history.timeOrdered();

        assertThat(ordered).extracting(Event::client, Event::kind).containsExactly(
                org.assertj.core.groups.Tuple.tuple("a", Kind.RELEASED),
                org.assertj.core.groups.Tuple.tuple("b", Kind.ACQUIRED),
                org.assertj.core.groups.Tuple.tuple("b", Kind.RELEASED));
        assertThat(ordered.get(0).nanos()).isEqualTo(1_000_000_000L);
        assertThat(ordered).extracting(Event::seq).containsExactly(0L, 1L, 2L);
    }
}
