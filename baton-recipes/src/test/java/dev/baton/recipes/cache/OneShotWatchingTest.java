package dev.baton.recipes.cache;

import static dev.baton.recipes.cache.CacheTesting.bytes;
import static dev.baton.recipes.cache.CacheTesting.cacheTree;
import static dev.baton.recipes.cache.CacheTesting.serverTree;
import static dev.baton.recipes.cache.CacheTesting.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.ServerFeature;
import dev.baton.UnsupportedServerFeatureException;
import dev.baton.recipes.TestResources;
import dev.baton.recipes.cache.CacheTesting.Recording;
import dev.baton.recipes.nodes.GroupMember;
import dev.baton.state.ConnectionState;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AddWatchMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The caches, {@link GroupMember} and {@link PersistentWatcher} on a ZooKeeper 3.5 server, which has no persistent
 * watches: {@link BatonCache} follows the tree with one-shot watches ({@link OneShotWatching}) and keeps its
 * events and semantics; a recursive {@link PersistentWatcher} is refused at {@code start()}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Tag("slow")
class OneShotWatchingTest {
    private static ZooKeeperEnsemble server;

    /**
     * Clients go through the kit's proxy (for the partition test) and do not track the ensemble: a tracking
     * client would learn the server's own address from its configuration and reconnect there, which a create in
     * flight would feel as a connection loss.
     */
    @RegisterExtension
    final TestResources resources = new TestResources(() -> server.connectString());

    @BeforeAll
    static void startServer() {
        server = ZooKeeperEnsemble.builder().servers(1).serverVersion("3.5").clientProxies(true)
                .maxSessionTimeout(Duration.ofSeconds(20)).build().start();
        assertThat(server.serverVersion()).startsWith("3.5.");
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private BatonCache started(BatonClient client, String path, Recording recording, int maxDepth) throws Exception {
        BatonCache cache = resources.open(BatonCache.build(client, path, maxDepth));
        cache.listenable().addListener(recording);
        cache.startAsync().get(10, TimeUnit.SECONDS);
        return cache;
    }

    @Test
    void initialLoadThenCreationsChangesAndDeletionsInTheirOrder() throws Exception {
        BatonClient client = resources.untrackedClient();
        client.create().creatingParentsIfNeeded().forPath("/load/a/x", bytes("x"));
        client.setData().forPath("/load/a", bytes("1"));
        client.create().forPath("/load/b", bytes("b"));
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        client.getUnhandledErrorListenable().addListener((message, e) -> errors.add(e));
        Recording recording = new Recording();
        BatonCache cache = started(client, "/load", recording, Integer.MAX_VALUE);

        assertThat(recording.initialized).isTrue();
        List<String> load = recording.briefs();
        assertThat(load).containsExactlyInAnyOrder("NODE_CREATED /load", "NODE_CREATED /load/a",
                "NODE_CREATED /load/a/x", "NODE_CREATED /load/b");
        assertThat(load.indexOf("NODE_CREATED /load/a")).isLessThan(load.indexOf("NODE_CREATED /load/a/x"));
        assertThat(cache.size()).isEqualTo(4);
        assertThat(text(cache.get("/load/a").orElseThrow().data())).isEqualTo("1");

        int from = recording.events.size();
        client.setData().forPath("/load/a", bytes("2"));
        client.create().forPath("/load/c", bytes("c"));
        client.delete().forPath("/load/a/x");
        await().until(() -> recording.events.size() >= from + 3);
        assertThat(recording.briefsFrom(from)).containsExactly("NODE_CHANGED /load/a", "NODE_CREATED /load/c",
                "NODE_DELETED /load/a/x");
        assertThat(text(recording.events.get(from).data().data())).isEqualTo("2");

        client.create().forPath("/load/c/d", bytes("d")); // a child of a node new to the cache: watched too
        await().until(() -> cache.get("/load/c/d").isPresent());
        client.setData().forPath("/load/c/d", bytes("d2"));
        await().until(() -> recording.events.size() >= from + 5);
        assertThat(recording.briefsFrom(from + 3)).containsExactly("NODE_CREATED /load/c/d",
                "NODE_CHANGED /load/c/d");
        assertThat(recording.replay()).isEqualTo(serverTree(client, "/load"));
        assertThat(cacheTree(cache)).isEqualTo(serverTree(client, "/load"));
        assertThat(errors).as("the server's refusal of the persistent watch is no failure").isEmpty();
    }

    @Test
    void aNodeDeletedAndCreatedAgainIsReportedAsBoth() throws Exception {
        BatonClient client = resources.untrackedClient();
        client.create().creatingParentsIfNeeded().forPath("/again/n", bytes("1"));
        Recording recording = new Recording();
        BatonCache cache = started(client, "/again", recording, Integer.MAX_VALUE);
        long firstCzxid = cache.get("/again/n").orElseThrow().stat().getCzxid();

        int from = recording.events.size();
        client.delete().forPath("/again/n");
        client.create().forPath("/again/n", bytes("2"));
        await().until(() -> recording.events.size() >= from + 2);
        assertThat(recording.briefsFrom(from)).containsExactly("NODE_DELETED /again/n", "NODE_CREATED /again/n");
        ChildData now = cache.get("/again/n").orElseThrow();
        assertThat(text(now.data())).isEqualTo("2");
        assertThat(now.stat().getCzxid()).isGreaterThan(firstCzxid);

        // The root too: deleted with its child, then created again (an existence watch tells it).
        int before = recording.events.size();
        client.delete().deletingChildrenIfNeeded().forPath("/again");
        client.create().forPath("/again", bytes("r"));
        await().until(() -> recording.events.size() >= before + 3);
        assertThat(recording.briefsFrom(before)).containsExactly("NODE_DELETED /again/n", "NODE_DELETED /again",
                "NODE_CREATED /again");
        client.create().forPath("/again/m");
        await().until(() -> cache.get("/again/m").isPresent());
        assertThat(recording.replay()).isEqualTo(serverTree(client, "/again"));
    }

    @Test
    void aRootCreatedAfterTheStartIsLoaded() throws Exception {
        BatonClient client = resources.untrackedClient();
        Recording recording = new Recording();
        BatonCache cache = started(client, "/later", recording, Integer.MAX_VALUE);
        assertThat(cache.size()).isZero();
        client.create().creatingParentsIfNeeded().forPath("/later/a/b", bytes("b"));
        await().until(() -> cache.size() == 3);
        assertThat(recording.briefs()).containsExactly("NODE_CREATED /later", "NODE_CREATED /later/a",
                "NODE_CREATED /later/a/b");
    }

    @Test
    void maxDepthLimitsWhatIsReadAndWatched() throws Exception {
        BatonClient client = resources.untrackedClient();
        client.create().creatingParentsIfNeeded().forPath("/depth/a/b", bytes("deep"));
        Recording recording = new Recording();
        BatonCache cache = started(client, "/depth", recording, 1);
        assertThat(recording.briefs()).containsExactly("NODE_CREATED /depth", "NODE_CREATED /depth/a");

        client.setData().forPath("/depth/a/b", bytes("deeper"));
        client.create().creatingParentsIfNeeded().forPath("/depth/c/d");
        client.setData().forPath("/depth/a", bytes("a"));
        client.create().forPath("/depth/z"); // the last change: once reported, every earlier one has been
        await().until(() -> cache.get("/depth/z").isPresent());
        assertThat(recording.briefs()).containsExactly("NODE_CREATED /depth", "NODE_CREATED /depth/a",
                "NODE_CREATED /depth/c", "NODE_CHANGED /depth/a", "NODE_CREATED /depth/z");
        assertThat(cache.stream().map(ChildData::path)).containsExactly("/depth", "/depth/a", "/depth/c",
                "/depth/z");
    }

    @Test
    void dataLessCachesStatsOnly() throws Exception {
        BatonClient client = resources.untrackedClient();
        client.create().creatingParentsIfNeeded().forPath("/stats/a", bytes("1"));
        BatonCache cache = resources.open(BatonCache.build(client, "/stats", BatonCache.Option.DATA_LESS));
        cache.startAsync().get(10, TimeUnit.SECONDS);
        assertThat(cache.get("/stats/a").orElseThrow().data()).isNull();
        client.setData().forPath("/stats/a", bytes("2"));
        await().until(() -> cache.get("/stats/a").orElseThrow().stat().getVersion() == 1);
        client.create().forPath("/stats/b");
        await().until(() -> cache.get("/stats/b").isPresent());
    }

    @Test
    void followsTheTreeAcrossAReconnectAndASessionExpiry() throws Exception {
        BatonClient client = resources.untrackedClient();
        BatonClient other = resources.untrackedClient();
        client.create().creatingParentsIfNeeded().forPath("/conn/a", bytes("1"));
        Recording recording = new Recording();
        BatonCache cache = started(client, "/conn", recording, Integer.MAX_VALUE);
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        client.getConnectionStateListenable().addListener((c, s) -> states.add(s));

        server.restart(1); // the same session, after a reconnect: the client re-sends its one-shot watches
        await().atMost(Duration.ofSeconds(30)).until(() -> states.contains(ConnectionState.RECONNECTED));
        other.setData().forPath("/conn/a", bytes("2"));
        other.create().forPath("/conn/b", bytes("b"));
        await().until(() -> cache.get("/conn/b").isPresent()
                && text(cache.get("/conn/a").orElseThrow().data()).equals("2"));

        states.clear();
        server.expireSession(client.getZooKeeper()); // a new session: the resync sets every watch again
        await().atMost(Duration.ofSeconds(30)).until(() -> states.contains(ConnectionState.LOST)
                && states.lastIndexOf(ConnectionState.RECONNECTED) > states.indexOf(ConnectionState.LOST));
        other.delete().forPath("/conn/b");
        other.setData().forPath("/conn/a", bytes("3"));
        other.create().creatingParentsIfNeeded().forPath("/conn/c/d", bytes("d"));
        await().until(() -> cache.get("/conn/c/d").isPresent() && cache.get("/conn/b").isEmpty()
                && text(cache.get("/conn/a").orElseThrow().data()).equals("3"));
        assertThat(recording.replay()).isEqualTo(serverTree(client, "/conn")); // nothing lost, nothing twice
        assertThat(cacheTree(cache)).isEqualTo(serverTree(client, "/conn"));
    }

    @Test
    void whatChangedWhileCutOffIsReportedOnceBack() throws Exception {
        BatonClient client = resources.untrackedClient(); // through the kit's proxy
        BatonClient direct = resources.open(CacheTesting.newClient(server.directConnectString()));
        client.create().creatingParentsIfNeeded().forPath("/cut/n", bytes("1"));
        client.create().forPath("/cut/m", bytes("1"));
        Recording recording = new Recording();
        BatonCache cache = started(client, "/cut", recording, Integer.MAX_VALUE);
        long firstCzxid = cache.get("/cut/n").orElseThrow().stat().getCzxid();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        client.getConnectionStateListenable().addListener((c, s) -> states.add(s));

        int from = recording.events.size();
        server.partitionClient(1, TcpProxy.Mode.DROP);
        try {
            await().until(() -> states.contains(ConnectionState.SUSPENDED));
            direct.delete().forPath("/cut/n");
            direct.create().forPath("/cut/n", bytes("2")); // deleted and created again unseen
            direct.setData().forPath("/cut/m", bytes("2"));
            direct.create().forPath("/cut/new", bytes("new"));
        } finally {
            server.healClient(1);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> states.contains(ConnectionState.RECONNECTED));
        await().until(() -> recording.events.size() >= from + 4);
        List<String> after = recording.briefsFrom(from);
        assertThat(after).containsExactlyInAnyOrder("NODE_DELETED /cut/n", "NODE_CREATED /cut/n",
                "NODE_CHANGED /cut/m", "NODE_CREATED /cut/new");
        assertThat(after.indexOf("NODE_DELETED /cut/n")).isLessThan(after.indexOf("NODE_CREATED /cut/n"));
        assertThat(cache.get("/cut/n").orElseThrow().stat().getCzxid()).isGreaterThan(firstCzxid);
        assertThat(recording.replay()).isEqualTo(serverTree(client, "/cut"));

        direct.create().forPath("/cut/n/child"); // watches set again by the resync: later changes still come
        await().until(() -> cache.get("/cut/n/child").isPresent());
        assertThat(recording.replay()).isEqualTo(serverTree(client, "/cut"));
    }

    @Test
    void classicCachesReportTheirEvents() throws Exception {
        BatonClient client = resources.untrackedClient();
        client.create().creatingParentsIfNeeded().forPath("/classic/a", bytes("1"));
        List<String> children = new CopyOnWriteArrayList<>();
        PathChildrenCache pathChildren = resources.open(new PathChildrenCache(client, "/classic", true));
        pathChildren.getListenable().addListener((c, e) -> children.add(e.type()
                + (e.data() == null ? "" : " " + e.data().path() + "=" + text(e.data().data()))));
        List<String> tree = new CopyOnWriteArrayList<>();
        TreeCache treeCache = resources.open(TreeCache.newBuilder(client, "/classic").build());
        treeCache.getListenable().addListener((c, e) -> tree.add(e.type()
                + (e.data() == null ? "" : " " + e.data().path())));
        NodeCache node = resources.open(new NodeCache(client, "/classic/a"));
        List<String> nodeSeen = new CopyOnWriteArrayList<>();
        node.getListenable().addListener(() -> {
            ChildData d = node.getCurrentData();
            nodeSeen.add(d == null ? "none" : text(d.data()));
        });
        pathChildren.start(PathChildrenCache.StartMode.POST_INITIALIZED_EVENT);
        treeCache.start();
        node.start(true);
        assertThat(node.getCurrentData()).isNotNull();
        await().until(() -> children.contains("INITIALIZED") && tree.contains("INITIALIZED"));

        client.setData().forPath("/classic/a", bytes("2"));
        client.create().forPath("/classic/b", bytes("b"));
        client.delete().forPath("/classic/a");
        await().until(() -> children.size() == 5 && tree.size() == 6 && nodeSeen.size() == 2);
        assertThat(children).containsExactly("CHILD_ADDED /classic/a=1", "INITIALIZED", "CHILD_UPDATED /classic/a=2",
                "CHILD_ADDED /classic/b=b", "CHILD_REMOVED /classic/a=2");
        assertThat(tree).containsExactly("NODE_ADDED /classic", "NODE_ADDED /classic/a", "INITIALIZED",
                "NODE_UPDATED /classic/a", "NODE_ADDED /classic/b", "NODE_REMOVED /classic/a");
        assertThat(nodeSeen).containsExactly("2", "none");
        assertThat(pathChildren.getCurrentData()).extracting(ChildData::path).containsExactly("/classic/b");
        assertThat(treeCache.getCurrentChildren("/classic")).containsOnlyKeys("b");
    }

    @Test
    void groupMembersSeeEachOther() throws Exception {
        BatonClient client = resources.untrackedClient();
        BatonClient other = resources.untrackedClient();
        GroupMember one = resources.open(new GroupMember(client, "/group", "one", bytes("1")));
        GroupMember two = new GroupMember(other, "/group", "two", bytes("2"));
        one.start();
        two.start();
        await().until(() -> one.getCurrentMembers().keySet().equals(Set.of("one", "two"))
                && two.getCurrentMembers().keySet().equals(Set.of("one", "two")));
        two.setThisData(bytes("2b"));
        await().until(() -> "2b".equals(text(one.getCurrentMembers().get("two"))));
        two.close();
        await().until(() -> one.getCurrentMembers().keySet().equals(Set.of("one")));
        Map<String, byte[]> members = one.getCurrentMembers();
        assertThat(text(members.get("one"))).isEqualTo("1");
    }

    @Test
    void aRecursivePersistentWatcherIsRefusedAtStartLeavingNothingRegistered() throws Exception {
        BatonClient client = resources.untrackedClient();
        PersistentWatcher watcher = new PersistentWatcher(client, "/refused", true);
        List<Object> heard = new CopyOnWriteArrayList<>();
        watcher.getListenable().addListener(heard::add);
        assertThatThrownBy(watcher::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("PersistentWatcher /refused cannot watch recursively: persistent and recursive watches "
                        + "(addWatch) need ZooKeeper 3.6.0 or newer; the server at " + server.connectString(1)
                        + " runs ZooKeeper " + server.serverVersion())
                .cause().isInstanceOfSatisfying(UnsupportedServerFeatureException.class,
                        e -> assertThat(e.feature()).isEqualTo(ServerFeature.PERSISTENT_WATCHES));
        assertThatThrownBy(watcher::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
        watcher.close(); // nothing to undo

        // Nothing on the server, and the client still connected: a change below the path reaches no one.
        assertThat(server.fourLetterWord(1, "wchp").orElseThrow()).doesNotContain("/refused");
        client.create().creatingParentsIfNeeded().forPath("/refused/a");
        assertThat(client.isConnected()).isTrue();
        assertThatThrownBy(() -> client.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE)
                .forPath("/refused")).isInstanceOf(UnsupportedServerFeatureException.class);
        assertThat(heard).isEmpty();
    }
}
