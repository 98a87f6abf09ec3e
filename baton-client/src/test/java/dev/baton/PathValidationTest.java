package dev.baton;

import dev.baton.internal.BatonPaths;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.baton.TestClients.RecordingWatcher;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad paths and null arguments fail before any request: {@link IllegalArgumentException} naming the path, or
 * {@link NullPointerException} naming the argument. "Nothing was sent" is checked with the server's own request
 * counter, so the clients here do not track the ensemble (that would send requests of its own).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PathValidationTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static final byte[] DATA = "d".getBytes(UTF_8);

    private static BatonClient client;
    private static BatonClient namespaced;

    @BeforeAll
    static void startClients() throws InterruptedException {
        client = TestClients.started(Baton.builder().connectString(zk.connectString()).ensembleTracker(false));
        namespaced = TestClients.started(Baton.builder().connectString(zk.connectString()).ensembleTracker(false)
                .namespace("validation"));
    }

    @AfterAll
    static void closeClients() {
        if (client != null) {
            client.close();
        }
        if (namespaced != null) {
            namespaced.close();
        }
    }

    /** Every operation, in every face, with the given path; each entry must throw before sending anything. */
    private static Map<String, ThrowingCallable> operations(BatonClient c, String path, BackgroundCallback cb) {
        Map<String, ThrowingCallable> ops = new LinkedHashMap<>();
        ops.put("create", () -> c.create().forPath(path, DATA));
        ops.put("create no data", () -> c.create().forPath(path));
        ops.put("create async", () -> c.create().forPathAsync(path, DATA));
        ops.put("create background", () -> c.create().inBackground(cb).forPath(path, DATA));
        ops.put("create with parents", () -> c.create().creatingParentsIfNeeded().forPath(path, DATA));
        ops.put("create with parent containers async",
                () -> c.create().creatingParentContainersIfNeeded().forPathAsync(path));
        ops.put("create protected", () -> c.create().withProtection().forPath(path));
        ops.put("create or set", () -> c.create().orSetData().forPath(path, DATA));
        ops.put("create ephemeral", () -> c.create().withMode(CreateMode.EPHEMERAL).forPath(path));
        ops.put("checkExists", () -> c.checkExists().forPath(path));
        ops.put("checkExists async", () -> c.checkExists().forPathAsync(path));
        ops.put("checkExists background", () -> c.checkExists().inBackground(cb).forPath(path));
        ops.put("checkExists watched", () -> c.checkExists().usingWatcher(e -> { }).forPath(path));
        ops.put("getData", () -> c.getData().forPath(path));
        ops.put("getData async", () -> c.getData().forPathAsync(path));
        ops.put("getData background", () -> c.getData().inBackground(cb).forPath(path));
        ops.put("setData", () -> c.setData().forPath(path, DATA));
        ops.put("setData async", () -> c.setData().forPathAsync(path, DATA));
        ops.put("setData background", () -> c.setData().inBackground(cb).forPath(path, DATA));
        ops.put("getChildren", () -> c.getChildren().forPath(path));
        ops.put("getChildren async", () -> c.getChildren().forPathAsync(path));
        ops.put("getChildren background", () -> c.getChildren().inBackground(cb).forPath(path));
        ops.put("delete", () -> c.delete().forPath(path));
        ops.put("delete async", () -> c.delete().forPathAsync(path));
        ops.put("delete background", () -> c.delete().inBackground(cb).forPath(path));
        ops.put("delete tree quietly", () -> c.delete().deletingChildrenIfNeeded().quietly().forPath(path));
        ops.put("delete guaranteed", () -> c.delete().guaranteed().forPath(path));
        ops.put("sync", () -> c.sync().forPath(path));
        ops.put("sync background", () -> c.sync().inBackground(cb).forPath(path));
        ops.put("getACL", () -> c.getACL().forPath(path));
        ops.put("setACL async", () -> c.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPathAsync(path));
        ops.put("addWatch", () -> c.watchers().add().usingWatcher(e -> { }).forPath(path));
        ops.put("removeAll", () -> c.watchers().removeAll().forPath(path));
        ops.put("txn create", () -> c.transactionOp().create().forPath(path, DATA));
        ops.put("txn delete", () -> c.transactionOp().delete().forPath(path));
        ops.put("txn setData", () -> c.transactionOp().setData().forPath(path, DATA));
        ops.put("txn check", () -> c.transactionOp().check().forPath(path));
        return ops;
    }

    /** The path as an error message shows it: characters ZooKeeper forbids as {@code \\uXXXX}. */
    private static String shown(String path) {
        StringBuilder out = new StringBuilder();
        for (char ch : path.toCharArray()) {
            boolean forbidden = ch < 0x20 || ch >= 0x7f && ch <= 0x9f || ch >= 0xd800 && ch <= 0xf8ff || ch >= 0xfff0;
            out.append(forbidden ? String.format("\\u%04x", (int) ch) : ch);
        }
        return out.toString();
    }

    private static List<String> serverTree() throws Exception {
        List<String> all = new ArrayList<>();
        collect(client.getZooKeeper(), "/", all);
        return all;
    }

    private static void collect(org.apache.zookeeper.ZooKeeper raw, String path, List<String> into)
            throws Exception {
        into.add(path);
        for (String child : raw.getChildren(path, false)) {
            collect(raw, BatonPaths.makePath(path, child), into);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a", "a/b", "x/", "/a/", "/a/b/", "/a//b", "//", "//a", "/a/./b", "/a/../b", "/.",
        "/..", "/a/.", "/a/..", "./a", "\u0001", "\u0000", "/a\u0001b", "/a\u0000b", "/\u001f", "/a\u007f",
        "/a\u0085b", "/a\ud800b", "/a\ufff0"})
    void anInvalidPathFailsBeforeAnyRequest(String path) throws Exception {
        List<String> treeBefore = serverTree();
        AtomicInteger callbacks = new AtomicInteger();
        BackgroundCallback cb = (c, e) -> callbacks.incrementAndGet();
        long requestsBefore = zk.server().requestCount();

        for (BatonClient c : List.of(client, namespaced)) {
            for (Map.Entry<String, ThrowingCallable> op : operations(c, path, cb).entrySet()) {
                Throwable thrown = catchThrowable(op.getValue());
                assertThat(thrown).as("%s of \"%s\"%s", op.getKey(), shown(path),
                        c == namespaced ? " in a namespace" : "")
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("\"" + shown(path) + "\"");
            }
        }

        assertThat(zk.server().requestCount()).as("requests sent").isEqualTo(requestsBefore);
        assertThat(serverTree()).as("server tree").isEqualTo(treeBefore);
        assertThat(callbacks).as("background callbacks called").hasValue(0);
    }

    @Test
    void theMessageGivesTheReason() {
        assertThat(catchThrowable(() -> client.getData().forPath("/a//b"))).hasMessageContaining("//");
        assertThat(catchThrowable(() -> client.getData().forPath("/a/../b"))).hasMessageContaining("..");
        assertThat(catchThrowable(() -> client.getData().forPath("/a/"))).hasMessageContaining("end");
        assertThat(catchThrowable(() -> client.getData().forPath("a"))).hasMessageContaining("start");
        assertThat(catchThrowable(() -> client.getData().forPath("/a\u0001"))).hasMessageContaining("\\u0001");
    }

    @Test
    void validPathsAreAccepted() throws Exception {
        String base = TestClients.unique("valid");
        client.create().forPath(base);
        List<String> names = List.of("a.b", "..a", ".a", "a.", "a..", "...", "a b", "ü-ñ", "a:b@c");
        for (String name : names) {
            String path = base + "/" + name;
            assertThat(client.create().forPath(path, DATA)).isEqualTo(path);
            assertThat(client.getData().forPath(path)).isEqualTo(DATA);
        }
        assertThat(client.getZooKeeper().getChildren(base, false)).containsExactlyInAnyOrderElementsOf(names);
        assertThat(client.checkExists().forPath("/")).isNotNull();
        assertThat(client.getChildren().forPath("/")).contains(base.substring(1));
        assertThat(client.checkExists().forPath("/a")).isNull();
        assertThat(client.checkExists().forPath("/..a")).isNull();
        client.sync().forPath("/");
        // A sequential create may end with '/': the server names the node by its counter.
        assertThat(client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath(base + "/"))
                .matches(base + "/\\d{10}");
        // The namespace root is "/" in a namespaced client.
        namespaced.create().forPath("/inside");
        assertThat(namespaced.getChildren().forPath("/")).contains("inside");
    }

    @Test
    void nullArgumentsAreNamed() throws Exception {
        BackgroundCallback cb = (c, e) -> { };
        RecordingWatcher w = new RecordingWatcher();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            long requestsBefore = zk.server().requestCount();
            List<Map.Entry<String, ThrowingCallable>> nulls = new ArrayList<>();
            nulls.add(Map.entry("path", () -> client.create().forPath(null)));
            nulls.add(Map.entry("path", () -> client.create().forPath(null, DATA)));
            nulls.add(Map.entry("path", () -> client.getData().forPathAsync(null)));
            nulls.add(Map.entry("path", () -> client.delete().inBackground(cb).forPath(null)));
            nulls.add(Map.entry("path", () -> client.checkExists().forPath(null)));
            nulls.add(Map.entry("path", () -> client.transactionOp().check().forPath(null)));
            nulls.add(Map.entry("data", () -> client.create().forPath("/x", null)));
            nulls.add(Map.entry("data", () -> client.create().forPathAsync("/x", null)));
            nulls.add(Map.entry("data", () -> client.create().inBackground(cb).forPath("/x", null)));
            nulls.add(Map.entry("data", () -> client.setData().forPath("/x", null)));
            nulls.add(Map.entry("data", () -> client.transactionOp().create().forPath("/x", null)));
            nulls.add(Map.entry("data", () -> client.transactionOp().setData().forPath("/x", null)));
            nulls.add(Map.entry("mode", () -> client.create().withMode(null)));
            nulls.add(Map.entry("mode", () -> client.watchers().add().withMode(null)));
            nulls.add(Map.entry("mode", () -> client.transactionOp().create().withMode(null)));
            nulls.add(Map.entry("acl", () -> client.create().withACL(null)));
            nulls.add(Map.entry("acl", () -> client.setACL().withACL(null)));
            nulls.add(Map.entry("acl", () -> client.transactionOp().create().withACL(null)));
            nulls.add(Map.entry("ttl", () -> client.create().withTtl((Duration) null)));
            nulls.add(Map.entry("stat", () -> client.create().storingStatIn(null)));
            nulls.add(Map.entry("stat", () -> client.getData().storingStatIn(null)));
            nulls.add(Map.entry("stat", () -> client.getChildren().storingStatIn(null)));
            nulls.add(Map.entry("stat", () -> client.getACL().storingStatIn(null)));
            nulls.add(Map.entry("watcher", () -> client.checkExists().usingWatcher(null)));
            nulls.add(Map.entry("watcher", () -> client.getData().usingWatcher(null)));
            nulls.add(Map.entry("watcher", () -> client.getChildren().usingWatcher(null)));
            nulls.add(Map.entry("watcher", () -> client.watchers().add().usingWatcher(null)));
            nulls.add(Map.entry("watcher", () -> client.watchers().remove(null)));
            nulls.add(Map.entry("watcher", () -> namespaced.watchers().remove(null)));
            nulls.add(Map.entry("type", () -> client.watchers().remove(w).ofType(null)));
            nulls.add(Map.entry("callback", () -> client.create().inBackground(null)));
            nulls.add(Map.entry("callback", () -> client.getData().inBackground(null, executor)));
            nulls.add(Map.entry("callback", () -> client.transaction().inBackground(null)));
            nulls.add(Map.entry("executor", () -> client.checkExists().inBackground(cb, null)));
            nulls.add(Map.entry("executor", () -> client.transaction().inBackground(cb, null)));
            nulls.add(Map.entry("operations", () -> client.transaction().forOperations((List<BatonOp>) null)));
            nulls.add(Map.entry("operations", () -> client.transaction().forOperations((BatonOp[]) null)));
            nulls.add(Map.entry("operations", () -> client.transaction().forOperationsAsync(null)));
            nulls.add(Map.entry("operations", () -> client.transaction().forOperations(Arrays.asList(
                    client.transactionOp().check().forPath("/"), null))));
            nulls.add(Map.entry("unit", () -> client.blockUntilConnected(1, null)));
            nulls.add(Map.entry("listener", () -> client.getEventListenable().addListener(null)));
            for (Map.Entry<String, ThrowingCallable> e : nulls) {
                String argument = e.getKey();
                assertThatNullPointerException().as("null %s", argument).isThrownBy(e.getValue())
                        .withMessageContaining(argument);
            }
            assertThat(zk.server().requestCount()).as("requests sent").isEqualTo(requestsBefore);
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void nullBuilderArgumentsAreNamed() {
        Baton.Builder b = Baton.builder();
        assertThatNullPointerException().isThrownBy(() -> b.connectString(null)).withMessageContaining("onnect");
        assertThatNullPointerException().isThrownBy(() -> b.retryPolicy(null)).withMessageContaining("retryPolicy");
        assertThatNullPointerException().isThrownBy(() -> b.sessionTimeout(null))
                .withMessageContaining("sessionTimeout");
        assertThatNullPointerException().isThrownBy(() -> b.connectionTimeout(null))
                .withMessageContaining("connectionTimeout");
        assertThatNullPointerException().isThrownBy(() -> b.authorization(null, DATA)).withMessageContaining("scheme");
        assertThatNullPointerException().isThrownBy(() -> b.authorization("digest", null))
                .withMessageContaining("auth");
        assertThatNullPointerException().isThrownBy(() -> b.aclProvider(null)).withMessageContaining("aclProvider");
        assertThatNullPointerException().isThrownBy(() -> Baton.newClient(null, new RetryOneTime(1)))
                .withMessageContaining("onnect");
        assertThatNullPointerException().isThrownBy(() -> Baton.newClient("127.0.0.1:1", null))
                .withMessageContaining("retryPolicy");
    }

    @Test
    void aBadArgumentLeavesTheStoredStatAlone() throws Exception {
        Stat stat = new Stat();
        stat.setVersion(42);
        catchThrowable(() -> client.getData().storingStatIn(stat).forPath("bad"));
        assertThat(stat.getVersion()).isEqualTo(42);
    }
}
