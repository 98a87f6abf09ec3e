package dev.baton.recipes.docs;

// README.md begin barriers
import dev.baton.recipes.barriers.DistributedBarrier;
import dev.baton.recipes.barriers.DistributedDoubleBarrier;

// README.md end barriers
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.BatonEventType;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * README.md's barrier examples, line for line (checked by {@link DocsMirrorTest}), run against an embedded server:
 * the workers start only once the coordinator opens the gate, and every racer runs its round with all five in.
 */
@Timeout(120)
class ReadmeBarriersTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /** The client the examples use. */
    private BatonClient client;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final CountDownLatch prepared = new CountDownLatch(1);
    private final AtomicInteger jobsStarted = new AtomicInteger();
    private final AtomicInteger barrierReads = new AtomicInteger();
    private final AtomicInteger rounds = new AtomicInteger();

    @BeforeEach
    void startClient() throws InterruptedException {
        client = Baton.newClient(zk.connectString(), new RetryOneTime(10));
        client.getOperationListenable().addListener(op -> {
            if (op.type() == BatonEventType.GET_DATA && op.isOk() && "/jobs/nightly/hold".equals(op.path())) {
                barrierReads.incrementAndGet();
            }
        });
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void closeClient() {
        pool.shutdownNow();
        client.close();
    }

    // README.md begin barriers
    // One gate: held shut while its node exists.
    void coordinator() throws Exception {
        DistributedBarrier gate = new DistributedBarrier(client, "/jobs/nightly/hold");
        gate.setBarrier();
        prepareTheJob();
        gate.removeBarrier();                                // every waiter wakes
    }

    void worker() throws Exception {
        DistributedBarrier gate = new DistributedBarrier(client, "/jobs/nightly/hold");
        if (gate.waitOnBarrier(5, TimeUnit.MINUTES)) {       // false on timeout; waitOnBarrier() waits without limit
            startJob();
        }
    }

    // The same without a thread: a watch completes the future once the node is gone.
    void asyncWorker() {
        DistributedBarrier gate = new DistributedBarrier(client, "/jobs/nightly/hold");
        CompletableFuture<Void> opened = gate.waitOnBarrierAsync();   // also setBarrierAsync(), removeBarrierAsync()
        opened.orTimeout(5, TimeUnit.MINUTES).thenRun(this::startJob);   // timed out or cancel(): its watch is removed
    }

    // Enter together, leave together: a fresh path per round.
    void racer(int n) throws Exception {
        DistributedDoubleBarrier round = new DistributedDoubleBarrier(client, "/race/round-" + n, 5);
        if (round.enter(30, TimeUnit.SECONDS)) {             // true once all 5 are in; false leaves no node behind
            runTheRound();
            round.leave();                                   // returns once all 5 are out
        }
    }

    // Or without a thread (also enterAsync/leaveAsync(long, TimeUnit)); cancel() gives a call up as a timeout would.
    CompletableFuture<Void> asyncRacer(int n) {
        DistributedDoubleBarrier round = new DistributedDoubleBarrier(client, "/race/round-" + n, 5);
        return round.enterAsync().thenCompose(in -> runTheRoundAsync()).thenCompose(ran -> round.leaveAsync());
    }
    // README.md end barriers

    void prepareTheJob() throws InterruptedException {
        assertThat(prepared.await(60, TimeUnit.SECONDS)).isTrue();
    }

    void startJob() {
        jobsStarted.incrementAndGet();
    }

    void runTheRound() {
        rounds.incrementAndGet();
    }

    CompletableFuture<Void> runTheRoundAsync() {
        rounds.incrementAndGet();
        return CompletableFuture.completedFuture(null);
    }

    @Test
    void theWorkersStartOnlyOnceTheCoordinatorOpensTheGate() throws Exception {
        Future<?> coordinator = pool.submit(() -> {
            coordinator();
            return null;
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> client.checkExists().forPath("/jobs/nightly/hold") != null);
        Future<?> worker = pool.submit(() -> {
            worker();
            return null;
        });
        asyncWorker();
        await().atMost(Duration.ofSeconds(30)).until(() -> barrierReads.get() >= 2);   // both wait on the gate
        assertThat(jobsStarted).hasValue(0);
        prepared.countDown();
        coordinator.get(30, TimeUnit.SECONDS);
        worker.get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> jobsStarted.get() == 2);
    }

    @Test
    void fiveRacersRunEachRoundTogether() throws Exception {
        List<Future<?>> racers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            racers.add(pool.submit(() -> {
                racer(1);
                return null;
            }));
        }
        for (Future<?> r : racers) {
            r.get(60, TimeUnit.SECONDS);
        }
        assertThat(rounds).hasValue(5);

        List<CompletableFuture<Void>> asyncRacers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            asyncRacers.add(asyncRacer(2));
        }
        CompletableFuture.allOf(asyncRacers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(rounds).hasValue(10);
        assertThat(children("/race/round-1")).isEmpty();   // everybody left, ready included
        assertThat(children("/race/round-2")).isEmpty();
    }

    /** A parent's children; none once the server removed the empty container. */
    private List<String> children(String path) throws Exception {
        return client.checkExists().forPath(path) == null ? List.of() : client.getChildren().forPath(path);
    }
}
