package dev.baton;

import dev.baton.internal.Failures;
import dev.baton.internal.Requests;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;

/** {@link Requests#repeat} and the helpers of {@link Failures} it pairs with, without a server. */
class RequestsTest {

    @Test
    void repeatLoopsInlineOverRoundsThatCompleteAtOnce() throws Exception {
        AtomicInteger rounds = new AtomicInteger();
        CompletableFuture<Integer> result = Requests.repeat(() -> CompletableFuture.completedFuture(
                rounds.incrementAndGet() < 100_000 ? null : rounds.get()), null);
        assertThat(result).isCompletedWithValue(100_000); // a hundred thousand rounds, and no deep stack
    }

    @Test
    void repeatGoesOnFromARoundThatCompletesLater() throws Exception {
        CompletableFuture<String> later = new CompletableFuture<>();
        AtomicInteger rounds = new AtomicInteger();
        CompletableFuture<String> result = Requests.repeat(
                () -> rounds.incrementAndGet() == 1 ? later : CompletableFuture.completedFuture("second"), null);
        assertThat(result).isNotDone();
        later.complete(null); // another round
        assertThat(result).isCompletedWithValue("second");
        assertThat(rounds).hasValue(2);
    }

    @Test
    void repeatFailsWithTheCauseItselfAndStopsWhenTheCallerIsDone() throws Exception {
        CompletableFuture<String> failed = Requests.repeat(() -> CompletableFuture.<String>completedFuture(null)
                .thenApply(v -> {
                    throw Failures.asCompletion(new KeeperException.ConnectionLossException());
                }), null);
        assertThatThrownBy(() -> Failures.await(failed)).isInstanceOf(KeeperException.ConnectionLossException.class);

        CompletableFuture<Void> caller = new CompletableFuture<>();
        CompletableFuture<String> later = new CompletableFuture<>();
        AtomicInteger rounds = new AtomicInteger();
        CompletableFuture<String> stopped = Requests.repeat(() -> {
            rounds.incrementAndGet();
            return later;
        }, caller);
        caller.complete(null); // the caller gave up
        later.complete(null);
        assertThat(stopped).isCancelled();
        assertThat(rounds).hasValue(1);
        assertThatThrownBy(() -> Failures.await(stopped)).isInstanceOf(CancellationException.class);
    }
}
