package dev.baton.recipes.barriers;

import static dev.baton.recipes.barriers.HorseRace.children;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(90)
@Tag("slow")
class DistributedDoubleBarrierTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static final int HORSES = HorseRace.HORSES;
    private static final long WAIT = 30;

    @RegisterExtension
    final TestResources resources = new TestResources(zk);
    private ExecutorService pool;

    @BeforeEach
    void setUp() {
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
    }

    /** The seed program (see {@link HorseRace}), every horse with the blocking forms. */
    @Test
    void horseRace() throws Exception {
        List<BatonClient> horses = new ArrayList<>();
        for (int i = 0; i < HORSES; i++) {
            horses.add(resources.untrackedClient());
        }
        HorseRace race = new HorseRace();
        int watchesBefore = zk.server().watchCount();
        zk.server().resetStatistics();
        List<Future<Integer>> running = new ArrayList<>();
        for (int h = 0; h < HORSES; h++) {
            int horse = h;
            running.add(pool.submit(() -> race.blockingHorse(horse, horses.get(horse))));
        }
        List<Integer> rounds = new ArrayList<>();
        for (Future<Integer> f : running) {
            rounds.add(f.get(60, TimeUnit.SECONDS));
        }
        assertThat(rounds).as("rounds run per horse").containsOnly(rounds.get(0));
        Map<String, Long> requests = zk.server().requestCounts();
        BatonClient observer = horses.get(0);
        race.check(rounds.get(0), observer);
        // No watch left behind, such as one set by exists on a member already gone.
        await().untilAsserted(() -> assertThat(zk.server().watchCount()).as("server watches")
                .isEqualTo(watchesBefore));
        // Writes per round: 5 member creates, ready, 4 member deletes, the last member's leave (a multi), and on
        // the round's new path the path's create and each member's create that found no path.
        long writes = requests.getOrDefault("create", 0L) + requests.getOrDefault("createContainer", 0L)
                + requests.getOrDefault("create2", 0L) + requests.getOrDefault("delete", 0L)
                + requests.getOrDefault("multi", 0L);
        int roundsRun = rounds.get(0);
        System.out.printf("horse race: %d rounds, requests %s, %.1f requests per member per round,"
                        + " writes per round %.2f (ideal %d), failed member/ready writes %d, failed path writes %d%n",
                roundsRun, requests, requests.values().stream().mapToLong(Long::longValue).sum()
                        / (double) (HORSES * (roundsRun + 1)), writes / (double) (roundsRun + 1), 4 * HORSES + 1,
                race.failedWrites(), race.failedPathWrites());
    }


    @Test
    void aTimedEnterWithOneOfTwoMembersReturnsFalseAndLeavesNoMemberNode() throws Exception {
        BatonClient client = resources.untrackedClient();
        int watchesBefore = zk.server().watchCount();
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, "/lonely", 2);
        long start = System.nanoTime();
        assertThat(barrier.enter(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        assertThat(children(client, "/lonely")).isEmpty();
        await().untilAsserted(() -> assertThat(zk.server().watchCount()).isEqualTo(watchesBefore));
        assertThatThrownBy(barrier::leave).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not entered");

        // The same instance may try again; with a second member both get through.
        BatonClient other = resources.untrackedClient();
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
        BatonClient a = resources.untrackedClient();
        BatonClient b = resources.untrackedClient();
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
        BatonClient client = resources.untrackedClient();
        DistributedDoubleBarrier one = new DistributedDoubleBarrier(client, "/late", 1);
        one.enter();
        DistributedDoubleBarrier late = new DistributedDoubleBarrier(resources.untrackedClient(), "/late", 3);
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
        BatonClient doomed = resources.untrackedClient();
        BatonClient a = resources.untrackedClient();
        BatonClient b = resources.untrackedClient();
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
        BatonClient a = resources.untrackedClient();
        BatonClient b = resources.untrackedClient();
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
        BatonClient a = resources.client(false, Duration.ofSeconds(1), new RetryOneTime(100));
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
        BatonClient client = resources.untrackedClient();
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

    @Test
    void whenTheLastMemberVanishesInLeaveTheOneWaitingOnItRemovesReady() throws Exception {
        BatonClient one = resources.untrackedClient();
        BatonClient two = resources.untrackedClient();
        DistributedDoubleBarrier first = new DistributedDoubleBarrier(one, "/vanish", 2);
        DistributedDoubleBarrier second = new DistributedDoubleBarrier(two, "/vanish", 2);
        Future<Boolean> entering = pool.submit(() -> first.enter(WAIT, TimeUnit.SECONDS));
        assertThat(second.enter(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThat(entering.get(WAIT, TimeUnit.SECONDS)).isTrue();
        // Member nodes are random names: the lowest goes last. Its owner crashes; the other leaves first and
        // waits on it.
        List<String> members = new ArrayList<>(children(two, "/vanish"));
        members.remove("ready");
        members.sort(null);
        long lowestOwner = two.checkExists().forPath("/vanish/" + members.get(0)).getEphemeralOwner();
        boolean firstIsLowest = lowestOwner == one.getZooKeeper().getSessionId();
        BatonClient crashing = firstIsLowest ? one : two;
        DistributedDoubleBarrier leaving = firstIsLowest ? second : first;
        BatonClient observer = firstIsLowest ? two : one;
        Future<Boolean> left = pool.submit(() -> leaving.leave(WAIT, TimeUnit.SECONDS));
        await().until(() -> children(observer, "/vanish").size() == 2); // ready and the lowest: it waits
        crashing.close();
        assertThat(left.get(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThat(children(observer, "/vanish")).as("ready must not stand for the next round").isEmpty();
    }
}
