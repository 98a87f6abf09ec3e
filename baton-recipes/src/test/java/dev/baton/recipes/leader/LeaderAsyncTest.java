package dev.baton.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lifecycle state and the async forms of LeaderLatch and LeaderSelector. */
@Timeout(60)
class LeaderAsyncTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    private <T extends AutoCloseable> T closing(T recipe) {
        return resources.open(recipe);
    }

    @Test
    void latchStateFollowsItsLife() throws Exception {
        LeaderLatch latch = closing(new LeaderLatch(resources.client(), "/async/state", "a"));
        assertThat(latch.getState()).isEqualTo(LeaderLatch.State.LATENT);
        assertThatThrownBy(latch::awaitAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT");
        latch.start();
        assertThat(latch.getState()).isEqualTo(LeaderLatch.State.STARTED);
        latch.close();
        assertThat(latch.getState()).isEqualTo(LeaderLatch.State.CLOSED);
        assertThatThrownBy(latch::awaitAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
    }

    @Test
    void awaitAsyncCompletesWhenTheLatchLeadsAndHoldsNoThread() throws Exception {
        LeaderLatch first = closing(new LeaderLatch(resources.client(), "/async/latch", "first"));
        LeaderLatch second = closing(new LeaderLatch(resources.client(), "/async/latch", "second"));
        first.start();
        first.awaitAsync().get(10, TimeUnit.SECONDS);
        assertThat(first.awaitAsync()).isCompleted(); // leads now: at once
        second.start();
        await().until(() -> second.getParticipants().size() == 2);

        int threadsBefore = Thread.activeCount();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            waits.add(second.awaitAsync());
        }
        assertThat(Thread.activeCount()).isLessThan(threadsBefore + 10); // 50 waits, no thread each
        assertThat(waits).noneMatch(CompletableFuture::isDone);

        // A cancelled wait is forgotten; the latch stays in the election.
        waits.get(0).cancel(false);
        assertThat(second.awaitingCount()).isEqualTo(49);
        first.close();
        CompletableFuture.allOf(waits.subList(1, 50).toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(second.hasLeadership()).isTrue();
        assertThat(second.awaitingCount()).isZero();
    }

    @Test
    void awaitAsyncFailsWhenTheLatchClosesFirst() throws Exception {
        LeaderLatch first = closing(new LeaderLatch(resources.client(), "/async/closed", "first"));
        LeaderLatch second = closing(new LeaderLatch(resources.client(), "/async/closed", "second"));
        first.start();
        first.awaitAsync().get(10, TimeUnit.SECONDS);
        second.start();
        CompletableFuture<Void> wait = second.awaitAsync();
        second.close();
        assertThatThrownBy(() -> wait.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(second.awaitingCount()).isZero();
    }

    @Test
    void selectorTurnFutureCompletesWhenTakeLeadershipReturns() throws Exception {
        BatonClient client = resources.client();
        AtomicInteger turns = new AtomicInteger();
        LeaderSelector selector = closing(new LeaderSelector(client, "/async/selector",
                new LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(BatonClient c) {
                        turns.incrementAndGet();
                    }
                }));
        selector.startAsync().get(10, TimeUnit.SECONDS);
        assertThat(turns).hasValue(1);
        assertThat(selector.hasLeadership()).isFalse();
        assertThat(client.getChildren().forPath("/async/selector")).isEmpty(); // released before completing
        selector.requeueAsync().get(10, TimeUnit.SECONDS);
        assertThat(turns).hasValue(2);
        assertThatThrownBy(selector::startAsync).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void selectorTurnFailsWithWhatTakeLeadershipThrew() throws Exception {
        LeaderSelector selector = closing(new LeaderSelector(resources.client(), "/async/throws",
                new LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(BatonClient c) {
                        throw new IllegalArgumentException("boom");
                    }
                }));
        assertThatThrownBy(() -> selector.startAsync().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("boom");
    }

    @Test
    void cancellingAWaitingTurnLeavesTheQueue() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        BatonClient client = resources.client();
        LeaderSelector leader = closing(new LeaderSelector(client, "/async/cancel",
                new LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(BatonClient c) throws InterruptedException {
                        release.await();
                    }
                }));
        AtomicInteger waiterTurns = new AtomicInteger();
        LeaderSelector waiter = closing(new LeaderSelector(resources.client(), "/async/cancel",
                new LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(BatonClient c) {
                        waiterTurns.incrementAndGet();
                    }
                }));
        CompletableFuture<Void> leading = leader.startAsync();
        await().until(leader::hasLeadership);
        CompletableFuture<Void> waiting = waiter.startAsync();
        await().until(() -> client.getChildren().forPath("/async/cancel").size() == 2);
        assertThat(waiter.requeueAsync()).isSameAs(waiting); // already queued: the same turn

        waiting.cancel(false);
        await().until(() -> client.getChildren().forPath("/async/cancel").size() == 1);
        release.countDown();
        leading.get(10, TimeUnit.SECONDS);
        assertThat(client.getChildren().forPath("/async/cancel")).isEmpty();
        assertThat(waiterTurns).hasValue(0);
        assertThat(waiter.requeue()).isTrue(); // no longer queued: may queue again
        await().until(() -> waiterTurns.get() == 1);
    }

    @Test
    void cancellingALeadingTurnInterruptsLeadership() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        LeaderSelector selector = closing(new LeaderSelector(resources.client(), "/async/interrupt",
                new LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(BatonClient c) throws InterruptedException {
                        started.countDown();
                        new CountDownLatch(1).await(); // until interrupted
                    }
                }));
        CompletableFuture<Void> turn = selector.startAsync();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        turn.cancel(false);
        await().until(() -> !selector.hasLeadership());
    }
}
