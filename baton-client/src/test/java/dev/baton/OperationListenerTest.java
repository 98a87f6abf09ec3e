package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.retry.RetryNTimes;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
class OperationListenerTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /** Keeps everything the hook reports. */
    static final class Recorder implements OperationListener {
        final List<OperationEvent> operations = new CopyOnWriteArrayList<>();
        final List<ConnectionState> states = new CopyOnWriteArrayList<>();

        @Override
        public void operationCompleted(OperationEvent event) {
            operations.add(event);
        }

        @Override
        public void connectionStateChanged(ConnectionState newState) {
            states.add(newState);
        }
    }

    @Test
    void reportsEveryOperationWithTypePathResultAndDurationInAllThreeForms() throws Exception {
        try (BatonClient client = TestClients.started(Baton.builder().connectString(zk.connectString()))) {
            Recorder recorder = new Recorder();
            client.getOperationListenable().addListener(recorder);
            String path = TestClients.unique("hook");

            client.create().creatingParentsIfNeeded().forPath(path + "/a", new byte[] {1});
            client.getData().forPathAsync(path + "/a").get(10, TimeUnit.SECONDS);
            assertThat(client.checkExists().forPath(path + "/missing")).isNull();
            assertThatThrownBy(() -> client.delete().forPath(path + "/missing"))
                    .isInstanceOf(KeeperException.NoNodeException.class);
            client.getChildren().inBackground((c, e) -> { }).forPath(path);
            // a background operation is reported on the event thread: let it land before the next one is sent
            await().until(() -> recorder.operations.size() == 5);
            client.transaction().forOperations(client.transactionOp().setData().forPath(path + "/a", new byte[] {2}));
            assertThatThrownBy(() -> client.getData().forPath("bad")).isInstanceOf(IllegalArgumentException.class);

            await().until(() -> recorder.operations.size() == 6);
            List<OperationEvent> ops = recorder.operations;
            assertThat(ops).extracting(OperationEvent::type).containsExactly(BatonEventType.CREATE,
                    BatonEventType.GET_DATA, BatonEventType.EXISTS, BatonEventType.DELETE, BatonEventType.CHILDREN,
                    BatonEventType.TRANSACTION);
            assertThat(ops).extracting(OperationEvent::path).containsExactly(path + "/a", path + "/a",
                    path + "/missing", path + "/missing", path, null);
            assertThat(ops).extracting(OperationEvent::resultCode).containsExactly(KeeperException.Code.OK,
                    KeeperException.Code.OK, KeeperException.Code.NONODE, KeeperException.Code.NONODE,
                    KeeperException.Code.OK, KeeperException.Code.OK);
            assertThat(ops).extracting(OperationEvent::isOk).containsExactly(true, true, true, false, true, true);
            assertThat(ops).allSatisfy(op -> {
                assertThat(op.duration()).isPositive();
                assertThat(op.retries()).isZero();
            });

            client.getOperationListenable().removeListener(recorder);
            client.getData().forPath(path + "/a");
            assertThat(recorder.operations).hasSize(6);
        }
    }

    @Test
    void namespacedPathsAreTheUsersOwn() throws Exception {
        try (BatonClient client = TestClients.started(Baton.builder().connectString(zk.connectString())
                .namespace("hookspace"))) {
            Recorder recorder = new Recorder();
            client.getOperationListenable().addListener(recorder);
            client.create().orSetData().forPath("/n", new byte[0]);
            client.usingNamespace("other").checkExists().forPath("/m");

            assertThat(recorder.operations).extracting(OperationEvent::path).containsExactly("/n", "/m");
        }
    }

    @Test
    void countsRetriesAndSeesTheConnectionGoAndComeBack() throws Exception {
        Recorder recorder = new Recorder();
        try (BatonClient client = Baton.builder().connectString(zk.connectString())
                .retryPolicy(new RetryNTimes(2, 50))
                .sessionTimeout(Duration.ofSeconds(30))
                .connectionTimeout(Duration.ofMillis(300))
                .build()) {
            client.getOperationListenable().addListener(recorder);
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            await().until(() -> recorder.states.contains(ConnectionState.CONNECTED));

            zk.server().stop();
            await().atMost(Duration.ofSeconds(20)).until(() -> recorder.states.contains(ConnectionState.SUSPENDED));
            assertThatThrownBy(() -> client.getData().forPath("/anything"))
                    .isInstanceOf(KeeperException.ConnectionLossException.class);

            OperationEvent failed = recorder.operations.get(recorder.operations.size() - 1);
            assertThat(failed.type()).isEqualTo(BatonEventType.GET_DATA);
            assertThat(failed.resultCode()).isEqualTo(KeeperException.Code.CONNECTIONLOSS);
            assertThat(failed.retries()).isEqualTo(2);
            assertThat(failed.duration()).isGreaterThanOrEqualTo(Duration.ofMillis(3 * 300));

            zk.server().restart();
            await().atMost(Duration.ofSeconds(30)).until(() -> recorder.states.contains(ConnectionState.RECONNECTED));
            assertThat(recorder.states).containsSubsequence(ConnectionState.CONNECTED, ConnectionState.SUSPENDED,
                    ConnectionState.RECONNECTED);
        } finally {
            zk.ensureRunning();
        }
    }

    @Test
    void aListenerThatThrowsIsReportedAndTheOperationStillSucceeds() throws Exception {
        try (BatonClient client = TestClients.started(Baton.builder().connectString(zk.connectString()))) {
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            client.getUnhandledErrorListenable().addListener((message, e) -> errors.add(e));
            client.getOperationListenable().addListener(event -> {
                throw new IllegalStateException("boom");
            });
            String path = TestClients.unique("throwing");

            assertThat(client.create().forPath(path)).isEqualTo(path);
            await().until(() -> !errors.isEmpty());
            assertThat(errors.get(0)).hasMessage("boom");
        }
    }

    @Test
    void eventsRefuseNonsense() {
        assertThatThrownBy(() -> new OperationEvent(null, "/a", Duration.ZERO, KeeperException.Code.OK, 0))
                .isInstanceOf(NullPointerException.class).hasMessage("type");
        assertThatThrownBy(() -> new OperationEvent(BatonEventType.CREATE, "/a", Duration.ZERO,
                KeeperException.Code.OK, -1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    }
}
