package dev.baton.recipes.cache;

import static dev.baton.recipes.cache.CacheTesting.bytes;
import static dev.baton.recipes.cache.CacheTesting.cacheTree;
import static dev.baton.recipes.cache.CacheTesting.serverTree;
import static dev.baton.recipes.cache.CacheTesting.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.BatonOp;
import dev.baton.recipes.cache.BatonCacheListener.Type;
import dev.baton.recipes.cache.CacheTesting.Recording;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
@Tag("slow")
class BatonCacheTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);
    private BatonClient client;
    private BatonClient writer;

    @BeforeEach
    void clients() throws InterruptedException {
        client = resources.client();
        writer = resources.client();
    }

    private <T extends AutoCloseable> T open(T resource) {
        return resources.open(resource);
    }

    private BatonCache cache(BatonClient c, String path, BatonCache.Option... options) {
        return open(BatonCache.build(c, path, options));
    }

    @Test
    void reportsInitialLoadThenEveryCreateChangeAndDelete() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/events/a", bytes("a1"));
        writer.create().forPath("/events/b", bytes("b1"));
        BatonCache cache = cache(client, "/events");
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        cache.start();
        await().until(() -> rec.initialized);
        assertThat(rec.briefs()).containsExactlyInAnyOrder("NODE_CREATED /events", "NODE_CREATED /events/a",
                "NODE_CREATED /events/b");
        assertThat(rec.briefs().get(0)).isEqualTo("NODE_CREATED /events"); // a parent before its children
        assertThat(rec.initializedAt).isEqualTo(3);
        assertThat(cache.size()).isEqualTo(3);
        assertThat(cache.get("/events/a")).map(d -> text(d.data())).hasValue("a1");
        assertThat(cache.get("/nope")).isEmpty();
        assertThat(cache.stream().map(ChildData::path)).containsExactly("/events", "/events/a", "/events/b");

        writer.create().forPath("/events/c", bytes("c1"));
        writer.setData().forPath("/events/a", bytes("a2"));
        writer.create().forPath("/events/c/deep", bytes("d1"));
        await().until(() -> rec.events.size() == 6);
        writer.delete().forPath("/events/b");
        await().until(() -> rec.events.size() == 7);
        assertThat(rec.briefsFrom(3)).containsExactly("NODE_CREATED /events/c", "NODE_CHANGED /events/a",
                "NODE_CREATED /events/c/deep", "NODE_DELETED /events/b");
        CacheTesting.Event changed = rec.events.get(4);
        assertThat(text(changed.oldData().data())).isEqualTo("a1");
        assertThat(text(changed.data().data())).isEqualTo("a2");
        assertThat(changed.data().stat().getVersion()).isEqualTo(1);
        CacheTesting.Event deleted = rec.events.get(6);
        assertThat(deleted.data()).isNull();
        assertThat(text(deleted.oldData().data())).isEqualTo("b1");
        assertThat(cache.size()).isEqualTo(4);
        assertThat(cacheTree(cache)).isEqualTo(serverTree(writer, "/events"));

        // The root itself: deleted with everything below it, then created again.
        writer.delete().deletingChildrenIfNeeded().forPath("/events");
        await().until(() -> cache.size() == 0);
        writer.create().forPath("/events", bytes("again"));
        await().until(() -> cache.size() == 1);
        // The cache is updated before its listeners hear of it: wait for what they heard.
        await().untilAsserted(() -> assertThat(rec.briefsFrom(7)).containsExactlyInAnyOrder(
                "NODE_DELETED /events/c/deep", "NODE_DELETED /events/c", "NODE_DELETED /events/a",
                "NODE_DELETED /events", "NODE_CREATED /events"));
        List<String> last = rec.briefsFrom(7);
        assertThat(last.indexOf("NODE_DELETED /events/c/deep")).isLessThan(last.indexOf("NODE_DELETED /events/c"));
        assertThat(last.subList(3, 5)).containsExactly("NODE_DELETED /events", "NODE_CREATED /events");
        assertThat(rec.replay()).isEqualTo(cacheTree(cache));
    }

    @Test
    void startsOnAMissingPathAndSeesItCreated() throws Exception {
        BatonCache cache = cache(client, "/later/x");
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        cache.start();
        await().until(() -> rec.initialized);
        assertThat(cache.size()).isZero();
        writer.create().creatingParentsIfNeeded().forPath("/later/x/y", bytes("y"));
        await().until(() -> cache.size() == 2);
        await().untilAsserted(() -> assertThat(rec.briefs()).containsExactly("NODE_CREATED /later/x",
                "NODE_CREATED /later/x/y"));
        assertThat(cache.get("/later")).isEmpty(); // above the root: not cached
    }

    @Test
    void builderPartsAndAfterInitialized() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/parts/old", bytes("o"));
        BatonCache cache = cache(client, "/parts");
        List<String> all = new CopyOnWriteArrayList<>();
        List<String> later = new CopyOnWriteArrayList<>();
        cache.listenable().addListener(BatonCacheListener.builder()
                .forCreates(d -> all.add("create " + d.path()))
                .forChanges((o, d) -> all.add("change " + text(o.data()) + "->" + text(d.data())))
                .forDeletes(o -> all.add("delete " + o.path()))
                .forAll(new BatonCacheListener() {
                    @Override
                    public void event(Type type, ChildData oldData, ChildData data) {
                    }

                    @Override
                    public void initialized() {
                        all.add("initialized");
                    }
                })
                .build());
        cache.listenable().addListener(BatonCacheListener.builder().afterInitialized()
                .forAll((type, o, d) -> later.add(type + " " + (d != null ? d : o).path())).build());
        assertThatThrownBy(() -> BatonCacheListener.builder().afterInitialized().afterInitialized())
                .isInstanceOf(IllegalStateException.class);
        cache.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> all.contains("initialized"));
        writer.setData().forPath("/parts/old", bytes("o2"));
        // A change is reported once the new data is read: had the node gone by then, only its deletion would be.
        await().atMost(Duration.ofSeconds(30)).until(() -> all.contains("change o->o2"));
        writer.create().forPath("/parts/new");
        writer.delete().forPath("/parts/old");
        // At least: one more would otherwise go unseen, and the assertions below show what came.
        await().atMost(Duration.ofSeconds(30)).until(() -> later.size() >= 3 && all.size() >= 6);
        assertThat(later).hasSize(3);
        assertThat(all).hasSize(6);
        // A creation is reported once its data is read, so a deletion notified meanwhile may come first.
        assertThat(all.subList(0, 4)).containsExactly("create /parts", "create /parts/old", "initialized",
                "change o->o2");
        assertThat(all.subList(4, 6)).containsExactlyInAnyOrder("create /parts/new", "delete /parts/old");
        assertThat(later.get(0)).isEqualTo("NODE_CHANGED /parts/old");
        assertThat(later.subList(1, 3)).containsExactlyInAnyOrder("NODE_CREATED /parts/new",
                "NODE_DELETED /parts/old");
    }

    @Test
    void singleNodeCacheWithNodeCacheListener() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/single/child", bytes("c"));
        writer.setData().forPath("/single", bytes("s1"));
        BatonCache cache = cache(client, "/single", BatonCache.Option.SINGLE_NODE_CACHE);
        AtomicInteger calls = new AtomicInteger();
        Recording rec = new Recording();
        cache.listenable().addListener(BatonCacheListener.builder().forNodeCache(calls::incrementAndGet).build());
        cache.listenable().addListener(rec);
        cache.start();
        await().until(() -> rec.initialized);
        assertThat(cache.size()).isEqualTo(1);
        assertThat(calls).hasValue(1);
        writer.create().forPath("/single/other"); // children are not cached
        writer.setData().forPath("/single", bytes("s2"));
        await().until(() -> calls.get() == 2);
        writer.delete().deletingChildrenIfNeeded().forPath("/single");
        await().until(() -> calls.get() == 3);
        writer.create().forPath("/single", bytes("s3"));
        await().until(() -> calls.get() == 4);
        // rec is called after the node cache listener: wait for it too.
        await().untilAsserted(() -> assertThat(rec.briefs()).containsExactly("NODE_CREATED /single",
                "NODE_CHANGED /single", "NODE_DELETED /single", "NODE_CREATED /single"));
        assertThat(cache.get("/single")).map(d -> text(d.data())).hasValue("s3");
        assertThat(cache.size()).isEqualTo(1);
    }

    @Test
    void dataLessKeepsStatsOnlyAndDoNotClearOnCloseKeepsTheNodes() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/dl/a", bytes("a"));
        BatonCache cache = cache(client, "/dl", BatonCache.Option.DATA_LESS,
                BatonCache.Option.DO_NOT_CLEAR_ON_CLOSE);
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        cache.start();
        await().until(() -> rec.initialized);
        writer.setData().forPath("/dl/a", bytes("a2"));
        await().until(() -> rec.events.size() == 3);
        assertThat(rec.events.get(2).type()).isEqualTo(Type.NODE_CHANGED);
        assertThat(cache.get("/dl/a").orElseThrow().data()).isNull();
        assertThat(cache.get("/dl/a").orElseThrow().stat().getVersion()).isEqualTo(1);
        cache.close();
        assertThat(cache.size()).isEqualTo(2);

        BatonCache cleared = BatonCache.build(client, "/dl");
        cleared.start();
        await().until(() -> cleared.size() == 2);
        cleared.close();
        assertThat(cleared.size()).isZero();
    }

    @Test
    void pathChildrenShapeWithConnectionEvents() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/pc/one", bytes("1"));
        writer.create().forPath("/pc/one/grandchild");
        BatonCache cache = cache(client, "/pc");
        List<String> seen = new CopyOnWriteArrayList<>();
        cache.listenable().addListener(BatonCacheListener.builder().forPathChildrenCache("/pc", client, (c, e) -> {
            assertThat(c).isSameAs(client);
            seen.add(e.type() + (e.data() != null ? " " + e.data().path() + "=" + text(e.data().data()) : ""));
        }).build());
        cache.start();
        await().until(() -> seen.contains("INITIALIZED"));
        assertThat(seen).containsExactly("CHILD_ADDED /pc/one=1", "INITIALIZED");

        // One write at a time: events of different paths are reported once their data is read, so writes in
        // quick succession to different paths may be reported in another order (each path keeps its own order).
        writer.create().forPath("/pc/two", bytes("2"));
        await().until(() -> seen.size() == 3);
        writer.setData().forPath("/pc/one", bytes("1b"));
        await().until(() -> seen.size() == 4);
        writer.setData().forPath("/pc/one/grandchild", bytes("ignored"));
        writer.delete().forPath("/pc/two");
        await().until(() -> seen.size() == 5);

        zk.server().stop();
        await().until(() -> seen.contains("CONNECTION_SUSPENDED"));
        zk.server().restart();
        await().until(() -> seen.contains("CONNECTION_RECONNECTED"));
        zk.server().expireSession(client.getZooKeeper());
        await().until(() -> seen.contains("CONNECTION_LOST"));
        await().until(() -> seen.stream().filter("CONNECTION_RECONNECTED"::equals).count() == 2);
        writer.create().forPath("/pc/three", bytes("3"));
        await().until(() -> seen.get(seen.size() - 1).equals("CHILD_ADDED /pc/three=3"));
        assertThat(seen.subList(2, 5)).containsExactly("CHILD_ADDED /pc/two=2", "CHILD_UPDATED /pc/one=1b",
                "CHILD_REMOVED /pc/two=2");
        // Nothing reported twice across the reconnects: only connection events between the two halves.
        assertThat(seen.subList(5, seen.size() - 1)).allMatch(s -> s.startsWith("CONNECTION_"))
                .contains("CONNECTION_SUSPENDED", "CONNECTION_RECONNECTED", "CONNECTION_LOST");
    }

    @Test
    void treeShape() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/tree/a/b", bytes("b"));
        BatonCache cache = cache(client, "/tree");
        List<TreeCacheEvent> seen = new CopyOnWriteArrayList<>();
        cache.listenable().addListener(BatonCacheListener.builder()
                .forTreeCache(client, (c, e) -> seen.add(e)).build());
        cache.start();
        await().until(() -> seen.stream().anyMatch(e -> e.type() == TreeCacheEvent.Type.INITIALIZED));
        writer.setData().forPath("/tree/a/b", bytes("b2"));
        // A change is reported with the data read after it; a delete right behind it could win that read.
        await().until(() -> seen.size() == 5);
        writer.delete().forPath("/tree/a/b");
        await().until(() -> seen.size() == 6);
        zk.server().stop();
        await().until(() -> seen.size() == 7);
        zk.server().restart();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> seen.stream().anyMatch(e -> e.type() == TreeCacheEvent.Type.CONNECTION_RECONNECTED));
        assertThat(seen).hasSize(8);
        assertThat(seen).extracting(TreeCacheEvent::type).containsExactly(TreeCacheEvent.Type.NODE_ADDED,
                TreeCacheEvent.Type.NODE_ADDED, TreeCacheEvent.Type.NODE_ADDED, TreeCacheEvent.Type.INITIALIZED,
                TreeCacheEvent.Type.NODE_UPDATED, TreeCacheEvent.Type.NODE_REMOVED,
                TreeCacheEvent.Type.CONNECTION_SUSPENDED, TreeCacheEvent.Type.CONNECTION_RECONNECTED);
        TreeCacheEvent updated = seen.get(4);
        assertThat(text(updated.data().data())).isEqualTo("b2");
        assertThat(text(updated.oldData().data())).isEqualTo("b");
        TreeCacheEvent removed = seen.get(5);
        assertThat(removed.data().path()).isEqualTo("/tree/a/b");
        assertThat(removed.oldData()).isNull();
    }

    @Test
    void deleteAndRecreateWhilePartitionedIsReportedOnce() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/part/x", bytes("same"));
        writer.create().forPath("/part/y", bytes("y1"));
        writer.create().forPath("/part/w", bytes("w"));
        writer.create().creatingParentsIfNeeded().forPath("/part/sub/leaf", bytes("leaf1"));
        try (TcpProxy proxy = TcpProxy.start("cache", zk.port())) {
            BatonClient cut = open(CacheTesting.newClient(proxy.address()));
            BatonCache cache = cache(cut, "/part");
            Recording rec = new Recording();
            cache.listenable().addListener(rec);
            List<String> states = new CopyOnWriteArrayList<>();
            cut.getConnectionStateListenable().addListener((c, s) -> states.add(s.name()));
            cache.start();
            await().until(() -> rec.initialized);
            long oldCzxid = cache.get("/part/x").orElseThrow().stat().getCzxid();
            int before = rec.events.size();

            proxy.partition(TcpProxy.Mode.DROP);
            await().until(() -> states.contains("SUSPENDED"));
            // Same path, same data, same version 0: only the czxid tells the new node from the old one.
            writer.delete().forPath("/part/x");
            writer.create().forPath("/part/x", bytes("same"));
            writer.setData().forPath("/part/y", bytes("y2"));
            writer.delete().forPath("/part/w");
            writer.create().forPath("/part/z", bytes("z"));
            writer.delete().deletingChildrenIfNeeded().forPath("/part/sub");
            writer.create().creatingParentsIfNeeded().forPath("/part/sub/leaf", bytes("leaf2"));
            proxy.heal();
            await().until(() -> states.contains("RECONNECTED"));
            await().until(() -> cacheTree(cache).equals(serverTree(writer, "/part")));

            // The cache is updated before its listeners hear of it: wait for what they heard.
            await().untilAsserted(() -> assertThat(rec.briefsFrom(before)).containsExactlyInAnyOrder(
                    "NODE_DELETED /part/x", "NODE_CREATED /part/x", "NODE_CHANGED /part/y", "NODE_DELETED /part/w",
                    "NODE_CREATED /part/z", "NODE_DELETED /part/sub/leaf", "NODE_DELETED /part/sub",
                    "NODE_CREATED /part/sub", "NODE_CREATED /part/sub/leaf"));
            List<String> after = rec.briefsFrom(before);
            assertThat(after.indexOf("NODE_DELETED /part/x")).isLessThan(after.indexOf("NODE_CREATED /part/x"));
            assertThat(after.indexOf("NODE_DELETED /part/sub/leaf"))
                    .isLessThan(after.indexOf("NODE_DELETED /part/sub"));
            assertThat(after.indexOf("NODE_CREATED /part/sub")).isLessThan(after.indexOf("NODE_CREATED /part/sub/leaf"));
            assertThat(cache.get("/part/x").orElseThrow().stat().getCzxid()).isGreaterThan(oldCzxid);
            assertThat(rec.replay()).isEqualTo(cacheTree(cache));
        }
    }

    @Test
    void sessionExpiryRebuildsTheCache() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/exp/keep", bytes("k"));
        writer.create().forPath("/exp/change", bytes("c1"));
        writer.create().forPath("/exp/gone", bytes("g"));
        BatonCache cache = cache(client, "/exp");
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        List<String> states = new CopyOnWriteArrayList<>();
        client.getConnectionStateListenable().addListener((c, s) -> states.add(s.name()));
        cache.start();
        await().until(() -> rec.initialized);
        int before = rec.events.size();
        zk.server().expireSession(client.getZooKeeper());
        writer.setData().forPath("/exp/change", bytes("c2"));
        writer.delete().forPath("/exp/gone");
        await().until(() -> states.contains("RECONNECTED"));
        await().until(() -> cacheTree(cache).equals(serverTree(writer, "/exp")));
        // The watch is back on the new session.
        writer.create().forPath("/exp/new", bytes("n"));
        await().until(() -> cache.get("/exp/new").isPresent());
        await().untilAsserted(() -> assertThat(rec.briefsFrom(before)).containsExactlyInAnyOrder(
                "NODE_CHANGED /exp/change", "NODE_DELETED /exp/gone", "NODE_CREATED /exp/new"));
        assertThat(rec.replay()).isEqualTo(cacheTree(cache));
        assertThat(states).contains("LOST");
    }

    @Test
    void hundredThousandChildren() throws Exception {
        // Children named c00000..c99999: 100,000 * (4 + 6) bytes is one getChildren answer just under 1 MB.
        int count = 100_000;
        writer.create().forPath("/many");
        List<CompletableFuture<?>> batches = new ArrayList<>();
        for (int start = 0; start < count; start += 1_000) {
            List<BatonOp> ops = new ArrayList<>();
            for (int i = start; i < start + 1_000; i++) {
                ops.add(writer.transactionOp().create().forPath(String.format("/many/c%05d", i)));
            }
            batches.add(writer.transaction().forOperationsAsync(ops));
        }
        CompletableFuture.allOf(batches.toArray(CompletableFuture[]::new)).join();
        BatonCache cache = cache(client, "/many");
        Recording rec = new Recording();
        cache.listenable().addListener(BatonCacheListener.builder().afterInitialized().forAll(rec).build());
        long start = System.nanoTime();
        cache.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> rec.initialized);
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("BatonCache loaded %d nodes in %d ms%n", cache.size(), ms);
        assertThat(cache.size()).isEqualTo(count + 1);
        assertThat(rec.events).isEmpty(); // afterInitialized: the load itself is not reported
        writer.create().forPath("/many/extra");
        await().until(() -> cache.size() == count + 2);
        await().untilAsserted(() -> assertThat(rec.briefs()).containsExactly("NODE_CREATED /many/extra"));
    }

    @Test
    void closeRemovesTheWatchOnTheServerAndTakesNoThread() throws Exception {
        writer.create().forPath("/closing", bytes("c"));
        java.util.Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
        List<BatonCache> caches = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            BatonCache c = cache(client, "/closing");
            c.start();
            caches.add(c);
        }
        await().until(() -> caches.stream().allMatch(c -> c.size() == 1));
        // The server may start a worker for the extra load; the caches themselves start nothing.
        assertThat(Thread.getAllStackTraces().keySet()).filteredOn(t -> !threadsBefore.contains(t))
                .extracting(Thread::getName).allMatch(n -> n.startsWith("NIOWorkerThread")
                        || n.startsWith("CommitProcWorkThread") || n.startsWith("awaitility"));
        caches.forEach(BatonCache::close);

        BatonCache cache = cache(client, "/closing");
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        cache.start();
        await().until(() -> rec.initialized);
        assertThat(CacheTesting.watchesByPath(zk.port())).contains("/closing");
        cache.close();
        assertThat(CacheTesting.watchesByPath(zk.port())).doesNotContain("/closing");
        int seen = rec.events.size();
        writer.setData().forPath("/closing", bytes("c2"));
        // A later watch of the same client on the same path sees the change: the cache's watch would have too.
        BatonCache probe = cache(client, "/closing");
        probe.start();
        await().until(() -> probe.get("/closing").map(d -> text(d.data())).orElse("").equals("c2"));
        writer.setData().forPath("/closing", bytes("c3"));
        await().until(() -> probe.get("/closing").map(d -> text(d.data())).orElse("").equals("c3"));
        assertThat(rec.events).hasSize(seen);
        assertThat(cache.size()).isZero();
    }

    @Test
    void lifecycleAndArguments() {
        BatonCache cache = cache(client, "/life");
        cache.start();
        assertThatThrownBy(cache::start).isInstanceOf(IllegalStateException.class);
        cache.close();
        cache.close();
        assertThatThrownBy(cache::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> BatonCache.build(null, "/x")).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> BatonCache.build(client, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BatonCache.build(client, "/x", (BatonCache.Option) null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new ChildData("/x", null, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> BatonCacheListener.builder().forCreates(null))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void ephemeralNodesOfTheCacheClientAreCachedToo() throws Exception {
        BatonCache cache = cache(client, "/eph");
        cache.start();
        writer.create().forPath("/eph");
        writer.create().withMode(CreateMode.EPHEMERAL).forPath("/eph/e");
        await().until(() -> cache.size() == 2);
        assertThat(cache.get("/eph/e").orElseThrow().stat().getEphemeralOwner())
                .isEqualTo(writer.getZooKeeper().getSessionId());
    }
}
