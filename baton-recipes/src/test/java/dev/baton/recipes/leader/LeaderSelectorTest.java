package dev.baton.recipes.leader;

import static dev.baton.recipes.TestResources.childCount;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
@Tag("slow")
class LeaderSelectorTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private final List<BatonClient> clients = new ArrayList<>();
    private final List<LeaderSelector> selectors = new ArrayList<>();

    private BatonClient client() throws InterruptedException {
        return client(zk.connectString());
    }

    private BatonClient client(String connectString) throws InterruptedException {
        BatonClient client = Baton.builder().connectString(connectString).ensembleTracker(false)
                .sessionTimeout(Duration.ofSeconds(10)).retryPolicy(new RetryOneTime(10)).build();
        clients.add(client);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    private LeaderSelector selector(BatonClient client, String path, String id, LeaderSelectorListener listener) {
        LeaderSelector selector = new LeaderSelector(client, path, listener);
        selector.setId(id);
        selectors.add(selector);
        return selector;
    }

    /** The children of a path, none if the path is gone (an empty election's container may be swept). */
    private static List<String> children(BatonClient client, String path) throws Exception {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    @AfterEach
    void closeAll() {
        selectors.forEach(LeaderSelector::close);
        clients.forEach(BatonClient::close);
    }

    /** A listener that records each turn and, once all three take part, returns at once. */
    private static LeaderSelectorListener turnTaker(String id, List<String> turns, List<LeaderSelector> all) {
        return new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient client) throws Exception {
                // The first leader waits for the others to queue, so every turn after it is a fair rotation.
                await().atMost(Duration.ofSeconds(20)).until(() -> all.size() == 3
                        && all.get(0).getParticipants().size() == 3);
                turns.add(id);
            }
        };
    }

    @Test
    void threeAutoRequeueingSelectorsRotateFairly() throws Exception {
        List<String> turns = new CopyOnWriteArrayList<>();
        List<LeaderSelector> all = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 3; i++) {
            LeaderSelector selector = selector(client(), "/rotation", "#" + i, turnTaker("#" + i, turns, all));
            selector.autoRequeue();
            all.add(selector);
        }
        all.forEach(LeaderSelector::start);
        await().atMost(Duration.ofSeconds(60)).until(() -> turns.size() >= 30);
        List<String> first30 = turns.subList(0, 30);
        for (int i = 0; i + 3 <= 30; i++) {
            assertThat(new HashSet<>(first30.subList(i, i + 3))).as("turns %d..%d of %s", i, i + 2, first30)
                    .containsExactlyInAnyOrder("#0", "#1", "#2");
        }
    }

    @Test
    void aWaitingSelectorWhoseSessionExpiredIsNoLongerQueued() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<String> leaders = new CopyOnWriteArrayList<>();
        LeaderSelector first = selector(client(), "/expired-waiter", "first", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient client) throws Exception {
                leaders.add("first");
                release.await();
            }
        });
        BatonClient waiterClient = client();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        waiterClient.getConnectionStateListenable().addListener((c, s) -> states.add(s));
        LeaderSelector waiter = selector(waiterClient, "/expired-waiter", "waiter", new LeaderSelectorListener() {
            @Override
            public void takeLeadership(BatonClient client) {
                leaders.add("waiter");
            }

            @Override
            public void stateChanged(BatonClient client, ConnectionState newState) {
            }
        });
        first.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> leaders.equals(List.of("first")));
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> first.getParticipants().size() == 2);

        zk.server().expireSession(waiterClient.getZooKeeper());
        await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.RECONNECTED));
        release.countDown();
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(10))
                .until(() -> first.getParticipants().isEmpty() && leaders.equals(List.of("first")));
        assertThat(waiter.hasLeadership()).isFalse();

        assertThat(waiter.requeue()).as("requeue after the session loss").isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> leaders.equals(List.of("first", "waiter")));
    }

    @Test
    void leadershipLastsWhileTakeLeadershipRunsAndTokensIncrease() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Long> tokens = new CopyOnWriteArrayList<>();
        LeaderSelector[] holder = new LeaderSelector[1];
        LeaderSelector selector = selector(client(), "/lasting", "a", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient client) throws Exception {
                tokens.add(holder[0].fencingToken().getAsLong());
                release.await();
            }
        });
        holder[0] = selector;
        selector.start();
        await().until(selector::hasLeadership);
        assertThat(selector.getLeader()).isEqualTo(new Participant("a", true));
        assertThat(selector.safeFor()).isPositive();
        LeaderSelector second = selector(client(), "/lasting", "b", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient client) {
                tokens.add(0L);
            }
        });
        second.start();
        await().until(() -> selector.getParticipants().size() == 2);
        assertThat(selector.getParticipants()).extracting(Participant::id).containsExactly("a", "b");
        assertThat(second.hasLeadership()).isFalse();
        release.countDown();
        await().until(() -> tokens.size() == 2);
        await().until(() -> !selector.hasLeadership());
        assertThat(selector.fencingToken()).isEmpty();
        assertThat(selector.safeFor()).isZero();
    }

    @Test
    void requeueQueuesOnlyWhenNotQueued() throws Exception {
        CountDownLatch done = new CountDownLatch(2);
        LeaderSelector selector = selector(client(), "/requeue", "r", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient client) {
                done.countDown();
            }
        });
        assertThatThrownBy(selector::requeue).isInstanceOf(IllegalStateException.class);
        selector.start();
        assertThat(selector.requeue()).isFalse(); // start() queued it already
        await().until(() -> done.getCount() == 1 && !selector.hasLeadership());
        await().until(() -> selector.getParticipants().isEmpty()); // no auto-requeue: out of the queue
        assertThat(selector.requeue()).isTrue();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void interruptLeadershipEndsTheTurnAndAutoRequeueQueuesAgain() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        LeaderSelector selector = selector(client(), "/interrupt", "i", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient client) throws Exception {
                events.add("lead");
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    events.add("interrupted");
                    throw e;
                }
            }
        });
        selector.autoRequeue();
        selector.start();
        await().until(() -> events.contains("lead"));
        selector.interruptLeadership();
        await().until(() -> events.size() >= 3);
        assertThat(events.subList(0, 3)).containsExactly("lead", "interrupted", "lead");
    }

    @Test
    void adapterCancelsLeadershipWhenTheConnectionIsSuspended() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        LeaderSelector selector = selector(client(), "/cancel", "c", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient client) throws Exception {
                events.add("lead");
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    events.add("interrupted");
                }
            }

            @Override
            public void stateChanged(BatonClient client, ConnectionState newState) {
                events.add(newState.name());
                super.stateChanged(client, newState);
            }
        });
        selector.start();
        await().until(() -> events.contains("lead"));
        try {
            zk.server().stop();
            await().atMost(Duration.ofSeconds(20)).until(() -> events.contains("interrupted"));
            assertThat(events).containsSubsequence("lead", "SUSPENDED", "interrupted");
        } finally {
            zk.server().restart();
        }
    }

    @Test
    void closingWhileLeadingInterruptsAndHandsOver() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        LeaderSelector first = selector(client(), "/close", "first", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient client) {
                events.add("first leads");
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    events.add("first interrupted");
                }
            }
        });
        LeaderSelector second = selector(client(), "/close", "second", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient client) throws Exception {
                events.add("second leads");
                new CountDownLatch(1).await();
            }
        });
        first.start();
        await().until(first::hasLeadership);
        second.start();
        await().until(() -> second.getParticipants().size() == 2);
        first.close();
        await().until(() -> events.contains("second leads"));
        assertThat(events).containsExactly("first leads", "first interrupted", "second leads");
        assertThat(second.getParticipants()).extracting(Participant::id).containsExactly("second");
    }

    @Test
    void closeReturnsOnceTheSelectorsNodeIsGone() throws Exception {
        BatonClient near = client();
        try (TcpProxy proxy = TcpProxy.start("selector", zk.port())) {
            BatonClient far = client(proxy.address());
            LeaderSelector leader = selector(far, "/close-sync", "leader", new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(BatonClient client) throws Exception {
                    new CountDownLatch(1).await(); // until interrupted by close()
                }
            });
            LeaderSelector waiter = selector(far, "/close-sync", "waiter", new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(BatonClient client) {
                }
            });
            leader.start();
            await().until(leader::hasLeadership);
            waiter.start();
            await().until(() -> near.getChildren().forPath("/close-sync").size() == 2);
            proxy.latency(Duration.ofMillis(500)); // each way: a delete takes a second to be answered
            waiter.close(); // gives up a waiting turn
            assertThat(children(near, "/close-sync")).hasSize(1);
            assertThat(Participants.all(near, "/close-sync", "lock-")).extracting(Participant::id)
                    .containsExactly("leader");
            leader.close(); // interrupts takeLeadership, which releases the lock when it returns
            assertThat(children(near, "/close-sync")).isEmpty();
            proxy.latency(Duration.ZERO);
            far.close();
        }
    }

    @Test
    void closeInsideTakeLeadershipDoesNotWaitForItself() throws Exception {
        BatonClient client = client();
        List<String> events = new CopyOnWriteArrayList<>();
        LeaderSelector[] self = new LeaderSelector[1];
        self[0] = selector(client, "/close-inside", "inside", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient c) {
                self[0].close();
                events.add("closed");
            }
        });
        self[0].start();
        // Waiting for itself, close() would return only after the session timeout (10 s).
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("closed"));
        await().until(() -> children(client, "/close-inside").isEmpty());
    }

    @Test
    void badArgumentsAndMisuse() throws Exception {
        BatonClient client = client();
        LeaderSelectorListener noop = new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient c) {
            }
        };
        assertThatThrownBy(() -> new LeaderSelector(null, "/x", noop)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new LeaderSelector(client, null, noop)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("leaderPath");
        assertThatThrownBy(() -> new LeaderSelector(client, "/x", null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("listener");
        assertThatThrownBy(() -> new LeaderSelector(client, "/x/", noop)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/x/");
        LeaderSelector selector = selector(client, "/misuse", "m", noop);
        assertThatThrownBy(() -> selector.setId(null)).isInstanceOf(NullPointerException.class);
        selector.start();
        assertThatThrownBy(selector::start).isInstanceOf(IllegalStateException.class);
        selector.close();
        assertThatThrownBy(selector::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(selector::requeue).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aThousandWaitingSelectorsHoldNoThreadAndLeaveNothingBehind() throws Exception {
        BatonClient client = client();
        CountDownLatch hold = new CountDownLatch(1);
        LeaderSelector leader = selector(client, "/many-selectors", "leader", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient c) throws Exception {
                hold.await();
            }
        });
        leader.start();
        await().until(leader::hasLeadership);
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        List<LeaderSelector> many = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            LeaderSelector s = new LeaderSelector(client, "/many-selectors", new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(BatonClient c) {
                }
            });
            s.start();
            many.add(s);
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() -> client.getChildren().forPath("/many-selectors").size() == 1001);
        Set<String> added = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                .map(Thread::getName)
                .filter(n -> !n.startsWith("NIOWorkerThread") && !n.startsWith("awaitility")
                        && !n.startsWith("baton-events"))
                .collect(Collectors.toSet());
        assertThat(added).isEmpty();
        many.forEach(LeaderSelector::close);
        hold.countDown();
        leader.close();
        await().atMost(Duration.ofSeconds(30)).until(() -> childCount(client, "/many-selectors") == 0);
    }
}
