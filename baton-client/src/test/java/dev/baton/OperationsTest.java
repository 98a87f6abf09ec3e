package dev.baton;

import dev.baton.internal.BatonPaths;
import static dev.baton.Faces.Face.BACKGROUND;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Faces.Face;
import dev.baton.Faces.Outcome;
import dev.baton.TestClients.RecordingWatcher;
import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every operation of the client against a real server, each through the blocking, future and background face.
 * Outcomes are checked on the server through the raw ZooKeeper handle, not through the builder under test.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("slow")
class OperationsTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension(
            EmbeddedZooKeeper.builder().containerCheckInterval(Duration.ofMillis(100)));

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    /** The client most tests share; each test uses its own paths. */
    private static BatonClient client;

    @BeforeAll
    static void startClient() throws InterruptedException {
        client = newClient();
    }

    @AfterAll
    static void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    /** A client of its own, for tests about sessions and listeners. The caller closes it. */
    private static BatonClient newClient() throws InterruptedException {
        return TestClients.started(zk.connectString());
    }

    /** Makes {@code path} with the shared client's raw handle, bypassing the builders under test. */
    private static void make(String path, String data) throws Exception {
        client.getZooKeeper().create(path, bytes(data), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    /** The node's stat as the server has it, read with the raw handle. */
    private static Stat serverStat(String path) throws Exception {
        return client.getZooKeeper().exists(path, false);
    }

    /** The node's data as the server has it, read with the raw handle. */
    private static byte[] serverData(String path) throws Exception {
        return client.getZooKeeper().getData(path, false, null);
    }

    /**
     * Proves a watcher of the shared client got nothing more: makes a sentinel node whose one-shot exists watch,
     * set through the same session, fires after any event the changes before it could have caused (ZooKeeper
     * delivers a session's events in order, on one thread).
     */
    private static void awaitQuiescence(String sentinel) throws Exception {
        RecordingWatcher w = new RecordingWatcher();
        assertThat(client.getZooKeeper().exists(sentinel, w)).isNull();
        client.getZooKeeper().create(sentinel, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        await().atMost(WAIT).until(() -> !w.of(EventType.NodeCreated, sentinel).isEmpty());
    }

    // ------------------------------------------------------------------------------------------------ create

    @ParameterizedTest
    @EnumSource(Face.class)
    void createPersistentStoresDataAndReturnsThePath(Face face) throws Exception {
        String path = TestClients.unique("persistent");
        Outcome<String> out = Faces.run(face, client.create(), path, bytes("v1"), BatonEventType.CREATE,
                Faces::created);

        assertThat(out.get()).isEqualTo(path);
        Stat stat = serverStat(path);
        assertThat(stat).isNotNull();
        assertThat(stat.getEphemeralOwner()).isZero();
        assertThat(serverData(path)).isEqualTo(bytes("v1"));
        if (face == BACKGROUND) {
            BatonEvent e = out.event();
            assertThat(e.resultCode()).isZero();
            assertThat(e.name()).isEqualTo(path);
            assertThat(e.stat()).as("stat of the create event").isNotNull();
            assertThat(e.stat().getCzxid()).isEqualTo(stat.getCzxid());
            assertThat(e.data()).isNull();
            assertThat(e.children()).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void createWithoutDataStoresEmptyBytes(Face face) throws Exception {
        String path = TestClients.unique("empty");
        assertThat(Faces.run(face, client.create(), path, BatonEventType.CREATE, Faces::created).get())
                .isEqualTo(path);
        assertThat(serverData(path)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void createOfAnExistingNodeFailsWithNodeExists(Face face) throws Exception {
        String path = TestClients.unique("exists");
        make(path, "old");
        KeeperException e = Faces.run(face, client.create(), path, bytes("new"), BatonEventType.CREATE,
                Faces::created).failure();
        assertThat(e).isInstanceOf(KeeperException.NodeExistsException.class);
        assertThat(e.getPath()).isEqualTo(path);
        assertThat(serverData(path)).isEqualTo(bytes("old"));
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void createEphemeralIsOwnedByTheSessionAndGoesWithIt(Face face) throws Exception {
        String path = TestClients.unique("ephemeral");
        try (BatonClient owner = newClient()) {
            Faces.run(face, owner.create().withMode(CreateMode.EPHEMERAL), path, bytes("e"),
                    BatonEventType.CREATE, Faces::created).get();
            Stat stat = serverStat(path);
            assertThat(stat).isNotNull();
            assertThat(stat.getEphemeralOwner()).isEqualTo(owner.getZooKeeper().getSessionId());
        }
        assertThat(serverStat(path)).as("ephemeral node after its session closed").isNull();
    }

    @ParameterizedTest
    @EnumSource(value = CreateMode.class, names = {"PERSISTENT_SEQUENTIAL", "EPHEMERAL_SEQUENTIAL"})
    void createSequentialAppendsAnIncreasingCounter(CreateMode mode) throws Exception {
        for (Face face : Face.values()) {
            String parent = TestClients.unique("seq");
            make(parent, "");
            String first = Faces.run(face, client.create().withMode(mode), parent + "/n-", bytes("1"),
                    BatonEventType.CREATE, Faces::created).get();
            String second = Faces.run(face, client.create().withMode(mode), parent + "/n-", bytes("2"),
                    BatonEventType.CREATE, Faces::created).get();

            assertThat(first).as(face.name()).matches(parent + "/n-\\d{10}");
            assertThat(second).as(face.name()).matches(parent + "/n-\\d{10}");
            assertThat(second).isGreaterThan(first);
            assertThat(client.getZooKeeper().getChildren(parent, false))
                    .containsExactlyInAnyOrder(first.substring(parent.length() + 1),
                            second.substring(parent.length() + 1));
            assertThat(serverData(first)).isEqualTo(bytes("1"));
            long owner = serverStat(first).getEphemeralOwner();
            assertThat(owner).isEqualTo(mode.isEphemeral() ? client.getZooKeeper().getSessionId() : 0L);
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void createSequentialWithATrailingSlashNamesTheNodeByItsCounter(Face face) throws Exception {
        String parent = TestClients.unique("seqslash");
        make(parent, "");
        String created = Faces.run(face, client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL),
                parent + "/", bytes(""), BatonEventType.CREATE, Faces::created).get();
        assertThat(created).matches(parent + "/\\d{10}");
        assertThat(serverStat(created)).isNotNull();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void createContainerMakesAContainerThatTheServerRemovesWhenEmptied(Face face) throws Exception {
        // The server hides the container marker from clients (ephemeralOwner reads 0), so the proof is the
        // server's own container check: an emptied container goes, a persistent control node stays.
        String path = TestClients.unique("container");
        String control = TestClients.unique("container-control");
        assertThat(Faces.run(face, client.create().withMode(CreateMode.CONTAINER), path, bytes(""),
                BatonEventType.CREATE, Faces::created).get()).isEqualTo(path);
        make(control, "");
        for (String p : List.of(path, control)) {
            make(p + "/child", "");
            client.getZooKeeper().delete(p + "/child", -1);
        }
        await().atMost(WAIT).until(() -> serverStat(path) == null);
        assertThat(serverStat(control)).as("emptied persistent node").isNotNull();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void createWithTtlMakesANodeThatExpires(Face face) throws Exception {
        // The server hides the TTL from clients (ephemeralOwner reads 0), so the proof is expiry by the server's
        // TTL check: the short-lived node goes; the one with a long TTL and a persistent control node stay.
        String lasting = TestClients.unique("ttl");
        String shortLived = TestClients.unique("ttl-short");
        String control = TestClients.unique("ttl-control");
        assertThat(Faces.run(face, client.create().withMode(CreateMode.PERSISTENT_WITH_TTL).withTtl(60_000),
                lasting, bytes("t"), BatonEventType.CREATE, Faces::created).get()).isEqualTo(lasting);
        assertThat(Faces.run(face, client.create().withMode(CreateMode.PERSISTENT_WITH_TTL)
                .withTtl(Duration.ofMillis(100)), shortLived, bytes("t"), BatonEventType.CREATE, Faces::created)
                .get()).isEqualTo(shortLived);
        make(control, "");
        assertThat(serverData(shortLived)).isEqualTo(bytes("t"));

        await().atMost(WAIT).until(() -> serverStat(shortLived) == null);
        assertThat(serverStat(lasting)).as("node with a 60 s TTL").isNotNull();
        assertThat(serverStat(control)).as("persistent node").isNotNull();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void createSequentialWithTtlMakesASequentialNodeThatExpires(Face face) throws Exception {
        String parent = TestClients.unique("ttlseq");
        make(parent, "");
        String created = Faces.run(face, client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL)
                .withTtl(Duration.ofMillis(100)), parent + "/n-", bytes(""), BatonEventType.CREATE,
                Faces::created).get();
        assertThat(created).matches(parent + "/n-\\d{10}");
        assertThat(serverStat(created)).isNotNull();
        await().atMost(WAIT).until(() -> serverStat(created) == null);
        assertThat(serverStat(parent)).isNotNull();
    }

    @Test
    void ttlOptionsAreChecked() throws Exception {
        String path = TestClients.unique("ttlbad");
        assertThatThrownBy(() -> client.create().withMode(CreateMode.PERSISTENT_WITH_TTL).forPath(path))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("withTtl");
        assertThatThrownBy(() -> client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL)
                .forPathAsync(path)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.create().withTtl(1000).forPath(path))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TTL");
        assertThatThrownBy(() -> client.create().withTtl(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.create().withTtl(Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(serverStat(path)).isNull();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void creatingParentsIfNeededMakesPersistentParents(Face face) throws Exception {
        String base = TestClients.unique("parents");
        String path = base + "/a/b/c";
        assertThat(Faces.run(face, client.create().creatingParentsIfNeeded(), path, bytes("leaf"),
                BatonEventType.CREATE, Faces::created).get()).isEqualTo(path);
        for (String p : List.of(base, base + "/a", base + "/a/b")) {
            Stat stat = serverStat(p);
            assertThat(stat).as(p).isNotNull();
            assertThat(stat.getEphemeralOwner()).as(p).isZero();
            assertThat(serverData(p)).as(p).isEmpty();
        }
        assertThat(serverData(path)).isEqualTo(bytes("leaf"));

        // Some parents already there: only the missing ones are made.
        String sibling = base + "/a/x/y";
        assertThat(Faces.run(face, client.create().creatingParentsIfNeeded(), sibling, bytes("s"),
                BatonEventType.CREATE, Faces::created).get()).isEqualTo(sibling);
        assertThat(serverData(sibling)).isEqualTo(bytes("s"));

        // The parents are persistent, not containers: emptied, they outlive a container check that removes
        // an emptied container probe. (The server hides the container marker from clients' stats.)
        client.getZooKeeper().delete(path, -1);
        String probe = base + "-probe";
        client.getZooKeeper().create(probe, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
        make(probe + "/c", "");
        client.getZooKeeper().delete(probe + "/c", -1);
        await().atMost(WAIT).until(() -> serverStat(probe) == null);
        assertThat(serverStat(base + "/a/b")).as("emptied parent").isNotNull();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void createWithoutParentsFailsWithNoNodeAndMakesNothing(Face face) throws Exception {
        String base = TestClients.unique("noparents");
        KeeperException e = Faces.run(face, client.create(), base + "/a/b", bytes(""), BatonEventType.CREATE,
                Faces::created).failure();
        assertThat(e).isInstanceOf(KeeperException.NoNodeException.class);
        assertThat(serverStat(base)).isNull();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void creatingParentContainersIfNeededMakesContainerParents(Face face) throws Exception {
        String base = TestClients.unique("containers");
        String path = base + "/a/leaf";
        assertThat(Faces.run(face, client.create().creatingParentContainersIfNeeded(), path, bytes("x"),
                BatonEventType.CREATE, Faces::created).get()).isEqualTo(path);
        assertThat(serverData(path)).isEqualTo(bytes("x"));
        assertThat(serverStat(base + "/a")).isNotNull();

        // The parents are containers: the server's container check removes them once they are empty,
        // deepest first. (The server hides the container marker from clients' stats.)
        client.getZooKeeper().delete(path, -1);
        await().atMost(WAIT).until(() -> serverStat(base) == null);
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void withProtectionPrefixesTheNameWithAUuid(Face face) throws Exception {
        String parent = TestClients.unique("protected");
        make(parent, "");
        String lock = Faces.run(face, client.create().withProtection().withMode(CreateMode.EPHEMERAL_SEQUENTIAL),
                parent + "/lock-", bytes("id"), BatonEventType.CREATE, Faces::created).get();
        String plain = Faces.run(face, client.create().withProtection(), parent + "/node", bytes("p"),
                BatonEventType.CREATE, Faces::created).get();

        assertThat(lock).matches(parent + "/_c_" + UUID_PATTERN + "-lock-\\d{10}");
        assertThat(plain).matches(parent + "/_c_" + UUID_PATTERN + "-node");
        assertThat(BatonPaths.isProtected(BatonPaths.nodeName(lock))).isTrue();
        assertThat(BatonPaths.stripProtection(BatonPaths.nodeName(plain))).isEqualTo("node");
        assertThat(client.getZooKeeper().getChildren(parent, false)).containsExactlyInAnyOrder(
                BatonPaths.nodeName(lock), BatonPaths.nodeName(plain));
        assertThat(serverStat(lock).getEphemeralOwner())
                .isEqualTo(client.getZooKeeper().getSessionId());
        assertThat(serverData(plain)).isEqualTo(bytes("p"));
        // Two protected creates of one name get different ids.
        String again = client.create().withProtection().forPath(parent + "/node");
        assertThat(again).isNotEqualTo(plain).matches(parent + "/_c_" + UUID_PATTERN + "-node");
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void orSetDataOverwritesAnExistingNode(Face face) throws Exception {
        String path = TestClients.unique("orset");
        make(path, "old");
        assertThat(Faces.run(face, client.create().orSetData(), path, bytes("new"), BatonEventType.CREATE,
                Faces::created).get()).isEqualTo(path);
        assertThat(serverData(path)).isEqualTo(bytes("new"));
        assertThat(serverStat(path).getVersion()).isEqualTo(1);

        KeeperException e = Faces.run(face, client.create().orSetData(0), path, bytes("stale"),
                BatonEventType.CREATE, Faces::created).failure();
        assertThat(e).isInstanceOf(KeeperException.BadVersionException.class);
        assertThat(serverData(path)).isEqualTo(bytes("new"));

        String fresh = TestClients.unique("orset-fresh");
        assertThat(Faces.run(face, client.create().orSetData(), fresh, bytes("first"), BatonEventType.CREATE,
                Faces::created).get()).isEqualTo(fresh);
        assertThat(serverData(fresh)).isEqualTo(bytes("first"));
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void storingStatInReceivesTheCreatedNodesStat(Face face) throws Exception {
        String path = TestClients.unique("createstat");
        Stat stat = new Stat();
        Faces.run(face, client.create().storingStatIn(stat), path, bytes("12345"), BatonEventType.CREATE,
                Faces::created).get();
        Stat server = serverStat(path);
        assertThat(stat.getCzxid()).isPositive().isEqualTo(server.getCzxid());
        assertThat(stat.getDataLength()).isEqualTo(5);
        assertThat(stat).isEqualTo(server);

        // With orSetData the stat is the updated node's.
        Stat updated = new Stat();
        Faces.run(face, client.create().orSetData().storingStatIn(updated), path, bytes("ab"),
                BatonEventType.CREATE, Faces::created).get();
        assertThat(updated.getVersion()).isEqualTo(1);
        assertThat(updated.getDataLength()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void withAclSetsTheNodesAcl(Face face) throws Exception {
        String path = TestClients.unique("acl");
        Faces.run(face, client.create().withACL(ZooDefs.Ids.READ_ACL_UNSAFE), path, bytes("ro"),
                BatonEventType.CREATE, Faces::created).get();
        assertThat(client.getZooKeeper().getACL(path, new Stat())).isEqualTo(ZooDefs.Ids.READ_ACL_UNSAFE);
        assertThatThrownBy(() -> client.getZooKeeper().setData(path, bytes("w"), -1))
                .isInstanceOf(KeeperException.NoAuthException.class);
        assertThat(serverData(path)).isEqualTo(bytes("ro"));

        // An immutable ACL list works as well, in a create, a set-ACL and a transaction.
        List<ACL> readOnly = List.of(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.ADMIN,
                ZooDefs.Ids.ANYONE_ID_UNSAFE));
        String other = TestClients.unique("acl-immutable");
        Faces.run(face, client.create().withACL(readOnly), other, bytes(""), BatonEventType.CREATE,
                Faces::created).get();
        assertThat(client.getZooKeeper().getACL(other, new Stat())).isEqualTo(readOnly);
        Faces.run(face, client.setACL().withACL(List.of(ZooDefs.Ids.OPEN_ACL_UNSAFE.get(0))), other,
                BatonEventType.SET_ACL, BatonEvent::stat).get();
        assertThat(client.getZooKeeper().getACL(other, new Stat())).isEqualTo(ZooDefs.Ids.OPEN_ACL_UNSAFE);
        String inTxn = TestClients.unique("acl-txn");
        Faces.transaction(face, client, List.of(client.transactionOp().create().withACL(readOnly)
                .forPath(inTxn))).get();
        assertThat(client.getZooKeeper().getACL(inTxn, new Stat())).isEqualTo(readOnly);
    }

    // ------------------------------------------------------------------------------------------ checkExists

    @ParameterizedTest
    @EnumSource(Face.class)
    void checkExistsGivesTheStatOrNull(Face face) throws Exception {
        String path = TestClients.unique("exists");
        Outcome<Stat> missing = Faces.run(face, client.checkExists(), path, BatonEventType.EXISTS,
                BatonEvent::stat);
        assertThat(missing.get()).isNull();
        if (face == BACKGROUND) {
            assertThat(missing.event().code()).isEqualTo(KeeperException.Code.NONODE);
        }

        make(path, "abc");
        Outcome<Stat> present = Faces.run(face, client.checkExists(), path, BatonEventType.EXISTS,
                BatonEvent::stat);
        assertThat(present.get()).isEqualTo(serverStat(path));
        if (face == BACKGROUND) {
            assertThat(present.event().resultCode()).isZero();
            assertThat(present.event().name()).isEqualTo(path);
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void checkExistsWatcherFiresOnCreate(Face face) throws Exception {
        String path = TestClients.unique("existswatch");
        RecordingWatcher watcher = new RecordingWatcher();
        assertThat(Faces.run(face, client.checkExists().usingWatcher(watcher), path, BatonEventType.EXISTS,
                BatonEvent::stat).get()).isNull();
        make(path, "");
        await().atMost(WAIT).until(() -> !watcher.of(EventType.NodeCreated, path).isEmpty());
        // One-shot: a later change is not reported.
        client.getZooKeeper().setData(path, bytes("x"), -1);
        awaitQuiescence(path + "-sentinel");
        assertThat(watcher.changes()).hasSize(1);
    }

    @Test
    void watchedSendsTheEventToTheEventListeners() throws Exception {
        try (BatonClient client = newClient()) {
            String path = TestClients.unique("watched");
            List<BatonEvent> events = new CopyOnWriteArrayList<>();
            client.getEventListenable().addListener((c, e) -> events.add(e));
            assertThat(client.checkExists().watched().forPath(path)).isNull();
            make(path, "");
            await().atMost(WAIT).until(() -> events.stream().anyMatch(e -> e.type() == BatonEventType.WATCHED));
            BatonEvent e = events.stream().filter(x -> x.type() == BatonEventType.WATCHED).findFirst().orElseThrow();
            assertThat(e.path()).isEqualTo(path);
            assertThat(e.watchedEvent().getType()).isEqualTo(EventType.NodeCreated);
            assertThat(e.watchedEvent().getPath()).isEqualTo(path);

            client.getData().watched().forPath(path);
            client.getChildren().watched().forPath(path);
            client.getZooKeeper().setData(path, bytes("v"), -1);
            make(path + "/c", "");
            await().atMost(WAIT).until(() -> events.stream().filter(x -> x.type() == BatonEventType.WATCHED)
                    .map(x -> x.watchedEvent().getType()).toList()
                    .containsAll(List.of(EventType.NodeDataChanged, EventType.NodeChildrenChanged)));
        }
    }

    // ---------------------------------------------------------------------------------------------- getData

    @ParameterizedTest
    @EnumSource(Face.class)
    void getDataReadsDataAndStat(Face face) throws Exception {
        String path = TestClients.unique("getdata");
        make(path, "hello");
        client.getZooKeeper().setData(path, bytes("hello!"), -1);
        Stat stat = new Stat();
        Outcome<byte[]> out = Faces.run(face, client.getData().storingStatIn(stat), path,
                BatonEventType.GET_DATA, BatonEvent::data);
        assertThat(out.get()).isEqualTo(bytes("hello!"));
        assertThat(stat.getVersion()).isEqualTo(1);
        assertThat(stat).isEqualTo(serverStat(path));
        if (face == BACKGROUND) {
            assertThat(out.event().stat()).isEqualTo(stat);
            assertThat(out.event().name()).isEqualTo(path);
        }

        // Without storingStatIn, the background event still carries the stat.
        Outcome<byte[]> plain = Faces.run(face, client.getData(), path, BatonEventType.GET_DATA,
                BatonEvent::data);
        assertThat(plain.get()).isEqualTo(bytes("hello!"));
        if (face == BACKGROUND) {
            assertThat(plain.event().stat()).isEqualTo(stat);
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void getDataOfAMissingNodeFailsWithNoNode(Face face) throws Exception {
        String path = TestClients.unique("getdata-missing");
        Outcome<byte[]> out = Faces.run(face, client.getData(), path, BatonEventType.GET_DATA,
                BatonEvent::data);
        assertThat(out.failure()).isInstanceOf(KeeperException.NoNodeException.class);
        assertThat(out.failure().getPath()).isEqualTo(path);
        if (face == BACKGROUND) {
            assertThat(out.event().code()).isEqualTo(KeeperException.Code.NONODE);
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void getDataWatcherFiresOnChange(Face face) throws Exception {
        String path = TestClients.unique("datawatch");
        make(path, "a");
        RecordingWatcher watcher = new RecordingWatcher();
        Faces.run(face, client.getData().usingWatcher(watcher), path, BatonEventType.GET_DATA,
                BatonEvent::data).get();
        assertThat(watcher.events).isEmpty();
        client.getZooKeeper().setData(path, bytes("b"), -1);
        await().atMost(WAIT).until(() -> !watcher.of(EventType.NodeDataChanged, path).isEmpty());
    }

    // ---------------------------------------------------------------------------------------------- setData

    @ParameterizedTest
    @EnumSource(Face.class)
    void setDataWritesAndReturnsTheNewStat(Face face) throws Exception {
        String path = TestClients.unique("setdata");
        make(path, "a");
        Outcome<Stat> out = Faces.run(face, client.setData(), path, bytes("bb"), BatonEventType.SET_DATA,
                BatonEvent::stat);
        assertThat(out.get().getVersion()).isEqualTo(1);
        assertThat(out.get().getDataLength()).isEqualTo(2);
        assertThat(out.get()).isEqualTo(serverStat(path));
        assertThat(serverData(path)).isEqualTo(bytes("bb"));
        if (face == BACKGROUND) {
            assertThat(out.event().name()).isEqualTo(path);
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void setDataWithVersionChecksTheVersion(Face face) throws Exception {
        String path = TestClients.unique("setversion");
        make(path, "v0");
        assertThat(Faces.run(face, client.setData().withVersion(0), path, bytes("v1"),
                BatonEventType.SET_DATA, BatonEvent::stat).get().getVersion()).isEqualTo(1);

        Outcome<Stat> stale = Faces.run(face, client.setData().withVersion(0), path, bytes("v2"),
                BatonEventType.SET_DATA, BatonEvent::stat);
        assertThat(stale.failure()).isInstanceOf(KeeperException.BadVersionException.class);
        assertThat(stale.failure().getPath()).isEqualTo(path);
        if (face == BACKGROUND) {
            assertThat(stale.event().code()).isEqualTo(KeeperException.Code.BADVERSION);
        }
        assertThat(serverData(path)).isEqualTo(bytes("v1"));
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void setDataOfAMissingNodeFailsWithNoNode(Face face) throws Exception {
        String path = TestClients.unique("setdata-missing");
        assertThat(Faces.run(face, client.setData(), path, bytes("x"), BatonEventType.SET_DATA,
                BatonEvent::stat).failure()).isInstanceOf(KeeperException.NoNodeException.class);
        assertThat(serverStat(path)).isNull();
    }

    // ------------------------------------------------------------------------------------------ getChildren

    @ParameterizedTest
    @EnumSource(Face.class)
    void getChildrenListsNames(Face face) throws Exception {
        String path = TestClients.unique("children");
        make(path, "");
        assertThat(Faces.run(face, client.getChildren(), path, BatonEventType.CHILDREN, BatonEvent::children)
                .get()).isEmpty();
        for (String c : List.of("x", "y", "z")) {
            make(path + "/" + c, "");
        }
        Stat stat = new Stat();
        Outcome<List<String>> out = Faces.run(face, client.getChildren().storingStatIn(stat), path,
                BatonEventType.CHILDREN, BatonEvent::children);
        assertThat(out.get()).containsExactlyInAnyOrder("x", "y", "z");
        assertThat(stat.getNumChildren()).isEqualTo(3);
        assertThat(stat).isEqualTo(serverStat(path));
        if (face == BACKGROUND) {
            assertThat(out.event().name()).isEqualTo(path);
            assertThat(out.event().stat()).as("stat of the children event").isEqualTo(stat);
        }

        Outcome<List<String>> plain = Faces.run(face, client.getChildren(), path, BatonEventType.CHILDREN,
                BatonEvent::children);
        if (face == BACKGROUND) {
            assertThat(plain.event().stat()).as("stat of the children event without storingStatIn")
                    .isEqualTo(stat);
        }

        assertThat(Faces.run(face, client.getChildren(), path + "/missing", BatonEventType.CHILDREN,
                BatonEvent::children).failure()).isInstanceOf(KeeperException.NoNodeException.class);
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void getChildrenWatcherFiresOnANewChild(Face face) throws Exception {
        String path = TestClients.unique("childwatch");
        make(path, "");
        RecordingWatcher watcher = new RecordingWatcher();
        Faces.run(face, client.getChildren().usingWatcher(watcher), path, BatonEventType.CHILDREN,
                BatonEvent::children).get();
        make(path + "/kid", "");
        await().atMost(WAIT).until(() -> !watcher.of(EventType.NodeChildrenChanged, path).isEmpty());
    }

    // ----------------------------------------------------------------------------------------------- delete

    @ParameterizedTest
    @EnumSource(Face.class)
    void deleteRemovesTheNode(Face face) throws Exception {
        String path = TestClients.unique("delete");
        make(path, "");
        Outcome<Void> out = Faces.run(face, client.delete(), path, BatonEventType.DELETE, Faces::none);
        out.get();
        assertThat(serverStat(path)).isNull();
        if (face == BACKGROUND) {
            assertThat(out.event().resultCode()).isZero();
            assertThat(out.event().name()).isEqualTo(path);
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void deleteWithVersionChecksTheVersion(Face face) throws Exception {
        String path = TestClients.unique("delversion");
        make(path, "");
        client.getZooKeeper().setData(path, bytes("v1"), -1);
        KeeperException e = Faces.run(face, client.delete().withVersion(0), path, BatonEventType.DELETE,
                Faces::none).failure();
        assertThat(e).isInstanceOf(KeeperException.BadVersionException.class);
        assertThat(serverStat(path)).isNotNull();

        Faces.run(face, client.delete().withVersion(1), path, BatonEventType.DELETE, Faces::none).get();
        assertThat(serverStat(path)).isNull();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void deleteOfAMissingNodeFailsUnlessQuietly(Face face) throws Exception {
        String path = TestClients.unique("delmissing");
        KeeperException e = Faces.run(face, client.delete(), path, BatonEventType.DELETE, Faces::none)
                .failure();
        assertThat(e).isInstanceOf(KeeperException.NoNodeException.class);
        assertThat(e.getPath()).isEqualTo(path);

        Outcome<Void> quiet = Faces.run(face, client.delete().quietly(), path, BatonEventType.DELETE,
                Faces::none);
        quiet.get();
        if (face == BACKGROUND) {
            assertThat(quiet.event().resultCode()).isZero();
        }
        Faces.run(face, client.delete().quietly().deletingChildrenIfNeeded(), path, BatonEventType.DELETE,
                Faces::none).get();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void deleteOfANodeWithChildrenFailsUnlessDeletingChildren(Face face) throws Exception {
        String base = TestClients.unique("deltree");
        List<String> tree = List.of(base, base + "/a", base + "/a/a1", base + "/a/a2", base + "/b",
                base + "/b/b1", base + "/b/b1/deep", base + "/c");
        for (String p : tree) {
            make(p, "");
        }
        KeeperException e = Faces.run(face, client.delete(), base, BatonEventType.DELETE, Faces::none)
                .failure();
        assertThat(e).isInstanceOf(KeeperException.NotEmptyException.class);
        assertThat(e.getPath()).isEqualTo(base);
        for (String p : tree) {
            assertThat(serverStat(p)).as(p).isNotNull();
        }

        Faces.run(face, client.delete().deletingChildrenIfNeeded(), base, BatonEventType.DELETE, Faces::none)
                .get();
        for (String p : tree) {
            assertThat(serverStat(p)).as(p).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void deletingChildrenIfNeededChecksTheVersionOfTheTopNode(Face face) throws Exception {
        String base = TestClients.unique("deltreeversion");
        make(base, "");
        make(base + "/kid", "");
        client.getZooKeeper().setData(base, bytes("v1"), -1);
        assertThat(Faces.run(face, client.delete().deletingChildrenIfNeeded().withVersion(7), base,
                BatonEventType.DELETE, Faces::none).failure())
                .isInstanceOf(KeeperException.BadVersionException.class);
        assertThat(serverStat(base)).isNotNull();
        Faces.run(face, client.delete().deletingChildrenIfNeeded().withVersion(1), base,
                BatonEventType.DELETE, Faces::none).get();
        assertThat(serverStat(base)).isNull();
    }

    // ------------------------------------------------------------------------------------------------- sync

    @ParameterizedTest
    @EnumSource(Face.class)
    void syncCompletes(Face face) throws Exception {
        String path = TestClients.unique("sync");
        make(path, "written");
        Outcome<Void> out = Faces.run(face, client.sync(), path, BatonEventType.SYNC, Faces::none);
        out.get();
        if (face == BACKGROUND) {
            assertThat(out.event().resultCode()).isZero();
            assertThat(out.event().name()).isEqualTo(path);
        }
        assertThat(client.getData().forPath(path)).isEqualTo(bytes("written"));
    }

    // ------------------------------------------------------------------------------------------- ACL

    @ParameterizedTest
    @EnumSource(Face.class)
    void setAclAndGetAcl(Face face) throws Exception {
        String path = TestClients.unique("setacl");
        make(path, "d");
        List<ACL> readWrite = List.of(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.WRITE | ZooDefs.Perms.ADMIN,
                ZooDefs.Ids.ANYONE_ID_UNSAFE));
        Outcome<Stat> set = Faces.run(face, client.setACL().withACL(readWrite), path, BatonEventType.SET_ACL,
                BatonEvent::stat);
        assertThat(set.get().getAversion()).isEqualTo(1);
        assertThat(client.getZooKeeper().getACL(path, new Stat())).isEqualTo(readWrite);
        // The new ACL is enforced: CREATE is gone.
        assertThatThrownBy(() -> client.getZooKeeper().create(path + "/c", new byte[0],
                ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT))
                .isInstanceOf(KeeperException.NoAuthException.class);

        Stat stat = new Stat();
        Outcome<List<ACL>> got = Faces.run(face, client.getACL().storingStatIn(stat), path,
                BatonEventType.GET_ACL, BatonEvent::acls);
        assertThat(got.get()).isEqualTo(readWrite);
        assertThat(stat.getAversion()).isEqualTo(1);
        if (face == BACKGROUND) {
            assertThat(got.event().stat()).isEqualTo(stat);
        }

        KeeperException stale = Faces.run(face, client.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE)
                .withVersion(0), path, BatonEventType.SET_ACL, BatonEvent::stat).failure();
        assertThat(stale).isInstanceOf(KeeperException.BadVersionException.class);
        assertThat(client.getZooKeeper().getACL(path, new Stat())).isEqualTo(readWrite);

        // Without withACL the client's ACL provider's default (open) is set.
        Faces.run(face, client.setACL(), path, BatonEventType.SET_ACL, BatonEvent::stat).get();
        assertThat(client.getZooKeeper().getACL(path, new Stat())).isEqualTo(ZooDefs.Ids.OPEN_ACL_UNSAFE);

        assertThat(Faces.run(face, client.getACL(), path + "/missing", BatonEventType.GET_ACL,
                BatonEvent::acls).failure()).isInstanceOf(KeeperException.NoNodeException.class);
    }

    // ------------------------------------------------------------------------------------------- watchers

    @ParameterizedTest
    @EnumSource(Face.class)
    void persistentWatchFiresMoreThanOnce(Face face) throws Exception {
        String path = TestClients.unique("persistent-watch");
        make(path, "0");
        RecordingWatcher watcher = new RecordingWatcher();
        Faces.run(face, client.watchers().add().withMode(AddWatchMode.PERSISTENT).usingWatcher(watcher), path,
                BatonEventType.ADD_WATCH, Faces::none).get();
        for (int i = 1; i <= 3; i++) {
            client.getZooKeeper().setData(path, bytes(String.valueOf(i)), -1);
        }
        await().atMost(WAIT).until(() -> watcher.of(EventType.NodeDataChanged, path).size() == 3);

        // Not recursive: a grandchild's change is not reported.
        make(path + "/kid", "");
        make(path + "/kid/grandkid", "");
        client.getZooKeeper().setData(path + "/kid/grandkid", bytes("x"), -1);
        awaitQuiescence(path + "-sentinel");
        assertThat(watcher.changes()).extracting(WatchedEvent::getPath).containsOnly(path);
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void persistentRecursiveWatchFiresForDescendants(Face face) throws Exception {
        String path = TestClients.unique("recursive-watch");
        make(path, "");
        RecordingWatcher watcher = new RecordingWatcher();
        Faces.run(face, client.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE)
                .usingWatcher(watcher), path, BatonEventType.ADD_WATCH, Faces::none).get();
        make(path + "/a", "");
        make(path + "/a/b", "");
        client.getZooKeeper().setData(path + "/a/b", bytes("1"), -1);
        client.getZooKeeper().setData(path + "/a/b", bytes("2"), -1);
        client.getZooKeeper().delete(path + "/a/b", -1);
        await().atMost(WAIT).until(() -> watcher.of(EventType.NodeDeleted, path + "/a/b").size() == 1);
        assertThat(watcher.of(EventType.NodeCreated, path + "/a")).hasSize(1);
        assertThat(watcher.of(EventType.NodeCreated, path + "/a/b")).hasSize(1);
        assertThat(watcher.of(EventType.NodeDataChanged, path + "/a/b")).hasSize(2);
    }

    @Test
    void addWatchWithoutWatcherReportsToTheEventListeners() throws Exception {
        try (BatonClient client = newClient()) {
            String path = TestClients.unique("watch-listener");
            make(path, "");
            List<BatonEvent> events = new CopyOnWriteArrayList<>();
            client.getEventListenable().addListener((c, e) -> events.add(e));
            client.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE).forPath(path);
            make(path + "/x", "");
            client.getZooKeeper().setData(path + "/x", bytes("1"), -1);
            await().atMost(WAIT).until(() -> events.stream()
                    .filter(e -> e.type() == BatonEventType.WATCHED && (path + "/x").equals(e.path())).count() == 2);
        }
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void removedWatcherGetsNoMoreEvents(Face face) throws Exception {
        String path = TestClients.unique("remove-watch");
        make(path, "");
        RecordingWatcher removed = new RecordingWatcher();
        RecordingWatcher kept = new RecordingWatcher();
        client.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE).usingWatcher(removed).forPath(path);
        client.watchers().add().withMode(AddWatchMode.PERSISTENT).usingWatcher(kept).forPath(path);
        client.getZooKeeper().setData(path, bytes("1"), -1);
        await().atMost(WAIT).until(() -> removed.of(EventType.NodeDataChanged, path).size() == 1
                && kept.of(EventType.NodeDataChanged, path).size() == 1);

        Outcome<Void> out = Faces.run(face, client.watchers().remove(removed), path,
                BatonEventType.REMOVE_WATCHES, Faces::none);
        out.get();
        client.getZooKeeper().setData(path, bytes("2"), -1);
        make(path + "/kid", "");
        await().atMost(WAIT).until(() -> kept.of(EventType.NodeDataChanged, path).size() == 2);
        awaitQuiescence(path + "-sentinel");
        assertThat(removed.changes()).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void removeAllRemovesEveryWatcher(Face face) throws Exception {
        String path = TestClients.unique("remove-all");
        make(path, "");
        RecordingWatcher a = new RecordingWatcher();
        RecordingWatcher b = new RecordingWatcher();
        RecordingWatcher oneShot = new RecordingWatcher();
        client.watchers().add().usingWatcher(a).forPath(path);
        client.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE).usingWatcher(b).forPath(path);
        client.getData().usingWatcher(oneShot).forPath(path);

        Faces.run(face, client.watchers().removeAll(), path, BatonEventType.REMOVE_WATCHES, Faces::none).get();
        client.getZooKeeper().setData(path, bytes("x"), -1);
        make(path + "/kid", "");
        awaitQuiescence(path + "-sentinel");
        assertThat(a.changes()).isEmpty();
        assertThat(b.changes()).isEmpty();
        assertThat(oneShot.changes()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void removingAWatcherThatIsNotThereFailsUnlessQuietly(Face face) throws Exception {
        String path = TestClients.unique("remove-none");
        make(path, "");
        RecordingWatcher never = new RecordingWatcher();
        assertThat(Faces.run(face, client.watchers().remove(never), path, BatonEventType.REMOVE_WATCHES,
                Faces::none).failure()).isInstanceOf(KeeperException.NoWatcherException.class);
        Faces.run(face, client.watchers().remove(never).quietly(), path, BatonEventType.REMOVE_WATCHES,
                Faces::none).get();
    }

    // --------------------------------------------------------------------------------------- transactions

    @ParameterizedTest
    @EnumSource(Face.class)
    void transactionAppliesAllOperationsWithPerOperationResults(Face face) throws Exception {
        String base = TestClients.unique("txn");
        make(base, "");
        make(base + "/existing", "e0");
        make(base + "/old", "");
        TransactionOp op = client.transactionOp();
        List<BatonOp> ops = List.of(
                op.create().forPath(base + "/new", bytes("n")),
                op.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath(base + "/seq-"),
                op.setData().forPath(base + "/existing", bytes("e1")),
                op.delete().forPath(base + "/old"),
                op.check().withVersion(1).forPath(base + "/existing"));

        List<BatonTransactionResult> results = Faces.transaction(face, client, ops).get();

        assertThat(results).extracting(BatonTransactionResult::type).containsExactly(BatonOp.Type.CREATE,
                BatonOp.Type.CREATE, BatonOp.Type.SET_DATA, BatonOp.Type.DELETE, BatonOp.Type.CHECK);
        assertThat(results).extracting(BatonTransactionResult::forPath).containsExactly(base + "/new",
                base + "/seq-", base + "/existing", base + "/old", base + "/existing");
        assertThat(results).extracting(BatonTransactionResult::error).containsOnly(0);
        assertThat(results.get(0).resultPath()).isEqualTo(base + "/new");
        assertThat(results.get(1).resultPath()).matches(base + "/seq-\\d{10}");
        assertThat(results.get(2).resultStat().getVersion()).isEqualTo(1);
        assertThat(results.get(3).resultPath()).isNull();

        assertThat(serverData(base + "/new")).isEqualTo(bytes("n"));
        assertThat(serverStat(results.get(1).resultPath())).isNotNull();
        assertThat(serverData(base + "/existing")).isEqualTo(bytes("e1"));
        assertThat(serverStat(base + "/old")).isNull();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void failingTransactionThrowsTheFailingOperationsErrorAndAppliesNothing(Face face) throws Exception {
        String base = TestClients.unique("txnfail");
        make(base, "");
        make(base + "/existing", "e0");
        TransactionOp op = client.transactionOp();

        Outcome<List<BatonTransactionResult>> missing = Faces.transaction(face, client, List.of(
                op.create().forPath(base + "/new"),
                op.setData().forPath(base + "/existing", bytes("e1")),
                op.setData().forPath(base + "/missing", bytes("x")),
                op.delete().forPath(base + "/existing")));
        assertThat(missing.failure()).isInstanceOf(KeeperException.NoNodeException.class);
        if (face == BACKGROUND) {
            assertThat(missing.event().code()).isEqualTo(KeeperException.Code.NONODE);
        } else {
            assertThat(missing.failure().getPath()).as("path of the failing operation")
                    .isEqualTo(base + "/missing");
        }

        Outcome<List<BatonTransactionResult>> badVersion = Faces.transaction(face, client, List.of(
                op.create().forPath(base + "/new"),
                op.check().withVersion(5).forPath(base + "/existing"),
                op.delete().forPath(base + "/existing")));
        assertThat(badVersion.failure()).isInstanceOf(KeeperException.BadVersionException.class);

        Outcome<List<BatonTransactionResult>> exists = Faces.transaction(face, client, List.of(
                op.delete().forPath(base + "/existing"),
                op.create().forPath(base)));
        assertThat(exists.failure()).isInstanceOf(KeeperException.NodeExistsException.class);

        assertThat(serverStat(base + "/new")).isNull();
        assertThat(serverData(base + "/existing")).isEqualTo(bytes("e0"));
        assertThat(serverStat(base + "/existing").getVersion()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void transactionCreatesTtlAndContainerNodes(Face face) throws Exception {
        String base = TestClients.unique("txnmodes");
        make(base, "");
        String ttl = base + "/ttl";
        String container = base + "/container";
        TransactionOp op = client.transactionOp();
        Faces.transaction(face, client, List.of(
                op.create().withMode(CreateMode.PERSISTENT_WITH_TTL).withTtl(100).forPath(ttl),
                op.create().withMode(CreateMode.CONTAINER).forPath(container),
                op.create().forPath(container + "/child"),
                op.delete().forPath(container + "/child"))).get();
        // Both are removed by the server's checks, which proves their modes.
        await().atMost(WAIT).until(() -> serverStat(ttl) == null && serverStat(container) == null);
        assertThat(serverStat(base)).isNotNull();
    }

    @Test
    void transactionCreateChecksTtlOptionsLikeCreate() throws Exception {
        String path = TestClients.unique("txnttl");
        TransactionOp op = client.transactionOp();
        assertThatThrownBy(() -> op.create().withMode(CreateMode.PERSISTENT_WITH_TTL).forPath(path))
                .as("TTL mode without withTtl").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> op.create().withTtl(1000).forPath(path))
                .as("withTtl with a mode that has no TTL").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> op.create().withTtl(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.transaction().forOperations(List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(serverStat(path)).isNull();
    }

    // ------------------------------------------------------------------------------- background delivery

    @Test
    void inBackgroundWithoutCallbackDeliversToTheEventListeners() throws Exception {
        try (BatonClient client = newClient()) {
            String path = TestClients.unique("bg-listener");
            List<BatonEvent> events = new CopyOnWriteArrayList<>();
            BatonListener listener = (c, e) -> events.add(e);
            client.getEventListenable().addListener(listener);

            client.create().inBackground().forPath(path, bytes("x"));
            await().atMost(WAIT).until(() -> events.stream().anyMatch(e -> e.type() == BatonEventType.CREATE));
            client.getData().inBackground().forPath(path);
            client.delete().inBackground().forPath(path + "/missing");
            client.transaction().inBackground().forOperations(List.of(
                    client.transactionOp().setData().forPath(path, bytes("y"))));
            await().atMost(WAIT).until(() -> events.size() >= 4);

            BatonEvent create = events.get(0);
            assertThat(create.type()).isEqualTo(BatonEventType.CREATE);
            assertThat(create.name()).isEqualTo(path);
            assertThat(serverData(path)).isNotNull();
            BatonEvent read = events.stream().filter(e -> e.type() == BatonEventType.GET_DATA).findFirst()
                    .orElseThrow();
            assertThat(read.path()).isEqualTo(path);
            assertThat(new String(read.data(), UTF_8)).isIn("x", "y");
            BatonEvent delete = events.stream().filter(e -> e.type() == BatonEventType.DELETE).findFirst()
                    .orElseThrow();
            assertThat(delete.code()).isEqualTo(KeeperException.Code.NONODE);
            BatonEvent txn = events.stream().filter(e -> e.type() == BatonEventType.TRANSACTION).findFirst()
                    .orElseThrow();
            assertThat(txn.opResults()).hasSize(1);
        }
    }

    @Test
    void inBackgroundWithAnExecutorRunsTheCallbackThere() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-callback-thread"));
        try {
            String path = TestClients.unique("bg-executor");
            CompletableFuture<String> thread = new CompletableFuture<>();
            CompletableFuture<BatonEvent> event = new CompletableFuture<>();
            client.create().inBackground((c, e) -> {
                thread.complete(Thread.currentThread().getName());
                event.complete(e);
            }, executor).forPath(path);
            assertThat(thread.get(10, TimeUnit.SECONDS)).isEqualTo("test-callback-thread");
            assertThat(event.get().name()).isEqualTo(path);

            CompletableFuture<String> txnThread = new CompletableFuture<>();
            client.transaction().inBackground((c, e) -> txnThread.complete(Thread.currentThread().getName()),
                    executor).forOperations(List.of(client.transactionOp().check().forPath(path)));
            assertThat(txnThread.get(10, TimeUnit.SECONDS)).isEqualTo("test-callback-thread");
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aThrowingCallbackIsReportedAsAnUnhandledError() throws Exception {
        try (BatonClient client = newClient()) {
            String path = TestClients.unique("bg-throws");
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            client.getUnhandledErrorListenable().addListener((message, e) -> errors.add(e));
            IllegalStateException boom = new IllegalStateException("boom");
            client.create().inBackground((c, e) -> {
                throw boom;
            }).forPath(path);
            await().atMost(WAIT).until(() -> errors.contains(boom));
            assertThat(serverStat(path)).isNotNull();
        }
    }

    @Test
    void callbackGetsTheClientThatRanTheOperation() throws Exception {
        try (BatonClient client = newClient()) {
            CompletableFuture<BatonClient> seen = new CompletableFuture<>();
            client.sync().inBackground((c, e) -> seen.complete(c)).forPath("/");
            assertThat(seen.get(10, TimeUnit.SECONDS)).isSameAs(client);
        }
    }

    @Test
    void eachFaceRunsTheOperationExactlyOnce() throws Exception {
        // A check of the Faces helper itself.
        String parent = TestClients.unique("faces");
        make(parent, "");
        List<String> made = new ArrayList<>();
        for (Face face : Face.values()) {
            made.add(Faces.run(face, client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL), parent + "/f-",
                    bytes(face.name()), BatonEventType.CREATE, Faces::created).get());
        }
        assertThat(client.getZooKeeper().getChildren(parent, false)).hasSize(3);
        for (int i = 0; i < made.size(); i++) {
            assertThat(serverData(made.get(i))).isEqualTo(bytes(Face.values()[i].name()));
        }
    }
}
