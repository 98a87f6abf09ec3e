package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GuardedResourceTest {

    @Test
    void acceptsEqualOrHigherTokensAndRejectsStaleOnes() {
        History history = new History();
        GuardedResource db = new GuardedResource("db", history);
        AtomicInteger writes = new AtomicInteger();

        assertThat(db.use("a", 5, writes::incrementAndGet)).isTrue();
        assertThat(db.use("a", 5, writes::incrementAndGet)).isTrue();
        assertThat(db.use("b", 8, writes::incrementAndGet)).isTrue();
        assertThat(db.use("a", 5, writes::incrementAndGet)).isFalse();

        assertThat(writes).hasValue(3);
        assertThat(db.highestToken()).isEqualTo(8);
        assertThat(db.acceptedCount()).isEqualTo(3);
        assertThat(db.rejectedCount()).isEqualTo(1);
        assertThat(history.events()).extracting(History.Event::kind).containsExactly(History.Kind.TOKEN_USED,
                History.Kind.TOKEN_USED, History.Kind.TOKEN_USED, History.Kind.TOKEN_REJECTED);
        assertThat(history.events().get(3).detail()).contains("highest seen 8");
        assertThat(Checkers.check(history, Checkers.noStaleTokenAccepted())).isEmpty();
    }

    @Test
    void concurrentUseNeverRecordsAStaleAcceptance() throws Exception {
        History history = new History();
        GuardedResource db = new GuardedResource("db", history);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            String client = "c" + t;
            futures.add(pool.submit(() -> {
                for (int i = 0; i < 3_000; i++) {
                    db.use(client, ThreadLocalRandom.current().nextLong(10_000));
                }
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();

        assertThat(db.acceptedCount() + db.rejectedCount()).isEqualTo(18_000);
        assertThat(Checkers.check(history, Checkers.noStaleTokenAccepted())).isEmpty();
    }

    @Test
    void reservedTokenIsRefused() {
        GuardedResource db = new GuardedResource("db", new History());
        assertThatThrownBy(() -> db.use("a", History.NO_TOKEN)).isInstanceOf(IllegalArgumentException.class);
    }
}
