package dev.baton;

import static dev.baton.Faces.Face.BACKGROUND;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Faces.Face;
import dev.baton.Faces.Outcome;
import dev.baton.TestClients.RecordingWatcher;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client built with {@code namespace("app…")} puts every path under {@code /app…} on the server and gives back
 * paths without it: in results, background events, watched events, transaction results and errors. Each test
 * uses its own namespace; the server side is checked with a second client that has none.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NamespaceTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    /** A client without namespace: it sees the server's real paths. */
    private static BatonClient plain;

    @BeforeAll
    static void startPlain() throws InterruptedException {
        plain = TestClients.started(zk.connectString());
    }

    @AfterAll
    static void closePlain() {
        if (plain != null) {
            plain.close();
        }
    }

    private static String newNamespace() {
        return "app" + NAMESPACES.incrementAndGet();
    }

    private static BatonClient namespaced(String namespace) throws InterruptedException {
        return TestClients.started(Baton.builder().connectString(zk.connectString()).namespace(namespace));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void createPutsTheNodeUnderTheNamespace() throws Exception {
        String ns = newNamespace();
        try (BatonClient client = namespaced(ns)) {
            assertThat(client.getNamespace()).isEqualTo(ns);
            assertThat(client.create().forPath("/x", bytes("v"))).isEqualTo("/x");

            assertThat(plain.getData().forPath("/" + ns + "/x")).isEqualTo(bytes("v"));
            assertThat(plain.checkExists().forPath("/x")).as("node outside the namespace").isNull();
            assertThat(client.getData().forPath("/x")).isEqualTo(bytes("v"));
            assertThat(client.checkExists().forPath("/x")).isEqualTo(plain.checkExists().forPath("/" + ns + "/x"));
            assertThat(client.getChildren().forPath("/")).containsExactly("x");

            client.setData().forPath("/x", bytes("w"));
            assertThat(plain.getData().forPath("/" + ns + "/x")).isEqualTo(bytes("w"));
            client.delete().forPath("/x");
            assertThat(plain.checkExists().forPath("/" + ns + "/x")).isNull();
            assertThat(plain.checkExists().forPath("/" + ns)).as("the namespace node stays").isNotNull();
        }
    }

    /** An operation of each kind, run through a namespaced client for the first time. */
    enum FirstOperation {
        CHECK_EXISTS, GET_DATA_ASYNC, GET_CHILDREN_IN_BACKGROUND, PERSISTENT_WATCH, CREATE;

        void run(BatonClient client) throws Exception {
            switch (this) {
                case CHECK_EXISTS -> assertThat(client.checkExists().forPath("/x")).isNull();
                case GET_DATA_ASYNC -> assertThatThrownBy(() -> client.getData().forPathAsync("/x")
                        .get(10, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(KeeperException.NoNodeException.class);
                case GET_CHILDREN_IN_BACKGROUND -> {
                    CompletableFuture<BatonEvent> event = new CompletableFuture<>();
                    client.getChildren().inBackground((c, e) -> event.complete(e)).forPath("/");
                    assertThat(event.get(10, TimeUnit.SECONDS).resultCode()).isZero();
                }
                case PERSISTENT_WATCH -> client.watchers().add().withMode(AddWatchMode.PERSISTENT)
                        .usingWatcher((Watcher) e -> { }).forPath("/x");
                case CREATE -> client.create().forPath("/x");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(FirstOperation.class)
    void theNamespaceNodeIsCreatedByTheFirstOperationOfAnyKind(FirstOperation first) throws Exception {
        String ns = newNamespace();
        try (BatonClient client = namespaced(ns)) {
            assertThat(plain.checkExists().forPath("/" + ns)).as("before any operation").isNull();

            first.run(client);
            Stat nsStat = plain.checkExists().forPath("/" + ns);
            assertThat(nsStat).as("after the first operation").isNotNull();
            assertThat(nsStat.getEphemeralOwner()).isZero();
        }
    }

    @Test
    void aWatchThroughANamespaceViewLetsThePlainClientCreateUnderIt() throws Exception {
        String ns = newNamespace();
        List<WatchedEvent> events = new CopyOnWriteArrayList<>();
        plain.usingNamespace(ns).watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE)
                .usingWatcher((Watcher) events::add).forPath("/");
        plain.create().forPath("/" + ns + "/x");
        await().atMost(WAIT).until(() -> events.stream()
                .anyMatch(e -> e.getType() == EventType.NodeCreated && "/x".equals(e.getPath())));
        plain.watchers().removeAll().forPath("/" + ns);
    }

    @Test
    void aNestedNamespaceIsCreatedWithItsParents() throws Exception {
        String ns = newNamespace() + "/region/zone";
        try (BatonClient client = namespaced(ns)) {
            assertThat(client.create().forPath("/x")).isEqualTo("/x");
            assertThat(plain.checkExists().forPath("/" + ns + "/x")).isNotNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void resultsAndBackgroundEventsAreNamespaceFree(Face face) throws Exception {
        String ns = newNamespace();
        try (BatonClient client = namespaced(ns)) {
            Outcome<String> created = Faces.run(face, client.create().creatingParentsIfNeeded(), "/a/b",
                    bytes("d"), BatonEventType.CREATE, Faces::created);
            assertThat(created.get()).isEqualTo("/a/b");
            assertThat(plain.getData().forPath("/" + ns + "/a/b")).isEqualTo(bytes("d"));

            Outcome<String> seq = Faces.run(face, client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL),
                    "/a/s-", bytes(""), BatonEventType.CREATE, Faces::created);
            assertThat(seq.get()).matches("/a/s-\\d{10}");
            assertThat(plain.checkExists().forPath("/" + ns + seq.get())).isNotNull();

            Outcome<String> prot = Faces.run(face, client.create().withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL), "/a/p-", bytes(""), BatonEventType.CREATE,
                    Faces::created);
            assertThat(prot.get()).matches("/a/_c_[0-9a-f-]{36}-p-\\d{10}");
            assertThat(plain.checkExists().forPath("/" + ns + prot.get())).isNotNull();

            Outcome<List<String>> children = Faces.run(face, client.getChildren(), "/a", BatonEventType.CHILDREN,
                    BatonEvent::children);
            assertThat(children.get()).hasSize(3).contains("b");

            Outcome<byte[]> data = Faces.run(face, client.getData(), "/a/b", BatonEventType.GET_DATA,
                    BatonEvent::data);
            assertThat(data.get()).isEqualTo(bytes("d"));

            if (face == BACKGROUND) {
                assertThat(created.event().path()).isEqualTo("/a/b");
                assertThat(created.event().name()).isEqualTo("/a/b");
                assertThat(seq.event().path()).isEqualTo("/a/s-");
                assertThat(seq.event().name()).isEqualTo(seq.get());
                assertThat(prot.event().name()).isEqualTo(prot.get());
                assertThat(children.event().path()).isEqualTo("/a");
                assertThat(data.event().name()).isEqualTo("/a/b");
            }

            Faces.run(face, client.delete().deletingChildrenIfNeeded(), "/a", BatonEventType.DELETE, Faces::none)
                    .get();
            assertThat(plain.checkExists().forPath("/" + ns + "/a")).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void errorsNameTheUsersPath(Face face) throws Exception {
        String ns = newNamespace();
        try (BatonClient client = namespaced(ns)) {
            client.create().forPath("/exists");
            List<KeeperException> errors = List.of(
                    Faces.run(face, client.getData(), "/missing", BatonEventType.GET_DATA, BatonEvent::data)
                            .failure(),
                    Faces.run(face, client.setData(), "/missing", bytes("x"), BatonEventType.SET_DATA,
                            BatonEvent::stat).failure(),
                    Faces.run(face, client.delete(), "/missing", BatonEventType.DELETE, Faces::none).failure(),
                    Faces.run(face, client.getChildren(), "/missing", BatonEventType.CHILDREN,
                            BatonEvent::children).failure(),
                    Faces.run(face, client.create(), "/missing/child", bytes(""), BatonEventType.CREATE,
                            Faces::created).failure());
            assertThat(errors).allMatch(e -> e instanceof KeeperException.NoNodeException);
            assertThat(errors).extracting(KeeperException::getPath)
                    .containsExactly("/missing", "/missing", "/missing", "/missing", "/missing/child");

            KeeperException exists = Faces.run(face, client.create(), "/exists", bytes(""), BatonEventType.CREATE,
                    Faces::created).failure();
            assertThat(exists).isInstanceOf(KeeperException.NodeExistsException.class);
            assertThat(exists.getPath()).isEqualTo("/exists");
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void transactionResultsAreNamespaceFree(Face face) throws Exception {
        String ns = newNamespace();
        try (BatonClient client = namespaced(ns)) {
            client.create().forPath("/old", bytes("o"));
            TransactionOp op = client.transactionOp();
            List<BatonTransactionResult> results = Faces.transaction(face, client, List.of(
                    op.create().forPath("/t", bytes("t")),
                    op.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath("/t/s-"),
                    op.setData().forPath("/old", bytes("n")),
                    op.check().withVersion(1).forPath("/old"))).get();
            assertThat(results).extracting(BatonTransactionResult::forPath)
                    .containsExactly("/t", "/t/s-", "/old", "/old");
            assertThat(results.get(0).resultPath()).isEqualTo("/t");
            assertThat(results.get(1).resultPath()).matches("/t/s-\\d{10}");
            assertThat(plain.checkExists().forPath("/" + ns + results.get(1).resultPath())).isNotNull();
            assertThat(plain.getData().forPath("/" + ns + "/old")).isEqualTo(bytes("n"));

            KeeperException failed = Faces.transaction(face, client, List.of(
                    op.create().forPath("/u"),
                    op.delete().forPath("/nothing"))).failure();
            assertThat(failed).isInstanceOf(KeeperException.NoNodeException.class);
            if (face != BACKGROUND) {
                assertThat(failed.getPath()).isEqualTo("/nothing");
            }
            assertThat(plain.checkExists().forPath("/" + ns + "/u")).isNull();
        }
    }

    @Test
    void aFirstTransactionCreatesTheNamespaceNode() throws Exception {
        String ns = newNamespace();
        try (BatonClient client = namespaced(ns)) {
            client.transaction().forOperations(client.transactionOp().create().forPath("/first"));
            assertThat(plain.checkExists().forPath("/" + ns + "/first")).isNotNull();
        }
    }

    @Test
    void watchedEventPathsAreNamespaceFree() throws Exception {
        String ns = newNamespace();
        try (BatonClient client = namespaced(ns)) {
            client.create().forPath("/w", bytes("0"));
            RecordingWatcher dataWatcher = new RecordingWatcher();
            RecordingWatcher existsWatcher = new RecordingWatcher();
            RecordingWatcher childWatcher = new RecordingWatcher();
            RecordingWatcher recursive = new RecordingWatcher();
            List<BatonEvent> listened = new CopyOnWriteArrayList<>();
            client.getEventListenable().addListener((c, e) -> listened.add(e));

            client.getData().usingWatcher(dataWatcher).forPath("/w");
            client.checkExists().usingWatcher(existsWatcher).forPath("/w/new");
            client.getChildren().usingWatcher(childWatcher).forPath("/w");
            client.checkExists().watched().forPath("/w");
            client.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE).usingWatcher(recursive).forPath("/");

            plain.setData().forPath("/" + ns + "/w", bytes("1"));
            plain.create().forPath("/" + ns + "/w/new");

            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(dataWatcher.events).extracting(WatchedEvent::getPath).containsExactly("/w");
                assertThat(existsWatcher.events).extracting(WatchedEvent::getPath).containsExactly("/w/new");
                assertThat(childWatcher.events).extracting(WatchedEvent::getPath).containsExactly("/w");
                assertThat(listened).filteredOn(e -> e.type() == BatonEventType.WATCHED).hasSize(1);
                assertThat(recursive.of(EventType.NodeCreated, "/w/new")).hasSize(1);
                assertThat(recursive.of(EventType.NodeDataChanged, "/w")).hasSize(1);
            });
            BatonEvent watched = listened.stream().filter(e -> e.type() == BatonEventType.WATCHED).findFirst()
                    .orElseThrow();
            assertThat(watched.path()).isEqualTo("/w");
            assertThat(watched.name()).isEqualTo("/w");
            assertThat(watched.watchedEvent().getPath()).isEqualTo("/w");
            assertThat(recursive.changes()).extracting(WatchedEvent::getPath).doesNotContainNull()
                    .allMatch(p -> !p.startsWith("/" + ns));

            // A watcher added in the namespace can be removed with the same watcher object.
            client.watchers().remove(recursive).forPath("/");
            int before = recursive.changes().size();
            plain.setData().forPath("/" + ns + "/w", bytes("2"));
            RecordingWatcher sentinel = new RecordingWatcher();
            client.checkExists().usingWatcher(sentinel).forPath("/sentinel");
            plain.create().forPath("/" + ns + "/sentinel");
            await().atMost(WAIT).until(() -> !sentinel.events.isEmpty());
            assertThat(recursive.changes()).hasSize(before);
        }
    }

    @Test
    void theNamespaceRootIsSlash() throws Exception {
        String ns = newNamespace();
        try (BatonClient client = namespaced(ns)) {
            client.create().forPath("/x");
            assertThat(client.checkExists().forPath("/")).isEqualTo(plain.checkExists().forPath("/" + ns));
            client.setData().forPath("/", bytes("root"));
            assertThat(plain.getData().forPath("/" + ns)).isEqualTo(bytes("root"));
        }
    }

    @Test
    void usingNamespaceSharesTheSession() throws Exception {
        String ns = newNamespace();
        String other = newNamespace();
        try (BatonClient client = namespaced(ns)) {
            BatonClient view = client.usingNamespace(other);
            assertThat(view.getNamespace()).isEqualTo(other);
            assertThat(view.getZooKeeper()).isSameAs(client.getZooKeeper());
            assertThat(view.getState()).isEqualTo(BatonClient.State.STARTED);

            assertThat(view.create().withMode(CreateMode.EPHEMERAL).forPath("/e")).isEqualTo("/e");
            Stat stat = plain.checkExists().forPath("/" + other + "/e");
            assertThat(stat).isNotNull();
            assertThat(stat.getEphemeralOwner()).isEqualTo(client.getZooKeeper().getSessionId());
            assertThat(plain.checkExists().forPath("/" + ns + "/e")).isNull();

            BatonClient root = client.usingNamespace(null);
            assertThat(root.getNamespace()).isEmpty();
            assertThat(root.checkExists().forPath("/" + other + "/e")).isEqualTo(stat);

            assertThatThrownBy(view::start).isInstanceOf(IllegalStateException.class);
            view.close();
            assertThat(client.getState()).as("closing a view leaves the client open")
                    .isEqualTo(BatonClient.State.STARTED);
            assertThat(view.checkExists().forPath("/e")).isNotNull();
        }
        assertThat(plain.checkExists().forPath("/" + other + "/e")).as("ephemeral of the shared session").isNull();
    }

    @Test
    void invalidNamespacesAreRejected() {
        for (String bad : List.of("a//b", "a/", "a/./b", "..", "a\u0001")) {
            assertThatThrownBy(() -> Baton.builder().namespace(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
