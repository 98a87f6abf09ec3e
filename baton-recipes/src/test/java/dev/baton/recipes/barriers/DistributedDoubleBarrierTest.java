package dev.baton.recipes.barriers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(90)
class DistributedDoubleBarrierTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static final int HORSES = 5;
    private static final int FINISH = 100;
    private static final int MAX_ROUNDS = 40;

    private Clients clients;
    private ExecutorService pool;

    @BeforeEach
    void setUp() {
        clients = new Clients(zk);
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        clients.close();
    }

    /** What one horse saw in one round, on the shared monotonic clock. */
    private static final class Times {
        volatile long enterCalled;
        volatile long enterReturned;
        volatile long leaveCalled;
        volatile long leaveReturned;
        volatile boolean readySeen;
    }

    /**
     * The seed program: 5 horses, each with its own client, enter an outer barrier of 5, then race round by
     * round through a fresh barrier per round (random steps, first to 100 wins), then leave the outer barrier.
     */
    @Test
    void horseRace() throws Exception {
        List<BatonClient> horses = new ArrayList<>();
        for (int i = 0; i < HORSES; i++) {
            horses.add(clients.newClient());
        }
        Times[][] times = new Times[MAX_ROUNDS + 1][HORSES];
        AtomicIntegerArray positions = new AtomicIntegerArray(HORSES);
        AtomicInteger roundsRun = new AtomicInteger();
        List<DistributedDoubleBarrier> all = new ArrayList<>();
        int watchesBefore = ServerWatches.total(zk.server().port());
        zk.server().resetStatistics();

        List<Future<Integer>> running = new ArrayList<>();
        for (int h = 0; h < HORSES; h++) {
            int horse = h;
            BatonClient client = horses.get(h);
            running.add(pool.submit(() -> {
                Random random = new Random(horse);
                DistributedDoubleBarrier gate = new DistributedDoubleBarrier(client, "/race/gate", HORSES);
                synchronized (all) {
                    all.add(gate);
                }
                gate.enter();
                int round = 0;
                while (true) {
                    round++;
                    Times t = new Times();
                    times[round][horse] = t;
                    DistributedDoubleBarrier barrier =
                            new DistributedDoubleBarrier(client, "/race/round-" + round, HORSES);
                    synchronized (all) {
                        all.add(barrier);
                    }
                    t.enterCalled = System.nanoTime();
                    barrier.enter();
                    t.enterReturned = System.nanoTime();
                    t.readySeen = client.checkExists().forPath("/race/round-" + round + "/ready") != null;
                    positions.addAndGet(horse, 1 + random.nextInt(10));
                    t.leaveCalled = System.nanoTime();
                    barrier.leave();
                    t.leaveReturned = System.nanoTime();
                    boolean finished = false;
                    for (int i = 0; i < HORSES; i++) {
                        finished |= positions.get(i) >= FINISH;
                    }
                    if (finished) {
                        break;
                    }
                }
                roundsRun.accumulateAndGet(round, Math::max);
                gate.leave();
                return round;
            }));
        }
        for (Future<Integer> f : running) {
            assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(roundsRun.get());
        }
        int rounds = roundsRun.get();
        assertThat(rounds).isGreaterThanOrEqualTo(10);
        Map<String, Long> requests = zk.server().requestCounts();
        BatonClient observer = horses.get(0);
        for (int round = 1; round <= rounds; round++) {
            long lastEnterCalled = 0;
            long lastLeaveCalled = 0;
            for (Times t : times[round]) {
                lastEnterCalled = Math.max(lastEnterCalled, t.enterCalled);
                lastLeaveCalled = Math.max(lastLeaveCalled, t.leaveCalled);
            }
            for (int horse = 0; horse < HORSES; horse++) {
                Times t = times[round][horse];
                assertThat(t.enterReturned).as("round %d horse %d enter", round, horse)
                        .isGreaterThanOrEqualTo(lastEnterCalled);
                assertThat(t.leaveReturned).as("round %d horse %d leave", round, horse)
                        .isGreaterThanOrEqualTo(lastLeaveCalled);
                assertThat(t.readySeen).as("round %d horse %d saw ready", round, horse).isTrue();
            }
            assertThat(children(observer, "/race/round-" + round)).as("round %d", round).isEmpty();
        }
        assertThat(children(observer, "/race/gate")).isEmpty();
        int failed = all.stream().mapToInt(b -> b.failedWrites.get()).sum();
        int pathRaces = all.stream().mapToInt(b -> b.failedPathCreates.get()).sum();
        assertThat(failed).as("failed member/ready writes").isZero();
        // The members agree on who creates a fresh round path: no create of it fails. Only the gate's parent
        // /race, missing at the start, costs each horse one marker create that finds no parent.
        assertThat(all.stream().filter(b -> !b.getPath().equals("/race/gate"))
                .mapToInt(b -> b.failedPathCreates.get()).sum()).as("failed path writes of the rounds").isZero();
        assertThat(pathRaces).as("failed path writes of the gate").isLessThanOrEqualTo(HORSES);
        await().untilAsserted(() -> assertThat(children(observer, "/race")).as("markers left")
                .noneMatch(n -> n.contains(DistributedDoubleBarrier.CREATING_MARKER)));
        // No watch left behind, such as one set by exists on a marker or member already gone.
        await().untilAsserted(() -> assertThat(ServerWatches.total(zk.server().port())).as("server watches")
                .isEqualTo(watchesBefore));
        // Writes per round, without failures: 5 member creates, ready, 5 markers; 4 member and 4 marker deletes;
        // one multi creating the round path (deleting its creator's marker), one the last member's leave.
        long writes = requests.getOrDefault("create", 0L) + requests.getOrDefault("createContainer", 0L)
                + requests.getOrDefault("create2", 0L) + requests.getOrDefault("delete", 0L)
                + requests.getOrDefault("multi", 0L);
        System.out.printf("horse race: %d rounds, requests %s, %.1f requests per member per round,"
                        + " writes per round %.2f (ideal %d), failed member/ready writes %d, failed path writes %d%n",
                rounds, requests, requests.values().stream().mapToLong(Long::longValue).sum()
                        / (double) (HORSES * (rounds + 1)), writes / (double) (rounds + 1), 4 * HORSES + 1, failed, pathRaces);
    }

    private static List<String> children(BatonClient client, String path) throws Exception {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of(); // the empty container was swept
        }
    }

    @Test
    void aTimedEnterWithOneOfTwoMembersReturnsFalseAndLeavesNoMemberNode() throws Exception {
        BatonClient client = clients.newClient();
        int watchesBefore = ServerWatches.total(zk.server().port());
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, "/lonely", 2);
        long start = System.nanoTime();
        assertThat(barrier.enter(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        assertThat(children(client, "/lonely")).isEmpty();
        await().untilAsserted(() -> assertThat(ServerWatches.total(zk.server().port())).isEqualTo(watchesBefore));
        assertThatThrownBy(barrier::leave).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not entered");

        // The same instance may try again; with a second member both get through.
        BatonClient other = clients.newClient();
        DistributedDoubleBarrier second = new DistributedDoubleBarrier(other, "/lonely", 2);
        Future<Boolean> first = pool.submit(() -> barrier.enter(20, TimeUnit.SECONDS));
        assertThat(second.enter(20, TimeUnit.SECONDS)).isTrue();
        assertThat(first.get(20, TimeUnit.SECONDS)).isTrue();
        Future<Boolean> firstOut = pool.submit(() -> barrier.leave(20, TimeUnit.SECONDS));
        assertThat(second.leave(20, TimeUnit.SECONDS)).isTrue();
        assertThat(firstOut.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(children(client, "/lonely")).isEmpty();
    }

    @Test
    void aTimedLeaveThatTimesOutRemovesTheMemberNode() throws Exception {
        BatonClient a = clients.newClient();
        BatonClient b = clients.newClient();
        DistributedDoubleBarrier first = new DistributedDoubleBarrier(a, "/slow-leave", 2);
        DistributedDoubleBarrier second = new DistributedDoubleBarrier(b, "/slow-leave", 2);
        Future<Boolean> entered = pool.submit(() -> first.enter(20, TimeUnit.SECONDS));
        second.enter();
        assertThat(entered.get(20, TimeUnit.SECONDS)).isTrue();

        assertThat(first.leave(300, TimeUnit.MILLISECONDS)).isFalse(); // second has not left
        assertThat(children(a, "/slow-leave")).hasSize(2).contains("ready"); // second's node and ready
        second.leave(); // the last one out cleans up
        assertThat(children(a, "/slow-leave")).isEmpty();
    }

    @Test
    void membersArrivingAfterTheBarrierOpenedGetThroughAtOnce() throws Exception {
        BatonClient client = clients.newClient();
        DistributedDoubleBarrier one = new DistributedDoubleBarrier(client, "/late", 1);
        one.enter();
        DistributedDoubleBarrier late = new DistributedDoubleBarrier(clients.newClient(), "/late", 3);
        assertThat(late.enter(0, TimeUnit.SECONDS)).isTrue(); // ready exists
        Future<Boolean> out = pool.submit(() -> one.leave(20, TimeUnit.SECONDS));
        late.leave();
        assertThat(out.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(children(client, "/late")).isEmpty();
    }

    /**
     * Session expiry of a member during enter: that member gets SessionExpiredException (its node went with its
     * session, so it no longer counts); the others keep waiting, time out cleanly, and a new member can still
     * complete the barrier with them.
     */
    @Test
    void sessionExpiryDuringEnterFailsThatMemberOnly() throws Exception {
        BatonClient doomed = clients.newClient();
        BatonClient a = clients.newClient();
        BatonClient b = clients.newClient();
        DistributedDoubleBarrier victim = new DistributedDoubleBarrier(doomed, "/expiry", 3);
        DistributedDoubleBarrier waiter = new DistributedDoubleBarrier(a, "/expiry", 3);
        Future<Boolean> victimEnter = pool.submit(() -> victim.enter(30, TimeUnit.SECONDS));
        Future<Boolean> waiterEnter = pool.submit(() -> waiter.enter(3, TimeUnit.SECONDS));
        await().until(() -> children(a, "/expiry").size() == 2);

        zk.server().expireSession(doomed.getZooKeeper());

        assertThatThrownBy(() -> victimEnter.get(20, TimeUnit.SECONDS)).cause()
                .isInstanceOf(KeeperException.SessionExpiredException.class).hasMessageContaining("/expiry/");
        assertThat(waiterEnter.get(20, TimeUnit.SECONDS)).isFalse();
        assertThat(children(a, "/expiry")).isEmpty();

        // The barrier is still usable: three fresh members get through.
        List<Callable<Boolean>> three = new ArrayList<>();
        for (BatonClient c : List.of(doomed, a, b)) {
            DistributedDoubleBarrier member = new DistributedDoubleBarrier(c, "/expiry", 3);
            three.add(() -> member.enter(20, TimeUnit.SECONDS) && member.leave(20, TimeUnit.SECONDS));
        }
        for (Future<Boolean> f : pool.invokeAll(three)) {
            assertThat(f.get()).isTrue();
        }
        assertThat(children(a, "/expiry")).isEmpty();
    }

    @Test
    void leaveAfterAnOutageTheMemberNodeSurvivedDoesNotComplain() throws Exception {
        BatonClient a = clients.newClient();
        BatonClient b = clients.newClient();
        DistributedDoubleBarrier first = new DistributedDoubleBarrier(a, "/outage", 2);
        DistributedDoubleBarrier second = new DistributedDoubleBarrier(b, "/outage", 2);
        Future<Boolean> entered = pool.submit(() -> first.enter(20, TimeUnit.SECONDS));
        second.enter();
        assertThat(entered.get(20, TimeUnit.SECONDS)).isTrue();

        zk.server().stop();
        zk.server().restart();
        await().atMost(Duration.ofSeconds(20)).until(() -> a.isConnected() && b.isConnected());

        Future<Boolean> left = pool.submit(() -> first.leave(20, TimeUnit.SECONDS));
        assertThat(second.leave(20, TimeUnit.SECONDS)).isTrue();
        assertThat(left.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(children(a, "/outage")).isEmpty();
    }

    @Test
    void connectionLossDuringEnterThrowsConnectionLossException() throws Exception {
        BatonClient a = clients.newClient(Duration.ofSeconds(1), new RetryOneTime(100));
        DistributedDoubleBarrier member = new DistributedDoubleBarrier(a, "/cut", 2);
        Future<Boolean> entering = pool.submit(() -> member.enter(60, TimeUnit.SECONDS));
        await().until(() -> children(a, "/cut").size() == 1);
        zk.server().stop();
        try {
            assertThatThrownBy(() -> entering.get(40, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(KeeperException.ConnectionLossException.class);
        } finally {
            zk.server().restart();
        }
        // Its node is removed once the connection is back (same session).
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(children(a, "/cut")).isEmpty());
    }

    @Test
    void badArgumentsAndMisuseFailClearly() throws Exception {
        BatonClient client = clients.newClient();
        assertThatThrownBy(() -> new DistributedDoubleBarrier(client, "/x", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("memberQty").hasMessageContaining("0");
        assertThatThrownBy(() -> new DistributedDoubleBarrier(client, "/x", -3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-3");
        assertThatThrownBy(() -> new DistributedDoubleBarrier(null, "/x", 1)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new DistributedDoubleBarrier(client, null, 1))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("barrierPath");
        assertThatThrownBy(() -> new DistributedDoubleBarrier(client, "/a//b", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/a//b");
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, "/misuse", 1);
        assertThatThrownBy(() -> barrier.enter(-1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> barrier.leave(-5, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> barrier.enter(1, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("unit");
        assertThatThrownBy(barrier::leave).isInstanceOf(IllegalStateException.class);
        barrier.enter();
        assertThatThrownBy(barrier::enter).isInstanceOf(IllegalStateException.class).hasMessageContaining("ENTERED");
        barrier.leave();
        assertThat(children(client, "/misuse")).isEmpty();
    }

}
