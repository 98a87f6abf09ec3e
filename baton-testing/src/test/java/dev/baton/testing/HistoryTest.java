package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HistoryTest {

    @Test
    void eventLineRoundTrips() {
        Event e = new Event(7, 123_456_789L, "client 1", Kind.ACQUIRED, "/locks/ä b=c", 42, "why: x=y & z");
        Event none = new Event(0, 0, "", Kind.FAULT_HEALED, "kill-2", History.NO_TOKEN, "");

        assertThat(History.parseLine(e.toLine())).contains(e);
        assertThat(History.parseLine(none.toLine())).contains(none);
        assertThat(History.parseLine("[driver-3] " + e.toLine())).contains(e);
        assertThat(e.toLine()).startsWith(History.LINE_PREFIX).doesNotContain("\n");
    }

    @Test
    void aListedHistoryReadsBackToTheMicrosecond() {
        List<Event> events = List.of(
                new Event(0, 2_243_081_123L, "c4-curator", Kind.CONNECTED, "", History.NO_TOKEN,
                        "CONNECTED session 0x100036b5ea80000"),
                new Event(1, 2_245_386_000L, "c1-baton", Kind.ACQUIRED, "mutex", 4_294_967_331L, ""),
                new Event(2, 2_250_000_000L, "", Kind.FAULT_INJECTED, "f6", History.NO_TOKEN,
                        "expire session 0x3 of c4-curator (by fault)"),
                new Event(3, 2_260_000_000L, "c2-curator", Kind.OP_OK, "atomic-long", History.NO_TOKEN,
                        "add 1 => 0 1"),
                new Event(12_345, 3_600_000_001_000L, "c3-baton", Kind.LOST_LEADERSHIP, "selector", 17L, "returned"),
                new Event(12_346, 3_600_000_002_000L, "c3-baton", Kind.RESUMED, "", History.NO_TOKEN, ""));
        List<Event> back = new ArrayList<>();
        for (String line : History.format(events, java.util.Set.of(1L)).split("\n")) {
            back.add(History.parseListed(line).orElseThrow());
        }
        List<Event> toTheMicrosecond = events.stream().map(e -> new Event(e.seq(), e.nanos() / 1_000 * 1_000,
                e.client(), e.kind(), e.name(), e.token(), e.detail())).toList();
        assertThat(back).isEqualTo(toTheMicrosecond);
        assertThat(History.parseListed("   ... 73 event(s) ...")).isEmpty();
        assertThatThrownBy(() -> History.parseListed("   #1 2.000 ms  c1 NO_SUCH_KIND x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NO_SUCH_KIND");
    }

    @Test
    void recordLineRestampsOnReceiptAndIgnoresOtherOutput() {
        History history = new History();
        history.note("first");
        Event remote = new Event(99, 999_999_999_999L, "driver-1", Kind.BECAME_LEADER, "/leader", 5, "");

        assertThat(history.recordLine("some log output")).isEmpty();
        Event received = history.recordLine(remote.toLine()).orElseThrow();

        assertThat(received.seq()).isEqualTo(1);
        assertThat(received.nanos()).isLessThan(remote.nanos());
        assertThat(received.client()).isEqualTo("driver-1");
        assertThat(received.kind()).isEqualTo(Kind.BECAME_LEADER);
        assertThat(received.token()).isEqualTo(5);
        assertThat(history.events()).hasSize(2);
    }

    @Test
    void malformedEventLineFails() {
        assertThatThrownBy(() -> History.parseLine(History.LINE_PREFIX + "seq=1 t=2 kind=NOPE client= name= "
                + "token=- detail=")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NOPE");
        assertThatThrownBy(() -> History.parseLine(History.LINE_PREFIX + "seq=1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missing field");
    }

    @Test
    void concurrentRecordingKeepsSequenceAndTimeInOrder() throws Exception {
        History history = new History();
        List<Event> seen = Collections.synchronizedList(new ArrayList<>());
        history.addListener(seen::add);
        int threads = 8;
        int each = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            History.Recorder r = history.recorder("c" + t);
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < each; i++) {
                    r.acquired("/lock", ThreadLocalRandom.current().nextLong(1_000));
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();

        List<Event> events = history.events();
        assertThat(events).hasSize(threads * each);
        for (int i = 0; i < events.size(); i++) {
            assertThat(events.get(i).seq()).isEqualTo(i);
            if (i > 0) {
                assertThat(events.get(i).nanos()).isGreaterThanOrEqualTo(events.get(i - 1).nanos());
            }
        }
        assertThat(seen).containsExactlyElementsOf(events);
        assertThatThrownBy(() -> events.add(events.get(0))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void dumpToFileIsReadableBack(@TempDir Path dir) throws Exception {
        History history = new History();
        history.recorder("a").acquired("/lock", 3);
        history.faultInjected("kill-1", "SIGKILL server 1");
        Path file = dir.resolve("history.txt");

        history.dump(file);

        List<Event> back = Files.readAllLines(file).stream().map(l -> History.parseLine(l).orElseThrow()).toList();
        assertThat(back).isEqualTo(history.events());
        StringBuilder text = new StringBuilder();
        history.dump(text);
        assertThat(text.toString()).contains("ACQUIRED", "/lock", "token=3", "SIGKILL server 1");
    }

    @Test
    void longWindowsAreElidedAroundTheMarkedEvents() {
        Script s = new Script().at(0, "a", Kind.ACQUIRED, "/lock", 1);
        for (int i = 1; i < 500; i++) {
            s.at(i, "x", Kind.NOTE, "");
        }
        s.at(500, "b", Kind.ACQUIRED, "/lock", 2);

        Violation v = Checkers.mutualExclusion().check(s.events()).get(0);

        assertThat(v.window()).hasSize(501);
        assertThat(v.excerpt().lines().count()).isLessThan(20);
        assertThat(v.excerpt()).contains(">> #0", ">> #500", "... 493 event(s) ...");
    }
}
