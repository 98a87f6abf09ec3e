package dev.baton.recipes.barriers;

import static dev.baton.recipes.barriers.HorseRace.children;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code CompletableFuture} face of {@link DistributedDoubleBarrier}: the horse race with members driven only
 * by futures beside blocking ones, time limits, giving calls up, a thousand pending enters without a thread, and
 * the failures the blocking face throws, as failed futures.
 */
@Timeout(120)
@Tag("slow")
class DistributedDoubleBarrierAsyncTest {
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

    /**
     * The horse race with three horses driven by {@code enterAsync}/{@code leaveAsync} alone (one of them with the
     * timed forms, one switching between both) and two blocking horses: nobody gets through a round's enter (or
     * leave) before all five have called it, and every round leaves its path empty.
     */
    @Test
    void horseRaceWithAsyncAndBlockingMembers() throws Exception {
        List<BatonClient> horses = new ArrayList<>();
        for (int i = 0; i < HORSES; i++) {
            horses.add(resources.untrackedClient());
        }
        HorseRace race = new HorseRace();
        zk.server().resetStatistics();
        List<CompletableFuture<Integer>> running = new ArrayList<>();
        for (int horse = 0; horse < HORSES; horse++) {
            BatonClient client = horses.get(horse);
            if (horse % 2 == 0) {
                running.add(race.asyncHorse(horse, client, horse == 2));
            } else {
                int h = horse;
                running.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return race.blockingHorse(h, client);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool));
            }
        }
        List<Integer> rounds = new ArrayList<>();
        for (CompletableFuture<Integer> horse : running) {
            rounds.add(horse.get(90, TimeUnit.SECONDS));
        }
        assertThat(rounds).as("rounds run per horse").containsOnly(rounds.get(0));
        int roundsRun = rounds.get(0);
        Map<String, Long> requests = zk.server().requestCounts();
        race.check(roundsRun, horses.get(1));
        System.out.printf("async horse race: %d rounds, requests %s, %.1f requests per member per round%n",
                roundsRun, requests, requests.values().stream().mapToLong(Long::longValue).sum()
                        / (double) (HORSES * (roundsRun + 1)));
    }

    @Test
    void aTimedAsyncEnterWithTooFewMembersCompletesFalseAndLeavesNothing() throws Exception {
        BatonClient client = resources.untrackedClient();
        int watchesBefore = zk.server().watchCount();
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, "/async-lonely", 2);
        long start = System.nanoTime();
        CompletableFuture<Boolean> entering = barrier.enterAsync(300, TimeUnit.MILLISECONDS);
        assertThat(entering.get(WAIT, TimeUnit.SECONDS)).isFalse();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        assertThat(children(client, "/async-lonely")).as("removed before the future completed").isEmpty();
        await().untilAsserted(() -> assertThat(zk.server().watchCount()).isEqualTo(watchesBefore));
        assertThatThrownBy(barrier::leaveAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not entered");

        // The same instance may try again; with a second (blocking) member both get through.
        DistributedDoubleBarrier second = new DistributedDoubleBarrier(resources.untrackedClient(), "/async-lonely", 2);
        CompletableFuture<Boolean> again = barrier.enterAsync(WAIT, TimeUnit.SECONDS);
        assertThat(second.enter(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThat(again.get(WAIT, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> out = barrier.leaveAsync(WAIT, TimeUnit.SECONDS);
        assertThat(second.leave(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThat(out.get(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThat(children(client, "/async-lonely")).isEmpty();
    }

    @Test
    void givingUpAnAsyncEnterRemovesItsNodeAndWatch() throws Exception {
        BatonClient client = resources.untrackedClient();
        int watchesBefore = zk.server().watchCount();
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, "/async-cancel", 2);

        // Cancelled, completed by the caller, or timed out by the caller: each gives the call up the same way.
        CompletableFuture<Void> cancelled = barrier.enterAsync();
        awaitWaiting(client, "/async-cancel", watchesBefore + 1, cancelled);
        assertThat(cancelled.cancel(false)).isTrue();
        awaitGivenUp(client, "/async-cancel", watchesBefore);

        CompletableFuture<Boolean> completed = barrier.enterAsync(1, TimeUnit.MINUTES);
        awaitWaiting(client, "/async-cancel", watchesBefore + 1, completed);
        assertThat(completed.complete(false)).isTrue();
        awaitGivenUp(client, "/async-cancel", watchesBefore);

        CompletableFuture<Void> timedOut = barrier.enterAsync().orTimeout(200, TimeUnit.MILLISECONDS);
        assertThat(failure(timedOut)).isInstanceOf(TimeoutException.class);
        awaitGivenUp(client, "/async-cancel", watchesBefore);

        // Given up, the instance is free at once: it may enter again, and gets through with a second member.
        CompletableFuture<Void> again = barrier.enterAsync();
        await().until(() -> children(client, "/async-cancel").size() == 1);
        again.cancel(false);
        CompletableFuture<Void> entering = barrier.enterAsync();
        DistributedDoubleBarrier second = new DistributedDoubleBarrier(resources.untrackedClient(), "/async-cancel", 2);
        second.enter();
        entering.get(WAIT, TimeUnit.SECONDS);
        assertThat(children(client, "/async-cancel")).hasSize(3).contains(DistributedDoubleBarrier.READY_NODE);
        CompletableFuture<Void> out = barrier.leaveAsync();
        second.leave();
        out.get(WAIT, TimeUnit.SECONDS);
        assertThat(children(client, "/async-cancel")).isEmpty();
    }

    @Test
    void givingUpAnAsyncLeaveRemovesTheMemberNodeAsATimedLeaveDoes() throws Exception {
        BatonClient a = resources.untrackedClient();
        BatonClient b = resources.untrackedClient();
        int port = zk.server().port();
        DistributedDoubleBarrier first = new DistributedDoubleBarrier(a, "/async-slow-leave", 2);
        DistributedDoubleBarrier second = new DistributedDoubleBarrier(b, "/async-slow-leave", 2);
        CompletableFuture<Boolean> entered = first.enterAsync(WAIT, TimeUnit.SECONDS);
        second.enterAsync().get(WAIT, TimeUnit.SECONDS);
        assertThat(entered.get(WAIT, TimeUnit.SECONDS)).isTrue();
        // Counted once both are in: leave's watches are what is measured.
        int watchesBefore = allWatches(port);

        assertThat(first.leaveAsync(300, TimeUnit.MILLISECONDS).get(WAIT, TimeUnit.SECONDS)).isFalse();
        assertThat(children(a, "/async-slow-leave")).hasSize(2).contains(DistributedDoubleBarrier.READY_NODE);
        await().untilAsserted(() -> assertThat(allWatches(port)).isEqualTo(watchesBefore));

        CompletableFuture<Void> leaving = second.leaveAsync(); // first's node is gone: second is the last one out
        leaving.get(WAIT, TimeUnit.SECONDS);
        assertThat(children(a, "/async-slow-leave")).isEmpty();

        // A pending leave given up by its caller: the node goes, the watches go, the instance is idle again.
        String path = "/async-cancel-leave";
        DistributedDoubleBarrier one = new DistributedDoubleBarrier(a, path, 2);
        DistributedDoubleBarrier two = new DistributedDoubleBarrier(b, path, 2);
        CompletableFuture<Void> oneIn = one.enterAsync();
        two.enter();
        oneIn.get(WAIT, TimeUnit.SECONDS);
        int watchesIn = allWatches(port);
        CompletableFuture<Void> oneOut = one.leaveAsync();
        await().until(() -> allWatches(port) > watchesIn); // on the member list, or on two's node
        assertThat(oneOut.cancel(false)).isTrue();
        assertThatThrownBy(one::leaveAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not entered");
        await().untilAsserted(() -> assertThat(children(a, path)).hasSize(2)
                .contains(DistributedDoubleBarrier.READY_NODE)); // two's node and ready
        await().untilAsserted(() -> assertThat(allWatches(port)).isEqualTo(watchesIn));
        assertThat(two.leave(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThat(children(a, path)).isEmpty();
    }

    /** A thousand members wait in {@code enterAsync} on one barrier of 1001: no thread each, and all get through. */
    @Test
    void aThousandPendingAsyncEntersHoldNoThread() throws Exception {
        BatonClient client = resources.untrackedClient();
        String path = "/async-many";
        // Warm up: the client's scheduler thread starts with its first timer.
        assertThat(new DistributedDoubleBarrier(client, "/async-warm-up", 2).enterAsync(0, TimeUnit.SECONDS)
                .get(WAIT, TimeUnit.SECONDS)).isFalse();
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        List<DistributedDoubleBarrier> members = new ArrayList<>();
        List<CompletableFuture<?>> entering = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            DistributedDoubleBarrier member = new DistributedDoubleBarrier(client, path, 1001);
            members.add(member);
            entering.add(i % 2 == 0 ? member.enterAsync() : member.enterAsync(5, TimeUnit.MINUTES));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> children(client, path).size() == 1000);
        assertThat(ManagementFactory.getThreadMXBean().getThreadCount()).as("no thread per pending enter")
                .isLessThanOrEqualTo(threadsBefore + 2);
        assertThat(entering).noneMatch(CompletableFuture::isDone);

        // The last member, blocking, on a client of its own: everybody gets through, then everybody leaves.
        DistributedDoubleBarrier last = new DistributedDoubleBarrier(resources.untrackedClient(), path, 1001);
        assertThat(last.enter(WAIT, TimeUnit.SECONDS)).isTrue();
        CompletableFuture.allOf(entering.toArray(CompletableFuture[]::new)).get(WAIT, TimeUnit.SECONDS);
        assertThat(entering).allSatisfy(f -> assertThat(f.join()).isIn(null, true));
        List<CompletableFuture<?>> leaving = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            leaving.add(i % 2 == 0 ? members.get(i).leaveAsync() : members.get(i).leaveAsync(5, TimeUnit.MINUTES));
        }
        assertThat(last.leave(60, TimeUnit.SECONDS)).isTrue();
        CompletableFuture.allOf(leaving.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(leaving).allSatisfy(f -> assertThat(f.join()).isIn(null, true));
        assertThat(children(client, path)).isEmpty();
        assertThat(members.stream().mapToInt(m -> m.failedWrites.get()).sum()).isZero();
    }

    /** As {@code sessionExpiryDuringEnterFailsThatMemberOnly}, through the futures. */
    @Test
    void sessionExpiryDuringAsyncEnterFailsThatMemberWithSessionExpiredException() throws Exception {
        BatonClient doomed = resources.untrackedClient();
        BatonClient a = resources.untrackedClient();
        String path = "/async-expiry";
        CompletableFuture<Boolean> victim = new DistributedDoubleBarrier(doomed, path, 3)
                .enterAsync(WAIT, TimeUnit.SECONDS);
        CompletableFuture<Boolean> waiter = new DistributedDoubleBarrier(a, path, 3).enterAsync(3, TimeUnit.SECONDS);
        await().until(() -> children(a, path).size() == 2);

        zk.server().expireSession(doomed.getZooKeeper());

        assertThat(failure(victim)).isInstanceOf(KeeperException.SessionExpiredException.class)
                .hasMessageContaining(path + "/");
        assertThat(waiter.get(WAIT, TimeUnit.SECONDS)).isFalse();
        assertThat(children(a, path)).isEmpty();
    }

    /**
     * Expiry before {@code leaveAsync}: the member has left involuntarily; its leave waits for the others and
     * completes, it does not fail.
     */
    @Test
    void sessionExpiryBeforeAsyncLeaveDoesNotFailIt() throws Exception {
        BatonClient doomed = resources.untrackedClient();
        BatonClient b = resources.untrackedClient();
        String path = "/async-leave-expiry";
        DistributedDoubleBarrier first = new DistributedDoubleBarrier(doomed, path, 2);
        DistributedDoubleBarrier second = new DistributedDoubleBarrier(b, path, 2);
        CompletableFuture<Void> in = first.enterAsync();
        second.enter();
        in.get(WAIT, TimeUnit.SECONDS);
        long sessionBefore = doomed.getZooKeeper().getSessionId();

        zk.server().expireSession(doomed.getZooKeeper());
        await().atMost(Duration.ofSeconds(WAIT)).until(() -> doomed.isConnected()
                && doomed.getZooKeeper().getSessionId() != sessionBefore);
        await().until(() -> children(b, path).size() == 2); // second's node and ready

        int watches = allWatches(zk.server().port());
        CompletableFuture<Boolean> out = first.leaveAsync(WAIT, TimeUnit.SECONDS);
        await().until(() -> allWatches(zk.server().port()) > watches); // first waits for second to leave
        assertThat(out).isNotDone();
        assertThat(second.leave(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThat(out.get(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThat(children(b, path)).isEmpty();
    }

    /**
     * Expiry while a leave waits, both faces, several times: the expiry event can reach the barrier before the
     * client has its next session, so the leave's next listing may meet the expired handle; it must carry on with
     * the next session, not fail.
     */
    @RepeatedTest(4)
    void sessionExpiryWhileALeaveWaitsDoesNotFailIt(RepetitionInfo repetition) throws Exception {
        boolean async = repetition.getCurrentRepetition() % 2 == 0;
        BatonClient doomed = resources.untrackedClient();
        BatonClient b = resources.untrackedClient();
        String path = "/leave-waits-expiry-" + repetition.getCurrentRepetition();
        DistributedDoubleBarrier first = new DistributedDoubleBarrier(doomed, path, 2);
        DistributedDoubleBarrier second = new DistributedDoubleBarrier(b, path, 2);
        CompletableFuture<Void> in = first.enterAsync();
        second.enter();
        in.get(WAIT, TimeUnit.SECONDS);
        long sessionBefore = doomed.getZooKeeper().getSessionId();

        int watches = allWatches(zk.server().port());
        CompletableFuture<Boolean> out = async ? first.leaveAsync(WAIT, TimeUnit.SECONDS)
                : CompletableFuture.supplyAsync(() -> {
                    try {
                        return first.leave(WAIT, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                });
        await().until(() -> allWatches(zk.server().port()) > watches); // first waits for second to leave
        zk.server().expireSession(doomed.getZooKeeper());
        await().atMost(Duration.ofSeconds(WAIT)).until(() -> doomed.isConnected()
                && doomed.getZooKeeper().getSessionId() != sessionBefore);
        assertThat(second.leave(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThat(out.get(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThat(children(b, path)).isEmpty();
    }

    @Test
    void connectionLossDuringAsyncEnterAndLeaveFailsWithConnectionLossException() throws Exception {
        BatonClient a = resources.client(false, Duration.ofSeconds(1), new RetryOneTime(100));
        DistributedDoubleBarrier member = new DistributedDoubleBarrier(a, "/async-cut", 2);
        CompletableFuture<Boolean> entering = member.enterAsync(60, TimeUnit.SECONDS);
        await().until(() -> children(a, "/async-cut").size() == 1);
        zk.server().stop();
        try {
            assertThat(failure(entering)).isInstanceOf(KeeperException.ConnectionLossException.class);
        } finally {
            zk.server().restart();
        }
        // Its node is removed once the connection is back (same session); the instance may enter again.
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(children(a, "/async-cut")).isEmpty());

        BatonClient b = resources.untrackedClient();
        DistributedDoubleBarrier other = new DistributedDoubleBarrier(b, "/async-cut", 2);
        CompletableFuture<Void> in = member.enterAsync();
        other.enter();
        in.get(WAIT, TimeUnit.SECONDS);
        CompletableFuture<Void> leaving = member.leaveAsync(); // other has not left: it waits
        await().until(() -> !children(b, "/async-cut").isEmpty());
        zk.server().stop();
        try {
            assertThat(failure(leaving)).isInstanceOf(KeeperException.ConnectionLossException.class);
        } finally {
            zk.server().restart();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> a.isConnected() && b.isConnected());
        assertThat(other.leave(WAIT, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(children(b, "/async-cut")).isEmpty());
    }

    @Test
    void misuseFailsAsTheBlockingFormsDo() throws Exception {
        BatonClient client = resources.untrackedClient();
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, "/async-misuse", 2);
        assertThatThrownBy(() -> barrier.enterAsync(-1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> barrier.enterAsync(1, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("unit");
        assertThatThrownBy(() -> barrier.leaveAsync(-5, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(barrier::leaveAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not entered");

        CompletableFuture<Void> entering = barrier.enterAsync();
        assertThatThrownBy(barrier::enterAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ENTERING");
        assertThatThrownBy(barrier::enter).isInstanceOf(IllegalStateException.class).hasMessageContaining("ENTERING");
        assertThatThrownBy(barrier::leaveAsync).isInstanceOf(IllegalStateException.class);
        DistributedDoubleBarrier other = new DistributedDoubleBarrier(resources.untrackedClient(), "/async-misuse", 2);
        Future<Boolean> blocking = pool.submit(() -> other.enter(WAIT, TimeUnit.SECONDS));
        entering.get(WAIT, TimeUnit.SECONDS);
        assertThat(blocking.get(WAIT, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> barrier.enterAsync(1, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ENTERED");
        CompletableFuture<Void> leaving = barrier.leaveAsync();
        assertThatThrownBy(barrier::leaveAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LEAVING");
        assertThatThrownBy(barrier::enterAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LEAVING");
        assertThat(other.leave(WAIT, TimeUnit.SECONDS)).isTrue();
        leaving.get(WAIT, TimeUnit.SECONDS);
        assertThat(children(client, "/async-misuse")).isEmpty();

        // A closed client: failed futures, and the instance stays usable for a call that can work.
        BatonClient closed = resources.untrackedClient();
        DistributedDoubleBarrier orphan = new DistributedDoubleBarrier(closed, "/async-misuse-closed", 1);
        closed.close();
        assertThat(failure(orphan.enterAsync())).isInstanceOf(IllegalStateException.class);
        assertThat(failure(orphan.enterAsync(1, TimeUnit.SECONDS))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(orphan::leaveAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not entered");
    }

    /** Waits until an enter waits: its node is there, and the server holds its watch on ready. */
    private static void awaitWaiting(BatonClient client, String path, int watches, CompletableFuture<?> call) {
        await().until(() -> children(client, path).size() == 1);
        await().until(() -> zk.server().watchCount() == watches);
        assertThat(call).isNotDone();
    }

    /** Waits until a given-up enter has removed its node and its watch. */
    private static void awaitGivenUp(BatonClient client, String path, int watches) {
        await().untilAsserted(() -> assertThat(children(client, path)).isEmpty());
        await().untilAsserted(() -> assertThat(zk.server().watchCount()).isEqualTo(watches));
    }

    /**
     * Data and child watches the server holds ({@code zk_watch_count} of {@code mntr}): the {@code wchs} of
     * The server's watch count (wchs) counts data watches only, and a leaving lowest member watches the member list.
     */
    private static int allWatches(int port) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("mntr".getBytes(StandardCharsets.US_ASCII));
            String reply = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            Matcher m = Pattern.compile("zk_watch_count\\s+(\\d+)").matcher(reply);
            if (!m.find()) {
                throw new IOException("unexpected mntr reply: " + reply);
            }
            return Integer.parseInt(m.group(1));
        }
    }

    private static Throwable failure(CompletableFuture<?> call) throws Exception {
        try {
            call.get(WAIT, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("expected the call to fail, it is still running", e);
        }
        throw new AssertionError("expected the call to fail");
    }
}
