package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault tests of the kit against a real three-server quorum of separate JVMs, with client and peer proxies,
 * using the plain ZooKeeper client. Baton's SUSPENDED and LOST are mapped from the {@code Disconnected} and
 * {@code Expired} states checked here.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@Tag("slow")
class ZooKeeperEnsembleTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

    @Test
    void killedLeaderIsReplacedAndTheClientReconnectsAndWrites() throws Exception {
        ZooKeeperEnsemble ensemble = zk.ensemble();
        try (WatchedClient client = new WatchedClient(ensemble.connectString(), Duration.ofSeconds(20))) {
            client.zk().create("/before-crash", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

            int killed = ensemble.killLeader();

            assertThat(ensemble.isRunning(killed)).isFalse();
            int leader = ensemble.awaitNewLeader(killed, WAIT);
            assertThat(leader).isNotEqualTo(killed);
            // Every server drops its clients when the leader goes, so the client disconnects and comes back.
            client.awaitState(KeeperState.Disconnected, 1);
            client.awaitState(KeeperState.SyncConnected, 2);
            assertThat(client.states()).containsSubsequence(KeeperState.SyncConnected, KeeperState.Disconnected,
                    KeeperState.SyncConnected).doesNotContain(KeeperState.Expired);
            assertThat(client.zk().create("/after-crash", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT))
                    .isEqualTo("/after-crash");

            // Back with its data, on the same port.
            int port = ensemble.clientPort(killed);
            ensemble.start(killed);
            assertThat(ensemble.clientPort(killed)).isEqualTo(port);
            assertThat(ensemble.isServing(killed)).isTrue();
            try (WatchedClient direct = new WatchedClient("127.0.0.1:" + port, Duration.ofSeconds(20))) {
                direct.zk().sync("/", (rc, path, ctx) -> { }, null);
                await().atMost(WAIT).until(() -> direct.zk().exists("/after-crash", false) != null);
                assertThat(direct.zk().exists("/before-crash", false)).isNotNull();
            }
        }
    }

    @Test
    void isolatedLeaderIsReplacedByTheMajorityAndStopsServing() throws Exception {
        ZooKeeperEnsemble ensemble = zk.ensemble();
        int old = ensemble.awaitLeader(WAIT);
        int other = ensemble.serverIds().stream().filter(id -> id != old).findFirst().orElseThrow();
        try (WatchedClient onOld = new WatchedClient(ensemble.connectString(old), Duration.ofSeconds(20));
             WatchedClient onOther = new WatchedClient(ensemble.connectString(other), Duration.ofSeconds(20))) {

            ensemble.isolate(old);

            int leader = ensemble.awaitNewLeader(old, WAIT);
            assertThat(leader).isNotEqualTo(old);
            // The minority side stops serving: srvr says so, and its clients are disconnected.
            await().atMost(WAIT).until(() -> !ensemble.isServing(old));
            assertThat(ensemble.fourLetterWord(old, "srvr")).hasValueSatisfying(
                    answer -> assertThat(answer).contains(FourLetterWords.NOT_SERVING));
            assertThat(ensemble.isRunning(old)).isTrue();
            onOld.awaitState(KeeperState.Disconnected, 1);
            // The majority side serves writes.
            onOther.awaitState(KeeperState.SyncConnected, 2);
            await().atMost(WAIT).ignoreExceptions().until(() -> onOther.zk().create("/majority-write",
                    new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT) != null);

            ensemble.healAll();

            await().atMost(WAIT).until(() -> ensemble.isServing(old));
            assertThat(ensemble.mode(old)).hasValue("follower");
            // onOld's session lived on the majority side without pings: on a slow machine it may have expired by
            // now. Either way a client of the old server reads the majority's write.
            await().atMost(WAIT).until(() -> onOld.count(KeeperState.SyncConnected) >= 2
                    || onOld.count(KeeperState.Expired) >= 1);
            try (WatchedClient rejoined = new WatchedClient(ensemble.connectString(old), Duration.ofSeconds(20))) {
                await().atMost(WAIT).ignoreExceptions()
                        .until(() -> rejoined.zk().exists("/majority-write", false) != null);
            }
        }
    }

    @Test
    void clientBlackholedLongerThanItsSessionTimeoutSeesDisconnectedThenExpiredOnHeal() throws Exception {
        ZooKeeperEnsemble ensemble = zk.ensemble();
        ClientLink link = zk.newClientLink();
        try (WatchedClient victim = new WatchedClient(link.connectString(), Duration.ofSeconds(2));
             WatchedClient observer = new WatchedClient(ensemble.connectString(), Duration.ofSeconds(20))) {
            victim.zk().create("/victim", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);

            link.partition(TcpProxy.Mode.BLACKHOLE);

            victim.awaitState(KeeperState.Disconnected, 1); // by its own read timeout: SUSPENDED
            await().atMost(WAIT).until(() -> observer.zk().exists("/victim", false) == null); // server expired it
            assertThat(victim.states()).doesNotContain(KeeperState.Expired); // it cannot know yet

            link.heal();

            victim.awaitState(KeeperState.Expired, 1); // LOST
            assertThat(victim.states()).containsSubsequence(KeeperState.SyncConnected, KeeperState.Disconnected,
                    KeeperState.Expired);
            // Other clients never noticed.
            assertThat(observer.states()).containsExactly(KeeperState.SyncConnected);
        }
    }

    @Test
    void clientCutFromItsServerByDropNoticesAtOnceAndKeepsItsSessionAfterHeal() throws Exception {
        ZooKeeperEnsemble ensemble = zk.ensemble();
        int server = ensemble.serverIds().iterator().next();
        try (WatchedClient client = new WatchedClient(ensemble.connectString(server), Duration.ofSeconds(20))) {
            long session = client.zk().getSessionId();

            ensemble.partitionClient(server, TcpProxy.Mode.DROP);

            client.awaitState(KeeperState.Disconnected, 1);
            assertThat(ensemble.clientProxy(server).connectionCount()).isZero();

            ensemble.healClient(server);

            client.awaitState(KeeperState.SyncConnected, 2);
            assertThat(client.zk().getSessionId()).isEqualTo(session);
            assertThat(client.states()).doesNotContain(KeeperState.Expired);
        }
    }

    @Test
    void latencyAddsMeasurableDelayToEveryRequest() throws Exception {
        ClientLink link = zk.newClientLink();
        try (WatchedClient client = new WatchedClient(link.connectString(), Duration.ofSeconds(20))) {
            client.zk().exists("/", false);

            link.latency(Duration.ofMillis(300));

            long start = System.nanoTime();
            client.zk().exists("/", false);
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(elapsedMs).isGreaterThanOrEqualTo(580); // 300 ms each way

            link.latency(Duration.ZERO);
        }
    }

    @Test
    void lostQuorumStopsServiceAndRegainedQuorumRestoresItWithTheData() throws Exception {
        ZooKeeperEnsemble ensemble = zk.ensemble();
        try (WatchedClient client = new WatchedClient(ensemble.connectString(), Duration.ofSeconds(30))) {
            client.zk().create("/durable", "v".getBytes(StandardCharsets.UTF_8), Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);

            Set<Integer> killed = ensemble.loseQuorum();

            assertThat(killed).hasSizeGreaterThanOrEqualTo(ensemble.majority());
            int survivor = ensemble.serverIds().stream().filter(id -> !killed.contains(id)).findFirst().orElseThrow();
            await().atMost(WAIT).until(() -> !ensemble.isServing(survivor));
            client.awaitState(KeeperState.Disconnected, 1);

            int leader = ensemble.regainQuorum();

            assertThat(ensemble.serverIds()).contains(leader);
            client.awaitState(KeeperState.SyncConnected, 2);
            await().atMost(WAIT).ignoreExceptions().until(() -> new String(client.zk().getData("/durable", false,
                    null), StandardCharsets.UTF_8).equals("v"));
        }
    }
}
