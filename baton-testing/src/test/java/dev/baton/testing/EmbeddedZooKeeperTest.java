package dev.baton.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("slow")
class EmbeddedZooKeeperTest {

    @Test
    void startsOnLoopbackAndServesAPlainClient() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start()) {
            assertThat(zk.isRunning()).isTrue();
            assertThat(zk.port()).isPositive();
            assertThat(zk.connectString()).isEqualTo("127.0.0.1:" + zk.port());
            assertThat(zk.dataDirectory()).isDirectory();
            assertThat(zk.dataDirectory().getFileName().toString()).startsWith("baton-zk-");

            try (TestClient client = new TestClient(zk.connectString())) {
                client.zk().create("/hello", "world".getBytes(UTF_8), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                assertThat(new String(client.zk().getData("/hello", false, null), UTF_8)).isEqualTo("world");
            }
        }
    }

    @Test
    void startingARunningServerFails() {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start()) {
            assertThatThrownBy(zk::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("running");
        }
    }

    @Test
    void portIsUnknownBeforeTheFirstStart() {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper()) {
            assertThat(zk.isRunning()).isFalse();
            assertThatThrownBy(zk::port).isInstanceOf(IllegalStateException.class);
            assertThat(zk.liveSessions()).isEmpty();
        }
    }

    @Test
    void stopDisconnectsClientsAndKeepsThePort() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
             TestClient client = new TestClient(zk.connectString())) {
            int port = zk.port();

            zk.stop();

            assertThat(zk.isRunning()).isFalse();
            assertThat(zk.port()).isEqualTo(port);
            assertThat(zk.dataDirectory()).isDirectory();
            client.awaitState(KeeperState.Disconnected);
            zk.stop(); // stopping a stopped server does nothing
        }
    }

    @Test
    void aClientLinkCutsOneClientAloneFollowsRestartsAndClosesWithTheServer() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start()) {
            ClientLink link = zk.newClientLink();
            try (TestClient linked = new TestClient(link.connectString());
                 TestClient direct = new TestClient(zk.connectString())) {
                assertThat(link.serverIds()).containsExactly(1);
                link.partition(TcpProxy.Mode.DROP);
                linked.awaitState(KeeperState.Disconnected);
                assertThat(direct.zk().getState().isConnected()).isTrue();
                link.heal();
                linked.awaitState(KeeperState.SyncConnected, 2);

                zk.restart(); // same port: the link still reaches the server
                linked.awaitState(KeeperState.SyncConnected, 3);
                assertThat(linked.zk().exists("/", false)).isNotNull();
            }
            zk.close();
            assertThat(link.connectionCount()).isZero();
            assertThatThrownBy(zk::newClientLink).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void restartKeepsPortZnodesAndSessions() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
             TestClient client = new TestClient(zk.connectString())) {
            int port = zk.port();
            long sessionId = client.zk().getSessionId();
            client.zk().create("/durable", "d".getBytes(UTF_8), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            client.zk().create("/mine", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);

            assertThat(zk.restart()).isSameAs(zk);

            assertThat(zk.isRunning()).isTrue();
            assertThat(zk.port()).isEqualTo(port);
            client.awaitState(KeeperState.Disconnected);
            client.awaitState(KeeperState.SyncConnected, 2);
            assertThat(client.states()).doesNotContain(KeeperState.Expired);
            assertThat(client.zk().getSessionId()).isEqualTo(sessionId);
            assertThat(zk.liveSessions()).contains(sessionId);
            assertThat(new String(client.zk().getData("/durable", false, null), UTF_8)).isEqualTo("d");
            Stat mine = client.zk().exists("/mine", false);
            assertThat(mine).isNotNull();
            assertThat(mine.getEphemeralOwner()).isEqualTo(sessionId);
        }
    }

    @Test
    void restartRightAfterStopRebindsTheSamePortRepeatedly() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start()) {
            int port = zk.port();
            for (int i = 0; i < 5; i++) {
                zk.stop();
                zk.start();
                assertThat(zk.port()).isEqualTo(port);
            }
            try (TestClient client = new TestClient(zk.connectString())) {
                assertThat(client.zk().exists("/", false)).isNotNull();
            }
        }
    }

    @Test
    void closeDeletesTheDataDirectoryAndIsIdempotent() throws Exception {
        EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
        Path dir = zk.dataDirectory();
        try (TestClient client = new TestClient(zk.connectString())) {
            client.zk().create("/x", new byte[1024], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } finally {
            zk.close();
        }

        assertThat(Files.exists(dir)).isFalse();
        assertThat(zk.isRunning()).isFalse();
        zk.close();
        assertThatThrownBy(zk::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(zk::stop).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closeOfANeverStartedServerDeletesItsDirectory() {
        EmbeddedZooKeeper zk = new EmbeddedZooKeeper();
        Path dir = zk.dataDirectory();
        assertThat(dir).isDirectory();
        zk.close();
        assertThat(Files.exists(dir)).isFalse();
    }

    @Test
    void ttlNodesCanBeCreatedAndExpire() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
             TestClient client = new TestClient(zk.connectString())) {
            Stat stat = new Stat();
            client.zk().create("/ttl", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_WITH_TTL, stat, 100);
            assertThat(stat.getCzxid()).isPositive();

            // The container manager runs every second by default, so an expired TTL node goes quickly.
            await().atMost(Duration.ofSeconds(10)).until(() -> client.zk().exists("/ttl", false) == null);
        }
    }

    @Test
    void containerNodesAreDeletedOnceEmptied() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
             TestClient client = new TestClient(zk.connectString())) {
            client.zk().create("/box", null, Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
            client.zk().create("/box/item", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            client.zk().delete("/box/item", -1);

            await().atMost(Duration.ofSeconds(10)).until(() -> client.zk().exists("/box", false) == null);
        }
    }

    @Test
    void requestCountCountsEachClientRequestButNotPingsOrHandshakes() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
             TestClient client = new TestClient(zk.connectString())) {
            zk.resetStatistics();
            assertThat(zk.requestCount()).isZero();

            client.zk().create("/counted", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            client.zk().getData("/counted", false, null);
            client.zk().exists("/counted", false);
            client.zk().exists("/missing", false);

            assertThat(zk.requestCount()).isEqualTo(4);
            assertThat(zk.requestCounts()).containsExactlyInAnyOrderEntriesOf(
                    Map.of("create", 1L, "getData", 1L, "exists", 2L));

            // Counts survive a restart; a reconnect itself (handshake) is not a request.
            zk.restart();
            client.awaitState(KeeperState.SyncConnected, 2);
            client.zk().getData("/counted", false, null);
            assertThat(zk.requestCount()).isEqualTo(5);

            zk.resetStatistics();
            assertThat(zk.requestCount()).isZero();
            assertThat(zk.requestCounts()).isEmpty();
        }
    }

    @Test
    void liveSessionsListsTheServersSessions() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start()) {
            long sessionId;
            try (TestClient client = new TestClient(zk.connectString())) {
                sessionId = client.zk().getSessionId();
                assertThat(zk.liveSessions()).contains(sessionId);
            }
            // ZooKeeper.close() waits for the server to process closeSession.
            assertThat(zk.liveSessions()).doesNotContain(sessionId);
        }
    }

    @Test
    void expireSessionByIdEndsItFromInsideTheServer() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
             TestClient victim = new TestClient(zk.connectString());
             TestClient observer = new TestClient(zk.connectString())) {
            victim.zk().create("/victim", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            long sessionId = victim.zk().getSessionId();

            zk.expireSession(sessionId);

            assertThat(zk.liveSessions()).doesNotContain(sessionId);
            assertThat(observer.zk().exists("/victim", false)).isNull();
            victim.awaitState(KeeperState.Expired);
            zk.expireSession(sessionId); // an unknown session is not an error
        }
    }

    @Test
    void sessionTimeoutsAreClampedToTheConfiguredRange() throws Exception {
        EmbeddedZooKeeper.Builder builder = EmbeddedZooKeeper.builder()
                .tickTime(Duration.ofMillis(200))
                .minSessionTimeout(Duration.ofMillis(1500))
                .maxSessionTimeout(Duration.ofSeconds(3));
        try (EmbeddedZooKeeper zk = builder.build().start();
             TestClient longClient = new TestClient(zk.connectString(), Duration.ofSeconds(60));
             TestClient shortClient = new TestClient(zk.connectString(), Duration.ofMillis(100))) {
            assertThat(longClient.zk().getSessionTimeout()).isEqualTo(3000);
            assertThat(shortClient.zk().getSessionTimeout()).isEqualTo(1500);
        }
    }

    @Test
    void defaultSessionTimeoutsRangeFromOneToTwentySeconds() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
             TestClient longClient = new TestClient(zk.connectString(), Duration.ofSeconds(60));
             TestClient shortClient = new TestClient(zk.connectString(), Duration.ofMillis(100))) {
            assertThat(longClient.zk().getSessionTimeout()).isEqualTo(20_000);
            assertThat(shortClient.zk().getSessionTimeout()).isEqualTo(1_000);
        }
    }

    @Test
    void acceptsManyConnectionsFromLoopbackByDefault() throws Exception {
        // ZooKeeper's own default allows 60 connections per host. Connect and close in parallel: a ZooKeeper
        // handle takes ~100 ms to close.
        ExecutorService pool = Executors.newFixedThreadPool(35);
        List<Future<TestClient>> clients = new ArrayList<>();
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start()) {
            try {
                for (int i = 0; i < 70; i++) {
                    clients.add(pool.submit(() -> new TestClient(zk.connectString())));
                }
                for (Future<TestClient> client : clients) {
                    client.get();
                }
                assertThat(zk.liveSessions()).hasSize(70);
            } finally {
                List<Future<?>> closing = new ArrayList<>();
                for (Future<TestClient> client : clients) {
                    closing.add(pool.submit(() -> {
                        client.get().close();
                        return null;
                    }));
                }
                for (Future<?> c : closing) {
                    try {
                        c.get();
                    } catch (ExecutionException e) {
                        // that client never connected; its handle was closed by TestClient
                    }
                }
                pool.shutdown();
            }
        }
    }

    @Test
    void maxClientConnectionsLimitsConnectionsPerHost() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().maxClientConnections(1).build().start();
             TestClient first = new TestClient(zk.connectString())) {
            AtomicBoolean connected = new AtomicBoolean();
            ZooKeeper second = new ZooKeeper(zk.connectString(), 10_000, event -> {
                if (event.getState() == KeeperState.SyncConnected) {
                    connected.set(true);
                }
            });
            try {
                // The server refuses the second connection from 127.0.0.1 for as long as the first is open.
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).untilFalse(connected);
                assertThat(zk.liveSessions()).containsExactly(first.zk().getSessionId());
            } finally {
                second.close();
            }
        }
    }

    @Test
    void builderRejectsOptionsSetTwiceAndBadValues() {
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().tickTime(Duration.ofMillis(100))
                .tickTime(Duration.ofMillis(200)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("tickTime");
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().port(1).port(2))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().tickTime(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().maxClientConnections(-1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().tickTime(null))
                .isInstanceOf(NullPointerException.class).hasMessage("tickTime");
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().minSessionTimeout(Duration.ofSeconds(5))
                .maxSessionTimeout(Duration.ofSeconds(2)).build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
