package dev.baton.recipes.leader;

import static dev.baton.recipes.TestResources.childCount;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.SentRequests;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
@Tag("slow")
class LeaderLatchTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private final List<BatonClient> clients = new ArrayList<>();
    private final List<LeaderLatch> latches = new ArrayList<>();

    @BeforeEach
    void clients() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            clients.add(newClient());
        }
    }

    private BatonClient newClient() throws InterruptedException {
        return newClient(zk.connectString());
    }

    private static BatonClient newClient(String connectString) throws InterruptedException {
        BatonClient client = Baton.builder().connectString(connectString)
                .sessionTimeout(Duration.ofSeconds(10)).retryPolicy(new RetryOneTime(10)).build();
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    @AfterEach
    void closeAll() {
        latches.forEach(LeaderLatch::close);
        clients.forEach(BatonClient::close);
    }

    private LeaderLatch latch(int clientIndex, String path, String id) {
        LeaderLatch latch = new LeaderLatch(clients.get(clientIndex), path, id);
        latches.add(latch);
        return latch;
    }

    private static List<LeaderLatch> leaders(List<LeaderLatch> latches) {
        return latches.stream().filter(LeaderLatch::hasLeadership).collect(Collectors.toList());
    }

    @Test
    void theSecondInLineLeadsOnTheLeadersDeletionWithoutListing() throws Exception {
        LeaderLatch first = latch(0, "/latch-handover", "first");
        LeaderLatch second = latch(1, "/latch-handover", "second");
        first.start();
        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
        second.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> second.getParticipants().size() == 2);

        zk.server().resetStatistics();
        first.close();
        assertThat(second.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(zk.server().requestCounts()).as("from the leader's close to the new leader")
                .containsKey("delete").doesNotContainKey("getChildren").doesNotContainKey("getChildren2");
    }

    @Test
    void aLatchListsItsQueueWithoutWaitingForItsCreateToBeAnswered() throws Exception {
        zk.server().resetStatistics();
        try (TcpProxy proxy = TcpProxy.start("latch", zk.port());
                BatonClient far = newClient(proxy.address());
                LeaderLatch latch = new LeaderLatch(far, "/latch-pipelined", "far")) {
            proxy.latency(Duration.ofSeconds(2)); // each way: the create's answer is 4 s from the start
            latch.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> zk.server().requestCounts().keySet().stream()
                    .anyMatch(op -> op.startsWith("getChildren")));
            assertThat(latch.getOurPath()).as("the create's answer, when the listing reached the server").isNull();
            proxy.latency(Duration.ZERO);
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aLatchClosedWhileItsCreateIsInFlightLeavesNoNodeOnceCloseReturns() throws Exception {
        clients.get(0).create().forPath("/latch-closed-early");
        zk.server().resetStatistics();
        try (TcpProxy proxy = TcpProxy.start("latch", zk.port());
                BatonClient far = newClient(proxy.address())) {
            LeaderLatch latch = new LeaderLatch(far, "/latch-closed-early", "far");
            proxy.latency(Duration.ofSeconds(1)); // each way: the create's answer is 2 s from the start
            latch.start();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> zk.server().requestCounts().keySet().stream().anyMatch(op -> op.startsWith("create")));
            assertThat(latch.getOurPath()).as("the create's answer, at close").isNull();
            latch.close();
            assertThat(clients.get(0).getChildren().forPath("/latch-closed-early")).isEmpty();
            proxy.latency(Duration.ZERO);
        }
    }

    @Test
    void inALongerQueueEachNewLeaderLeadsWithoutListing() throws Exception {
        clients.add(newClient()); // one client per latch, to tell who sends what
        List<SentRequests> sent = clients.stream().map(SentRequests::new).toList();
        List<LeaderLatch> four = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            LeaderLatch latch = latch(i, "/latch-failovers", "m" + i);
            latch.start();
            await().until(() -> latch.getOurPath() != null); // join in a known order
            four.add(latch);
        }
        assertThat(four.get(0).await(10, TimeUnit.SECONDS)).isTrue();
        for (int turn = 1; turn < 4; turn++) {
            LeaderLatch leader = four.get(turn - 1);
            LeaderLatch next = four.get(turn);
            SentRequests byNext = sent.get(turn);
            // The next in line has read (and so watches) the leader's node.
            await().atMost(Duration.ofSeconds(10)).until(() -> byNext.hasRead(leader.getOurPath()));
            long listingsBefore = byNext.listings();
            leader.close();
            assertThat(next.await(10, TimeUnit.SECONDS)).isTrue();
            String what = "listings by the new leader " + next.getId();
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(byNext.listings()).as(what).isEqualTo(listingsBefore));
            assertThat(leaders(four)).containsExactly(next);
        }
        // The second and third to join listed once, when they joined: the third, watching the first leader from
        // third in line, moved up by reading the second's node. The fourth listed once more, when the node two
        // ahead of it went.
        assertThat(sent.get(1).listings()).isEqualTo(1);
        assertThat(sent.get(2).listings()).isEqualTo(1);
        assertThat(sent.get(3).listings()).isEqualTo(2);
    }

    @Test
    void aWaiterThatLeavesFromTheMiddleNeitherHurriesNorStrandsThoseBehindIt() throws Exception {
        List<LeaderLatch> four = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            LeaderLatch latch = latch(i % 3, "/latch-middle", "m" + i);
            latch.start();
            await().until(() -> latch.getOurPath() != null);
            four.add(latch);
        }
        assertThat(four.get(0).await(10, TimeUnit.SECONDS)).isTrue();
        four.get(1).close(); // the second in line gives up: the leader still leads, nobody else may
        await().atMost(Duration.ofSeconds(10)).until(() -> four.get(3).getParticipants().size() == 3);
        assertThat(four.get(2).await(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(leaders(four)).containsExactly(four.get(0));
        four.get(0).close();
        assertThat(four.get(2).await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(leaders(four)).containsExactly(four.get(2));
        four.get(2).close();
        assertThat(four.get(3).await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aChurnOfLatchesLeavesNoWatchOnTheServer() throws Exception {
        for (int round = 0; round < 5; round++) {
            List<LeaderLatch> churn = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                LeaderLatch latch = latch(i % 3, "/latch-churn", "r" + round + "-" + i);
                churn.add(latch);
                latch.start();
            }
            // Close in an order that removes predecessors while their successors are setting watches.
            for (int i = churn.size() - 1; i >= 0; i -= 2) {
                churn.get(i).close();
            }
            for (int i = churn.size() - 2; i >= 0; i -= 2) {
                churn.get(i).close();
            }
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(zk.server().watchedPaths())
                .as("paths the server watches after the churn").noneMatch(p -> p.startsWith("/latch-churn")));
    }

    @Test
    void exactlyOneOfTenLeadsAndLeadershipPassesInQueueOrderOnClose() throws Exception {
        List<LeaderLatch> ten = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            LeaderLatch latch = latch(i % 3, "/leader-lock2", "client" + i);
            latch.start();
            await().until(() -> latch.getOurPath() != null); // join in a known order
            ten.add(latch);
        }
        for (int turn = 0; turn < 10; turn++) {
            LeaderLatch expected = ten.get(turn);
            await().atMost(Duration.ofSeconds(20)).until(() -> leaders(ten).size() == 1);
            assertThat(leaders(ten)).containsExactly(expected);
            assertThat(expected.getLeader()).isEqualTo(new Participant(expected.getId(), true));
            List<String> ids = ten.subList(turn, 10).stream().map(LeaderLatch::getId).toList();
            assertThat(ten.get(9).getParticipants()).extracting(Participant::id).containsExactlyElementsOf(ids);
            assertThat(ten.get(9).getParticipants()).extracting(Participant::isLeader)
                    .containsExactlyElementsOf(ids.stream().map(id -> id.equals(expected.getId())).toList());
            expected.close();
            assertThat(expected.hasLeadership()).isFalse();
        }
        assertThat(clients.get(0).checkExists().forPath("/leader-lock2") == null // the container swept already
                || clients.get(0).getChildren().forPath("/leader-lock2").isEmpty()).isTrue();
        assertThat(new LeaderLatch(clients.get(0), "/leader-lock2").getLeader()).isEqualTo(new Participant("", false));
    }

    @Test
    void getLeaderWithNoParticipantsAndOnAMissingPath() throws Exception {
        LeaderLatch latch = latch(0, "/no-such-latch", "x");
        assertThat(latch.getLeader()).isEqualTo(new Participant("", false));
        assertThat(latch.getParticipants()).isEmpty();
    }

    @Test
    void awaitWithTimeoutIsFalseWhenNotLeader() throws Exception {
        LeaderLatch first = latch(0, "/await", "first");
        first.start();
        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
        first.await();
        LeaderLatch second = latch(1, "/await", "second");
        second.start();
        assertThat(second.await(300, TimeUnit.MILLISECONDS)).isFalse();
        first.close();
        assertThat(second.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void closeModesDecideWhetherNotLeaderIsCalled() throws Exception {
        for (LeaderLatch.CloseMode mode : LeaderLatch.CloseMode.values()) {
            List<String> calls = new CopyOnWriteArrayList<>();
            LeaderLatch latch = new LeaderLatch(clients.get(0), "/close-" + mode, "a", mode);
            latches.add(latch);
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    calls.add("isLeader");
                }

                @Override
                public void notLeader() {
                    calls.add("notLeader");
                }
            });
            latch.start();
            await().until(() -> calls.contains("isLeader"));
            latch.close();
            if (mode == LeaderLatch.CloseMode.NOTIFY_LEADER) {
                await().until(() -> calls.size() == 2);
                assertThat(calls).containsExactly("isLeader", "notLeader");
            } else {
                assertThat(calls).containsExactly("isLeader");
            }
        }
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossLeadersEvenWhenThePathIsRecreated() throws Exception {
        long last = 0;
        for (int round = 0; round < 4; round++) {
            LeaderLatch latch = latch(round % 3, "/fenced", "r" + round);
            latch.start();
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
            OptionalLong token = latch.fencingToken();
            assertThat(token).isPresent();
            assertThat(token.getAsLong()).isGreaterThan(last);
            assertThat(latch.safeFor()).isPositive();
            last = token.getAsLong();
            latch.close();
            assertThat(latch.fencingToken()).isEmpty();
            assertThat(latch.safeFor()).isZero();
            if (round == 1) {
                clients.get(0).delete().deletingChildrenIfNeeded().quietly().forPath("/fenced");
            }
        }
    }

    @Test
    void leaderWhoseSessionExpiresLosesLeadershipAndRequeues() throws Exception {
        LeaderLatch first = latch(0, "/expiry", "first");
        first.start();
        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
        LeaderLatch second = latch(1, "/expiry", "second");
        second.start();
        await().until(() -> second.getOurPath() != null);

        zk.server().expireSession(clients.get(0).getZooKeeper());

        assertThat(second.await(20, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(20)).until(() -> !first.hasLeadership());
        // The old leader queues again behind the new one, on its new session.
        await().atMost(Duration.ofSeconds(30)).until(() -> second.getParticipants().size() == 2);
        assertThat(second.getParticipants()).extracting(Participant::id).containsExactly("second", "first");
        assertThat(first.hasLeadership()).isFalse();
    }

    @Test
    void deletingTheLatchPathMakesEveryoneQueueAgain() throws Exception {
        LeaderLatch first = latch(0, "/deleted/latch", "first");
        first.start();
        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
        String before = first.getOurPath();
        try {
            clients.get(2).delete().deletingChildrenIfNeeded().forPath("/deleted/latch");
        } catch (KeeperException.NotEmptyException e) {
            // The latch saw its node go and queued again under the path before the path itself could go.
        }
        await().atMost(Duration.ofSeconds(20))
                .until(() -> first.getOurPath() != null && !first.getOurPath().equals(before));
        await().atMost(Duration.ofSeconds(20)).until(() -> first.getParticipants().size() == 1);
        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void badArgumentsAndLifecycleMisuseFailClearly() throws Exception {
        BatonClient client = clients.get(0);
        assertThatThrownBy(() -> new LeaderLatch(null, "/x")).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new LeaderLatch(client, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("latchPath");
        assertThatThrownBy(() -> new LeaderLatch(client, "/x", null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("id");
        assertThatThrownBy(() -> new LeaderLatch(client, "no-slash")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no-slash");
        LeaderLatch latch = latch(0, "/misuse", "a");
        assertThatThrownBy(() -> latch.addListener(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(latch::await).isInstanceOf(IllegalStateException.class);
        latch.start();
        assertThatThrownBy(latch::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> latch.await(-1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        latch.close();
        assertThatThrownBy(latch::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(latch::await).isInstanceOf(IllegalStateException.class);
        assertThat(latch.hasLeadership()).isFalse();
    }

    @Test
    void aThousandLatchesOnOneClientAddNoThreadAndLeaveNothingBehind() throws Exception {
        BatonClient client = clients.get(0);
        LeaderLatch warm = latch(0, "/many", "warm");
        warm.start();
        assertThat(warm.await(10, TimeUnit.SECONDS)).isTrue();
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        List<LeaderLatch> many = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            LeaderLatch latch = new LeaderLatch(client, "/many", "l" + i);
            latch.start();
            many.add(latch);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> client.getChildren().forPath("/many").size() == 1001);
        Set<String> added = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                .filter(t -> !t.getName().startsWith("NIOWorkerThread") && !t.getName().startsWith("awaitility"))
                .filter(t -> !t.getName().startsWith("baton-events")) // the client's own, started on demand
                .map(Thread::getName).collect(Collectors.toSet());
        assertThat(added).isEmpty();
        many.forEach(LeaderLatch::close);
        warm.close();
        assertThat(childCount(client, "/many")).isZero();
    }
}
