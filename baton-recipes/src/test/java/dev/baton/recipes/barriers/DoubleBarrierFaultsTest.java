package dev.baton.recipes.barriers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryNTimes;
import dev.baton.testing.Checkers;
import dev.baton.testing.ClientLink;
import dev.baton.testing.History;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DistributedDoubleBarrier under faults on a real 3-server ensemble (separate JVMs, every member's client behind
 * its own proxies): a member's server killed mid-round, and a member's session expired on the server while it
 * waits in {@code enter}. Every {@code enter}/{@code leave} call and every successful return goes into a
 * {@link History}; after each test the barrier checker confirms that no member got through {@code enter}
 * (or {@code leave}) before all {@link #MEMBERS} members had called it.
 *
 * <p>Semantics under test (DistributedDoubleBarrier's javadoc, "Failures"): a member whose session survives a
 * server crash completes the round as if nothing happened; a member whose session expires while it waits in
 * {@code enter} gets a {@link KeeperException.SessionExpiredException} naming its member node, and no longer
 * counts: the others keep waiting, and either time out cleanly (their timed {@code enter} returns false and
 * leaves no node) or get through once enough members (counted anew) have entered.
 */
@Timeout(120)
@Tag("fault")
class DoubleBarrierFaultsTest {
    private static final int MEMBERS = 3;
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

    private final History history = new History();
    private final List<Member> members = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    /** One barrier member: its own client and network link, recording its calls. */
    private final class Member implements AutoCloseable {
        final String name;
        final ClientLink link;
        final BatonClient client;
        final History.Recorder recorder;

        Member(String name) throws InterruptedException {
            this.name = name;
            this.link = zk.newClientLink();
            this.recorder = history.recorder(name);
            // Ensemble tracking would move the client from its link's proxies to the servers' own ports. The
            // retry policy outlasts a reconnection to another server (a few hundred ms here).
            this.client = Baton.builder().connectString(link.connectString()).sessionTimeout(SESSION)
                    .connectionTimeout(Duration.ofSeconds(10)).retryPolicy(new RetryNTimes(20, 250))
                    .ensembleTracker(false).build();
            client.getConnectionStateListenable().addListener((c, state) -> {
                if (state.isConnected()) {
                    recorder.connected(state.name());
                } else {
                    recorder.disconnected(state.name());
                }
            });
            client.start();
            assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
        }

        DistributedDoubleBarrier barrier(String path) {
            return new DistributedDoubleBarrier(client, path, MEMBERS);
        }

        /** Starts {@code enter()}; records the call now and the return only if the call passed. */
        Future<Boolean> enter(DistributedDoubleBarrier barrier) {
            return enter(barrier, -1);
        }

        /** As {@link #enter(DistributedDoubleBarrier)}, timed when {@code seconds >= 0}. */
        Future<Boolean> enter(DistributedDoubleBarrier barrier, long seconds) {
            recorder.enterCalled(barrier.getPath());
            return pool.submit(() -> {
                try {
                    boolean passed = true;
                    if (seconds < 0) {
                        barrier.enter();
                    } else {
                        passed = barrier.enter(seconds, TimeUnit.SECONDS);
                    }
                    if (passed) {
                        recorder.enterReturned(barrier.getPath());
                    } else {
                        recorder.note("enter " + barrier.getPath() + " timed out");
                    }
                    return passed;
                } catch (KeeperException | RuntimeException e) {
                    recorder.note("enter " + barrier.getPath() + " threw " + e);
                    throw e;
                }
            });
        }

        /** Starts {@code leave()}; records the call now and the return when it passed. */
        Future<Boolean> leave(DistributedDoubleBarrier barrier) {
            recorder.leaveCalled(barrier.getPath());
            return pool.submit(() -> {
                try {
                    barrier.leave();
                    recorder.leaveReturned(barrier.getPath());
                    return true;
                } catch (KeeperException | RuntimeException e) {
                    recorder.note("leave " + barrier.getPath() + " threw " + e);
                    throw e;
                }
            });
        }

        /** The id of the server this member's client is connected to, through its link's proxies. */
        int serverId() {
            Matcher m = Pattern.compile("remoteserver:[^ ]*:(\\d+)").matcher(client.getZooKeeper().toString());
            assertThat(m.find()).as("connected: %s", client.getZooKeeper()).isTrue();
            int port = Integer.parseInt(m.group(1));
            return link.serverIds().stream().filter(id -> link.proxy(id).port() == port).findFirst()
                    .orElseThrow();
        }

        @Override
        public void close() {
            client.close();
            link.close();
        }
    }

    private Member join(String name) throws InterruptedException {
        Member m = new Member(name);
        members.add(m);
        return m;
    }

    @AfterEach
    void checkHistory() {
        pool.shutdownNow();
        members.forEach(Member::close);
        Checkers.assertValid(history, Checkers.barrier(MEMBERS));
    }

    /** Member nodes (and {@code ready}) under a barrier path, as seen by {@code observer}; none if it is gone. */
    private static List<String> children(Member observer, String path) throws Exception {
        try {
            return observer.client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    private static void awaitMembers(Member observer, String path, int count) {
        await().atMost(WAIT).until(() -> children(observer, path).stream()
                .filter(c -> !c.equals(DistributedDoubleBarrier.READY_NODE)).count() == count);
    }

    /** Asserts the call is still blocked, giving it {@code millis} to (wrongly) finish. */
    private static void assertStillWaiting(Future<?> call, long millis) throws Exception {
        assertThatThrownBy(() -> call.get(millis, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
    }

    private static Throwable failure(Future<?> call) throws Exception {
        try {
            call.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected the call to fail");
    }

    @Test
    void membersServerKilledMidRound() throws Exception {
        String path = "/faults/kill/round-1";
        // p1's server is a follower: killing the leader means an election, which on a loaded machine can outlast
        // the 4 s session, and then p1's enter fails with SessionExpiredException, as the expiry tests cover.
        int leader = zk.ensemble().awaitLeader(WAIT);
        Member p1 = new Member("p1");
        for (int tries = 0; p1.serverId() == leader && tries < 20; tries++) {
            p1.close();
            p1 = new Member("p1");
        }
        assertThat(p1.serverId()).as("p1 on a follower").isNotEqualTo(leader);
        members.add(p1);
        Member p2 = join("p2");
        Member p3 = join("p3");
        DistributedDoubleBarrier b1 = p1.barrier(path);
        DistributedDoubleBarrier b2 = p2.barrier(path);
        DistributedDoubleBarrier b3 = p3.barrier(path);

        Future<Boolean> e1 = p1.enter(b1);
        Future<Boolean> e2 = p2.enter(b2);
        awaitMembers(p3, path, 2);
        assertStillWaiting(e1, 200);

        // p1 waits in enter when its server dies; its client moves to another server within its session.
        int server = p1.serverId();
        history.faultInjected("kill", "kill server " + server + " (p1's, a follower) while p1 and p2 wait in enter");
        zk.ensemble().kill(server);
        assertStillWaiting(e2, 200);
        Future<Boolean> e3 = p3.enter(b3);
        // The documented outcome with the session intact: the round completes for everyone, p1 included.
        assertThat(e1.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(e2.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(e3.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(children(p2, path)).contains(DistributedDoubleBarrier.READY_NODE).hasSize(MEMBERS + 1);

        // Leave while the server is still down: no "our path is missing" after p1's reconnect.
        Future<Boolean> l1 = p1.leave(b1);
        Future<Boolean> l2 = p2.leave(b2);
        Future<Boolean> l3 = p3.leave(b3);
        assertThat(l1.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(l2.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(l3.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(children(p3, path)).isEmpty();
        assertThat(p1.serverId()).isNotEqualTo(server);

        zk.ensemble().start(server);
        history.faultHealed("kill", "server " + server + " restarted");

        // A second round on a fresh path with every server back.
        String next = "/faults/kill/round-2";
        List<DistributedDoubleBarrier> barriers = List.of(p1.barrier(next), p2.barrier(next), p3.barrier(next));
        List<Future<Boolean>> enters = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            enters.add(members.get(i).enter(barriers.get(i)));
        }
        for (Future<Boolean> f : enters) {
            assertThat(f.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }
        List<Future<Boolean>> leaves = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            leaves.add(members.get(i).leave(barriers.get(i)));
        }
        for (Future<Boolean> f : leaves) {
            assertThat(f.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }
        assertThat(children(p1, next)).isEmpty();
    }

    @Test
    void memberSessionExpiredDuringEnterOthersTimeOut() throws Exception {
        String path = "/faults/expiry-timeout/round-1";
        Member p1 = join("p1");
        Member p2 = join("p2");
        DistributedDoubleBarrier b1 = p1.barrier(path);
        Future<Boolean> e1 = p1.enter(b1);
        Future<Boolean> e2 = p2.enter(p2.barrier(path), 6);
        awaitMembers(p2, path, 2);

        history.faultInjected("expire", "expire p1's session on the server while p1 waits in enter");
        zk.ensemble().expireSession(p1.client.getZooKeeper());
        history.faultHealed("expire", "session gone");

        // p1: a clear exception naming its (vanished) member node, once its client has a new session.
        Throwable thrown = failure(e1);
        assertThat(thrown).isInstanceOf(KeeperException.SessionExpiredException.class);
        assertThat(((KeeperException) thrown).getPath()).startsWith(path + "/");
        // p2: one member short, its timed enter runs out and removes its node.
        assertThat(e2.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isFalse();
        await().atMost(WAIT).until(() -> children(p2, path).isEmpty());
        // p1 may use the barrier again on its new session: its state is back to "not entered".
        assertThatThrownBy(b1::leave).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void memberSessionExpiredDuringEnterOthersProceedWhenItRejoins() throws Exception {
        String path = "/faults/expiry-rejoin/round-1";
        Member p1 = join("p1");
        Member p2 = join("p2");
        Member p3 = join("p3");
        Future<Boolean> e1 = p1.enter(p1.barrier(path));
        DistributedDoubleBarrier b2 = p2.barrier(path);
        Future<Boolean> e2 = p2.enter(b2);
        awaitMembers(p3, path, 2);

        history.faultInjected("expire", "expire p1's session on the server while p1 waits in enter");
        zk.ensemble().expireSession(p1.client.getZooKeeper());
        history.faultHealed("expire", "session gone");
        assertThat(failure(e1)).isInstanceOf(KeeperException.SessionExpiredException.class);
        awaitMembers(p3, path, 1);

        // p3 arrives: 2 live members of 3, so nobody may pass even though 3 enters have been called.
        DistributedDoubleBarrier b3 = p3.barrier(path);
        Future<Boolean> e3 = p3.enter(b3);
        awaitMembers(p3, path, 2);
        assertStillWaiting(e2, 500);
        assertStillWaiting(e3, 100);
        assertThat(children(p3, path)).doesNotContain(DistributedDoubleBarrier.READY_NODE);

        // p1 rejoins on its new session as a new member (recorded under its own name): now the round opens.
        Member rejoined = p1;
        History.Recorder again = history.recorder("p1-rejoined");
        DistributedDoubleBarrier b1 = rejoined.barrier(path);
        History.Event called = again.enterCalled(path);
        Future<Boolean> e1again = pool.submit(() -> {
            b1.enter();
            again.enterReturned(path);
            return true;
        });
        assertThat(e1again.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(e2.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(e3.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        // The checker counts p1's failed call as a caller; check directly that p2 and p3 waited for the rejoin.
        assertThat(history.events()).filteredOn(e -> e.kind() == History.Kind.ENTER_RETURNED)
                .hasSize(MEMBERS).allSatisfy(e -> assertThat(e.seq()).isGreaterThan(called.seq()));

        again.leaveCalled(path);
        Future<Boolean> l1 = pool.submit(() -> {
            b1.leave();
            again.leaveReturned(path);
            return true;
        });
        Future<Boolean> l2 = p2.leave(b2);
        Future<Boolean> l3 = p3.leave(b3);
        for (Future<Boolean> f : List.of(l1, l2, l3)) {
            assertThat(f.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }
        assertThat(children(p2, path)).isEmpty();
    }
}
