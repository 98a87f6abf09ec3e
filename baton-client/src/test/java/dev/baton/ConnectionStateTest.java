package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.retry.RetryOneTime;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import dev.baton.testing.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
@Tag("slow")
class ConnectionStateTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static BatonClient client(Duration sessionTimeout, int simulatedExpirationPercent) {
        return Baton.builder()
                .connectString(zk.connectString())
                .sessionTimeout(sessionTimeout)
                .connectionTimeout(Duration.ofSeconds(2))
                .retryPolicy(new RetryOneTime(10))
                .simulatedSessionExpirationPercent(simulatedExpirationPercent)
                .build();
    }

    private static List<ConnectionState> record(BatonClient client) {
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        client.getConnectionStateListenable().addListener((c, s) -> states.add(s));
        return states;
    }

    @Test
    void serverStopSuspendsAndRestartReconnectsOnTheSameSession() throws Exception {
        try (BatonClient client = client(Duration.ofSeconds(20), 100)) {
            List<ConnectionState> states = record(client);
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            long session = client.getZooKeeper().getSessionId();
            await().until(() -> states.contains(ConnectionState.CONNECTED));
            assertThat(client.getConnectionState()).isEqualTo(ConnectionState.CONNECTED);

            zk.server().stop();
            await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.SUSPENDED));
            assertThat(client.isConnected()).isFalse();

            zk.server().restart();
            await().atMost(Duration.ofSeconds(30)).until(() -> states.contains(ConnectionState.RECONNECTED));
            assertThat(states).containsExactly(ConnectionState.CONNECTED, ConnectionState.SUSPENDED,
                    ConnectionState.RECONNECTED);
            assertThat(client.getZooKeeper().getSessionId()).isEqualTo(session);
            assertThat(client.getConnectionState()).isEqualTo(ConnectionState.RECONNECTED);
        } finally {
            zk.ensureRunning();
        }
    }

    @Test
    void serverSideExpiryPostsLostThenReconnectsOnANewSession() throws Exception {
        try (BatonClient client = client(Duration.ofSeconds(20), 100)) {
            List<ConnectionState> states = record(client);
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            client.create().withMode(CreateMode.EPHEMERAL).forPath("/expiry-eph");
            long oldSession = client.getZooKeeper().getSessionId();

            zk.server().expireSession(client.getZooKeeper());

            await().atMost(Duration.ofSeconds(30)).until(() -> states.contains(ConnectionState.RECONNECTED));
            assertThat(states).startsWith(ConnectionState.CONNECTED);
            assertThat(states.indexOf(ConnectionState.LOST)).isPositive()
                    .isLessThan(states.indexOf(ConnectionState.RECONNECTED));
            assertNoRepeats(states);
            assertThat(client.getZooKeeper().getSessionId()).isNotEqualTo(oldSession);
            // The new session works and the old one's ephemeral node is gone.
            assertThat(client.checkExists().forPath("/expiry-eph")).isNull();
            client.create().withMode(CreateMode.EPHEMERAL).forPath("/expiry-eph");
            assertThat(client.checkExists().forPath("/expiry-eph").getEphemeralOwner())
                    .isEqualTo(client.getZooKeeper().getSessionId());
        }
    }

    @Test
    void longSuspensionIsTreatedAsLostAndANewSessionFollows() throws Exception {
        try (BatonClient client = client(Duration.ofSeconds(2), 100)) {
            List<ConnectionState> states = record(client);
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            long oldSession = client.getZooKeeper().getSessionId();

            zk.server().stop();
            await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.LOST));
            assertThat(states).containsExactly(ConnectionState.CONNECTED, ConnectionState.SUSPENDED,
                    ConnectionState.LOST);

            zk.server().restart();
            await().atMost(Duration.ofSeconds(30)).until(() -> states.contains(ConnectionState.RECONNECTED));
            assertThat(states).containsExactly(ConnectionState.CONNECTED, ConnectionState.SUSPENDED,
                    ConnectionState.LOST, ConnectionState.RECONNECTED);
            assertThat(client.getZooKeeper().getSessionId()).isNotEqualTo(oldSession);
            assertThat(client.getChildren().forPath("/")).isNotNull();
        } finally {
            zk.ensureRunning();
        }
    }

    /**
     * A session the client gives up on its own is still alive on the server, and a request of it may still be on
     * its way there (here: sent by a handle of its own, straight to the server, as a stopped server's socket would
     * deliver it late). Once the next session is reported, no such request may land: the client has the old
     * session closed on the server first.
     */
    @Test
    void aSessionGivenUpAfterALongSuspensionIsClosedOnTheServerBeforeTheNextIsReported() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(zk.server().port());
                BatonClient client = Baton.builder().connectString(proxy.address())
                        .sessionTimeout(Duration.ofSeconds(20)).connectionTimeout(Duration.ofSeconds(2))
                        .retryPolicy(new RetryOneTime(10)).simulatedSessionExpirationPercent(10)
                        .ensembleTracker(false).build()) {
            List<ConnectionState> states = record(client);
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            client.create().forPath("/given-up", bytes("before"));
            long oldSession = client.getZooKeeper().getSessionId();
            byte[] password = client.getZooKeeper().getSessionPasswd();

            proxy.partition(TcpProxy.Mode.DROP);
            await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.LOST));
            assertThat(zk.server().liveSessions()).contains(oldSession);
            ZooKeeper straggler = new ZooKeeper(zk.connectString(), 20_000, event -> { }, oldSession, password);
            try {
                await().until(() -> straggler.getState().isConnected());
                AtomicReference<Object> lateWrite = new AtomicReference<>();
                client.getConnectionStateListenable().addListener((c, state) -> {
                    if (state == ConnectionState.RECONNECTED) {
                        try {
                            lateWrite.set(straggler.setData("/given-up", bytes("late"), -1));
                        } catch (KeeperException e) {
                            lateWrite.set(e.code());
                        } catch (InterruptedException e) {
                            lateWrite.set(e);
                        }
                    }
                });

                proxy.heal();
                await().atMost(Duration.ofSeconds(30)).until(() -> lateWrite.get() != null);
                assertThat(lateWrite.get()).isIn(KeeperException.Code.SESSIONEXPIRED,
                        KeeperException.Code.CONNECTIONLOSS, KeeperException.Code.SESSIONMOVED);
                assertThat(client.getData().forPath("/given-up")).isEqualTo(bytes("before"));
                assertThat(zk.server().liveSessions()).doesNotContain(oldSession)
                        .contains(client.getZooKeeper().getSessionId());
                assertThat(states).containsExactly(ConnectionState.CONNECTED, ConnectionState.SUSPENDED,
                        ConnectionState.LOST, ConnectionState.RECONNECTED);
            } finally {
                straggler.close();
            }
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void listenerAddedLaterSeesOnlyLaterChangesAndAThrowingListenerStopsNoOther() throws Exception {
        try (BatonClient client = client(Duration.ofSeconds(20), 100)) {
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            client.getUnhandledErrorListenable().addListener((message, e) -> errors.add(e));
            client.getConnectionStateListenable().addListener((c, s) -> {
                throw new IllegalStateException("listener failure " + s);
            });
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            await().until(() -> !errors.isEmpty());
            assertThat(errors.get(0)).hasMessage("listener failure CONNECTED");

            List<ConnectionState> late = record(client);
            zk.server().stop();
            zk.server().restart();
            await().atMost(Duration.ofSeconds(30)).until(() -> late.contains(ConnectionState.RECONNECTED));
            assertThat(late).containsExactly(ConnectionState.SUSPENDED, ConnectionState.RECONNECTED);
            assertThat(errors).hasSize(3);
        } finally {
            zk.ensureRunning();
        }
    }

    @Test
    void operationsWaitForTheConnectionAndSucceedAfterRestart() throws Exception {
        try (BatonClient client = Baton.builder().connectString(zk.connectString())
                .sessionTimeout(Duration.ofSeconds(20)).connectionTimeout(Duration.ofSeconds(1))
                .retryPolicy(new dev.baton.retry.RetryForever(100)).build()) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            zk.server().stop();
            var pending = client.create().forPathAsync("/created-while-down");
            zk.server().restart();
            assertThat(pending.get(30, TimeUnit.SECONDS)).isEqualTo("/created-while-down");
            assertThat(client.checkExists().forPath("/created-while-down")).isNotNull();
        } finally {
            zk.ensureRunning();
        }
    }

    private static void assertNoRepeats(List<ConnectionState> states) {
        for (int i = 1; i < states.size(); i++) {
            assertThat(states.get(i)).as("state %d of %s", i, states).isNotEqualTo(states.get(i - 1));
        }
    }
}
