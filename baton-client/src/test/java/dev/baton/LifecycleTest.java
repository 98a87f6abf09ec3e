package dev.baton;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.retry.RetryOneTime;
import dev.baton.state.ConnectionStateErrorPolicy;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.client.ZKClientConfig;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bad use of the client's lifecycle and builder fails fast with the documented exception. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LifecycleTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static final byte[] DATA = "d".getBytes(UTF_8);

    private static BatonClient unstarted() {
        return Baton.newClient(zk.connectString(), new RetryOneTime(10));
    }

    /** Every operation in every face, plus the handle accessors, each of which needs a started client. */
    private static Map<String, ThrowingCallable> operations(BatonClient c) {
        BackgroundCallback cb = (cl, e) -> { };
        Map<String, ThrowingCallable> ops = new LinkedHashMap<>();
        ops.put("create", () -> c.create().forPath("/x", DATA));
        ops.put("create async", () -> c.create().forPathAsync("/x"));
        ops.put("create background", () -> c.create().inBackground(cb).forPath("/x", DATA));
        ops.put("create background no callback", () -> c.create().inBackground().forPath("/x"));
        ops.put("checkExists", () -> c.checkExists().forPath("/x"));
        ops.put("checkExists async", () -> c.checkExists().forPathAsync("/x"));
        ops.put("getData", () -> c.getData().forPath("/x"));
        ops.put("getData background", () -> c.getData().inBackground(cb).forPath("/x"));
        ops.put("setData", () -> c.setData().forPath("/x", DATA));
        ops.put("setData async", () -> c.setData().forPathAsync("/x", DATA));
        ops.put("getChildren", () -> c.getChildren().forPath("/"));
        ops.put("getChildren async", () -> c.getChildren().forPathAsync("/"));
        ops.put("delete", () -> c.delete().forPath("/x"));
        ops.put("delete guaranteed background", () -> c.delete().guaranteed().inBackground(cb).forPath("/x"));
        ops.put("sync", () -> c.sync().forPath("/"));
        ops.put("getACL", () -> c.getACL().forPath("/"));
        ops.put("setACL", () -> c.setACL().forPathAsync("/x"));
        ops.put("addWatch", () -> c.watchers().add().withMode(AddWatchMode.PERSISTENT).forPath("/x"));
        ops.put("removeAll", () -> c.watchers().removeAll().forPath("/x"));
        ops.put("transaction", () -> c.transaction().forOperations(c.transactionOp().check().forPath("/")));
        ops.put("transaction async",
                () -> c.transaction().forOperationsAsync(List.of(c.transactionOp().check().forPath("/"))));
        ops.put("transaction background", () -> c.transaction().inBackground(cb)
                .forOperations(List.of(c.transactionOp().check().forPath("/"))));
        ops.put("getZooKeeper", c::getZooKeeper);
        ops.put("blockUntilConnected", () -> c.blockUntilConnected(1, TimeUnit.MILLISECONDS));
        ops.put("blockUntilConnected forever", c::blockUntilConnected);
        return ops;
    }

    private static void assertAllThrowIllegalState(BatonClient c, String when) {
        operations(c).forEach((name, op) -> assertThatThrownBy(op).as("%s %s", name, when)
                .isInstanceOf(IllegalStateException.class));
    }

    @Test
    void operationsBeforeStartFail() {
        try (BatonClient client = unstarted()) {
            assertThat(client.getState()).isEqualTo(BatonClient.State.LATENT);
            assertAllThrowIllegalState(client, "before start()");
            assertAllThrowIllegalState(client.usingNamespace("view"), "on a view before start()");
            assertThat(client.getConnectionState()).isNull();
            assertThat(client.isConnected()).isFalse();
        }
    }

    @Test
    void operationsAfterCloseFail() throws Exception {
        BatonClient client = TestClients.started(zk.connectString());
        BatonClient view = client.usingNamespace("view");
        try {
            assertThat(client.checkExists().forPath("/")).isNotNull();
        } finally {
            client.close();
        }
        assertThat(client.getState()).isEqualTo(BatonClient.State.CLOSED);
        assertThat(client.isConnected()).isFalse();
        assertAllThrowIllegalState(client, "after close()");
        assertAllThrowIllegalState(view, "on a view after close()");
        assertThatIllegalStateException().isThrownBy(client::start);
        client.close(); // a second close does nothing
        assertThat(client.getState()).isEqualTo(BatonClient.State.CLOSED);
    }

    @Test
    void closeBeforeStartIsAllowedAndFinal() {
        BatonClient client = unstarted();
        client.close();
        assertThat(client.getState()).isEqualTo(BatonClient.State.CLOSED);
        assertThatIllegalStateException().isThrownBy(client::start);
        assertAllThrowIllegalState(client, "after close() without start()");
    }

    @Test
    void startTwiceFails() throws Exception {
        try (BatonClient client = unstarted()) {
            client.start();
            assertThatIllegalStateException().isThrownBy(client::start);
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).as("still works").isTrue();
            assertThat(client.getState()).isEqualTo(BatonClient.State.STARTED);
            assertThat(client.checkExists().forPath("/")).isNotNull();
        }
    }

    @Test
    void aViewCannotBeStarted() throws Exception {
        try (BatonClient client = unstarted()) {
            assertThatIllegalStateException().isThrownBy(() -> client.usingNamespace("v").start());
            assertThat(client.getState()).isEqualTo(BatonClient.State.LATENT);
        }
    }

    @Test
    void negativeWaitIsRejected() throws Exception {
        try (BatonClient client = TestClients.started(zk.connectString())) {
            assertThatIllegalArgumentException().isThrownBy(() -> client.blockUntilConnected(-1, TimeUnit.SECONDS))
                    .withMessageContaining("-1");
            assertThat(client.blockUntilConnected(0, TimeUnit.SECONDS)).as("connected, zero wait").isTrue();
        }
    }

    @Test
    void blockUntilConnectedTimesOutWithoutAServer() throws Exception {
        // Port 1 on loopback: nothing listens there.
        try (BatonClient client = Baton.builder().connectString("127.0.0.1:1").retryPolicy(new RetryOneTime(10))
                .build()) {
            client.start();
            long start = System.nanoTime();
            assertThat(client.blockUntilConnected(200, TimeUnit.MILLISECONDS)).isFalse();
            // Millisecond granularity: the wait may end within a millisecond of the deadline.
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(199));
            assertThat(client.isConnected()).isFalse();
        }
    }

    @Test
    void eachBuilderOptionCanBeSetOnce() {
        Map<String, Consumer<Baton.Builder>> options = new LinkedHashMap<>();
        options.put("connectString", b -> b.connectString("127.0.0.1:2181"));
        options.put("ensembleProvider", b -> b.ensembleProvider(new FixedEnsembleProvider("127.0.0.1:2181")));
        options.put("sessionTimeout", b -> b.sessionTimeout(Duration.ofSeconds(5)));
        options.put("connectionTimeout", b -> b.connectionTimeout(Duration.ofSeconds(5)));
        options.put("retryPolicy", b -> b.retryPolicy(new RetryOneTime(1)));
        options.put("namespace", b -> b.namespace("ns"));
        options.put("aclProvider", b -> b.aclProvider(new DefaultACLProvider()));
        options.put("compressionProvider", b -> b.compressionProvider(new GzipCompressionProvider()));
        options.put("enableCompression", Baton.Builder::enableCompression);
        options.put("canBeReadOnly", b -> b.canBeReadOnly(false));
        options.put("connectionStateErrorPolicy",
                b -> b.connectionStateErrorPolicy(ConnectionStateErrorPolicy.STANDARD));
        options.put("simulatedSessionExpirationPercent", b -> b.simulatedSessionExpirationPercent(50));
        options.put("threadFactory", b -> b.threadFactory(Executors.defaultThreadFactory()));
        options.put("zkClientConfig", b -> b.zkClientConfig(new ZKClientConfig()));
        options.put("ensembleTracker", b -> b.ensembleTracker(false));
        options.forEach((name, set) -> {
            Baton.Builder b = Baton.builder();
            set.accept(b);
            assertThatIllegalStateException().as("%s set twice", name).isThrownBy(() -> set.accept(b));
        });
        // The connect string and the ensemble provider are the same option.
        Baton.Builder b = Baton.builder().connectString("127.0.0.1:2181");
        assertThatIllegalStateException().isThrownBy(() -> b.ensembleProvider(new FixedEnsembleProvider("h:1")));
        // An empty namespace still counts as set.
        Baton.Builder n = Baton.builder().namespace("");
        assertThatIllegalStateException().isThrownBy(() -> n.namespace("other"));
        // Authorizations add up; they are not an option set once.
        Baton.builder().authorization("digest", "a:b".getBytes(UTF_8)).authorization("digest", "c:d".getBytes(UTF_8));
    }

    @Test
    void buildNeedsConnectStringAndRetryPolicy() {
        assertThatIllegalStateException().isThrownBy(() -> Baton.builder().retryPolicy(new RetryOneTime(1)).build())
                .withMessageContaining("connectString");
        assertThatIllegalStateException().isThrownBy(() -> Baton.builder().connectString("127.0.0.1:2181").build())
                .withMessageContaining("retryPolicy");
        assertThatIllegalStateException().isThrownBy(() -> Baton.builder().build());
    }

    @Test
    void timeoutsMustBePositive() {
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofSeconds(-30))) {
            assertThatIllegalArgumentException().as("sessionTimeout %s", bad)
                    .isThrownBy(() -> Baton.builder().sessionTimeout(bad)).withMessageContaining("sessionTimeout");
            assertThatIllegalArgumentException().as("connectionTimeout %s", bad)
                    .isThrownBy(() -> Baton.builder().connectionTimeout(bad))
                    .withMessageContaining("connectionTimeout");
            assertThatIllegalArgumentException().as("newClient %s", bad).isThrownBy(() -> Baton.newClient(
                    "127.0.0.1:2181", bad, Duration.ofSeconds(1), new RetryOneTime(1)));
        }
        // A rejected value leaves the option unset.
        Baton.Builder b = Baton.builder();
        assertThatIllegalArgumentException().isThrownBy(() -> b.sessionTimeout(Duration.ZERO));
        b.sessionTimeout(Duration.ofSeconds(3));
    }

    @Test
    void otherBadBuilderValuesAreRejected() {
        assertThatIllegalArgumentException().isThrownBy(() -> Baton.builder().simulatedSessionExpirationPercent(-1));
        assertThatIllegalArgumentException().isThrownBy(() -> Baton.builder().simulatedSessionExpirationPercent(101));
        assertThatIllegalArgumentException().isThrownBy(() -> Baton.builder().connectString(" "));
        assertThatIllegalArgumentException().isThrownBy(() -> Baton.builder().authorization(" ", new byte[0]));
        assertThatIllegalArgumentException().isThrownBy(() -> Baton.builder().namespace("a//b"))
                .withMessageContaining("a//b");
    }

    @Test
    void theEventThreadIsKnownToTheClient() throws Exception {
        try (BatonClient client = TestClients.started(zk.connectString());
                BatonClient other = TestClients.started(zk.connectString())) {
            assertThat(client.isEventThread()).as("the test's own thread").isFalse();
            CompletableFuture<List<Boolean>> inWatcher = new CompletableFuture<>();
            client.checkExists().usingWatcher((Watcher) e -> inWatcher.complete(
                    List.of(client.isEventThread(), other.isEventThread()))).forPath("/event-thread");
            other.create().forPath("/event-thread");
            assertThat(inWatcher.get(10, TimeUnit.SECONDS)).as("this client's, then another client's")
                    .containsExactly(true, false);
            other.delete().forPath("/event-thread");
        }
    }

    @Test
    void oneBuilderMakesIndependentClients() throws Exception {
        Baton.Builder builder = Baton.builder().connectString(zk.connectString()).retryPolicy(new RetryOneTime(10))
                .namespace("shared-builder");
        try (BatonClient second = builder.build()) {
            try (BatonClient first = builder.build()) {
                assertThat(first).isNotSameAs(second);
                first.start();
                assertThat(second.getState()).isEqualTo(BatonClient.State.LATENT);
                second.start();
                assertThat(first.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
                assertThat(second.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
                assertThat(first.getZooKeeper().getSessionId()).isNotEqualTo(second.getZooKeeper().getSessionId());
                assertThat(second.getNamespace()).isEqualTo("shared-builder");
            }
            assertThat(second.getState()).isEqualTo(BatonClient.State.STARTED);
            // The first operation through a namespaced client makes the namespace node, as Curator's does.
            assertThat(second.checkExists().forPath("/")).as("the other client still works").isNotNull();
        }
    }
}
