package dev.baton.recipes.cache;

import static dev.baton.recipes.cache.CacheTesting.bytes;
import static dev.baton.recipes.cache.CacheTesting.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The classic cache façades' own contract: lifecycle, bad input, rebuild and clear, nothing left after close. */
@Timeout(60)
@Tag("slow")
class ClassicCachesTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);
    private BatonClient client;
    private BatonClient writer;

    @BeforeEach
    void clients() throws InterruptedException {
        client = resources.untrackedClient(); // a test counts the server's watches
        writer = resources.untrackedClient();
    }

    private <T extends AutoCloseable> T open(T resource) {
        return resources.open(resource);
    }

    @Test
    void badInputFailsAtTheCall() {
        assertThatThrownBy(() -> new NodeCache(null, "/x")).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new NodeCache(client, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("path");
        assertThatThrownBy(() -> new PathChildrenCache(client, "no-slash", true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-slash");
        assertThatThrownBy(() -> TreeCache.newBuilder(client, "/a/"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/a/");
        assertThatThrownBy(() -> TreeCache.newBuilder(client, "/a").setMaxDepth(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> TreeCache.newBuilder(client, "/a").setMaxDepth(1).setMaxDepth(2))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> TreeCache.newBuilder(client, "/a").setCacheData(false).setCacheData(true))
                .isInstanceOf(IllegalStateException.class);
        PathChildrenCache children = open(new PathChildrenCache(client, "/a", true));
        assertThatThrownBy(() -> children.start((PathChildrenCache.StartMode) null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("mode");
        assertThatThrownBy(() -> children.getCurrentData(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void startTwiceOrAfterCloseFailsWithoutAddingAListener() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        NodeCache node = open(new NodeCache(client, "/twice"));
        node.getListenable().addListener(calls::incrementAndGet);
        node.start();
        assertThatThrownBy(node::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("STARTED");
        assertThatThrownBy(() -> node.start(true)).isInstanceOf(IllegalStateException.class);
        writer.create().forPath("/twice", bytes("x"));
        await().until(() -> calls.get() == 1);
        writer.setData().forPath("/twice", bytes("y"));
        await().until(() -> text(node.getCurrentData().getData()).equals("y"));
        assertThat(calls).hasValue(2); // one call per change: the failed starts added no second listener

        TreeCache tree = TreeCache.newBuilder(client, "/twice").build();
        tree.close();
        assertThatThrownBy(tree::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("CLOSED");
        PathChildrenCache children = new PathChildrenCache(client, "/twice", false);
        children.close();
        assertThatThrownBy(children::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(children::rebuild).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closeLeavesNoWatchAndNoListener() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/gone/a/b", bytes("b"));
        int before = zk.server().watchCount();
        NodeCache node = new NodeCache(client, "/gone");
        PathChildrenCache children = new PathChildrenCache(client, "/gone", true);
        TreeCache tree = TreeCache.newBuilder(client, "/gone/a").build();
        node.getListenable().addListener(() -> { });
        node.start(true);
        children.start(PathChildrenCache.StartMode.BUILD_INITIAL_CACHE);
        tree.start();
        await().until(() -> tree.size() == 2);
        assertThat(zk.server().watchCount()).isGreaterThan(before);
        node.close();
        children.close();
        tree.close();
        node.close(); // twice: nothing more
        assertThat(zk.server().watchCount()).isEqualTo(before);
        assertThat(node.getCurrentData()).isNull();
        assertThat(children.getCurrentData()).isEmpty();
        assertThat(tree.size()).isZero();
    }

    @Test
    void pathChildrenRebuildAndClearReportAsCuratorsDo() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/pc/a", bytes("a"));
        PathChildrenCache children = open(new PathChildrenCache(client, "/pc", true));
        List<String> events = new CopyOnWriteArrayList<>();
        children.getListenable().addListener((c, e) -> events.add(e.getType() + " " + e.getData().getPath()));
        children.start(true);
        assertThat(children.getCurrentData()).extracting(ChildData::getPath).containsExactly("/pc/a");
        children.rebuild(); // current already: nothing to report
        assertThat(events).isEmpty();
        children.clear();
        assertThat(children.getCurrentData()).isEmpty();
        writer.delete().forPath("/pc/a"); // forgotten by clear(): its removal is not reported
        writer.create().forPath("/pc/b", bytes("b"));
        await().until(() -> !events.isEmpty());
        children.rebuild();
        assertThat(events).containsExactly("CHILD_ADDED /pc/b");
        assertThat(children.getCurrentData()).extracting(ChildData::getPath).containsExactly("/pc/b");
    }

    @Test
    void aBlockingStartOnTheEventThreadFailsAtOnce() throws Exception {
        writer.create().forPath("/evt", bytes("x"));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        NodeCache outer = open(new NodeCache(client, "/evt"));
        NodeCache inner = open(new NodeCache(client, "/evt"));
        outer.getListenable().addListener(() -> {
            if (!client.isEventThread()) {
                return; // a notice after a retried read comes on the scheduler thread: wait for the next one
            }
            try {
                inner.start(true); // on ZooKeeper's event thread: the load could never be delivered
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        outer.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            if (thrown.get() == null) {
                writer.setData().forPath("/evt", bytes("y")); // another notice
            }
            return thrown.get() != null;
        });
        assertThat(thrown.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("event thread");
    }

    @Test
    void aThrowingListenerDoesNotStopTheOthersAndCanBeRemoved() throws Exception {
        writer.create().forPath("/throws");
        TreeCache tree = open(new TreeCache(client, "/throws"));
        List<String> seen = new CopyOnWriteArrayList<>();
        TreeCacheListener bad = (c, e) -> {
            throw new Exception("bad listener");
        };
        TreeCacheListener good = (c, e) -> seen.add(e.getType().name());
        tree.getListenable().addListener(bad);
        tree.getListenable().addListener(good);
        tree.start();
        await().until(() -> seen.contains("INITIALIZED"));
        tree.getListenable().removeListener(good);
        writer.setData().forPath("/throws", bytes("1"));
        await().until(() -> "1".equals(text(tree.getCurrentData("/throws").getData())));
        assertThat(seen).containsExactly("NODE_ADDED", "INITIALIZED");
        assertThat(tree.iterator().next().getPath()).isEqualTo("/throws");
    }
    @Test
    void pathChildrenCacheCreatesItsPathAndMakesItAgainAfterTheServerReapsIt() throws Exception {
        String path = "/pcc-reaped/parent";
        PathChildrenCache children = open(new PathChildrenCache(client, path, true));
        List<String> events = new CopyOnWriteArrayList<>();
        children.getListenable().addListener((c, e) -> events.add(e.getType() + " " + e.getData().getPath()));
        children.start(PathChildrenCache.StartMode.BUILD_INITIAL_CACHE);
        Stat first = writer.checkExists().forPath(path);
        assertThat(first).as("the path, made by start()").isNotNull();
        assertThat(first.getEphemeralOwner()).isZero();

        writer.create().forPath(path + "/one");
        await().until(() -> events.contains("CHILD_ADDED " + path + "/one"));
        writer.delete().forPath(path + "/one");
        await().until(() -> events.contains("CHILD_REMOVED " + path + "/one"));
        // Empty once it had a child: the server's container manager removes it, and the cache makes it again.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Stat now = writer.checkExists().forPath(path);
            assertThat(now).isNotNull();
            assertThat(now.getCzxid()).isNotEqualTo(first.getCzxid());
        });
        writer.create().forPath(path + "/two");
        await().until(() -> events.contains("CHILD_ADDED " + path + "/two"));
        assertThat(events).containsExactly("CHILD_ADDED " + path + "/one", "CHILD_REMOVED " + path + "/one",
                "CHILD_ADDED " + path + "/two");
    }

    @Test
    void aPathChildrenCacheLeavesNoUnusedPathItCreated() throws Exception {
        writer.create().forPath("/pcc-mine");
        PathChildrenCache created = new PathChildrenCache(client, "/pcc-mine/made", true);
        PathChildrenCache existing = new PathChildrenCache(client, "/pcc-mine", true);
        created.start(PathChildrenCache.StartMode.BUILD_INITIAL_CACHE);
        existing.start(PathChildrenCache.StartMode.BUILD_INITIAL_CACHE);
        assertThat(writer.checkExists().forPath("/pcc-mine/made")).isNotNull();
        existing.close(); // not created by it: stays
        created.close(); // never had a child, so the server would keep it for good
        await().until(() -> writer.checkExists().forPath("/pcc-mine/made") == null);
        assertThat(writer.checkExists().forPath("/pcc-mine")).isNotNull();
        writer.delete().forPath("/pcc-mine");
    }

    @Test
    void treeCacheOnANamespaceRootReportsPathsInTheNamespace() throws Exception {
        TreeCache tree = open(new TreeCache(client.usingNamespace("tc-ns"), "/"));
        List<String> events = new CopyOnWriteArrayList<>();
        tree.getListenable().addListener((c, e) -> {
            if (e.getData() != null) {
                events.add(e.getType() + " " + e.getData().getPath());
            }
        });
        tree.start();
        writer.create().creatingParentsIfNeeded().forPath("/tc-ns/test");
        await().until(() -> events.stream().anyMatch(e -> e.endsWith("test")));
        assertThat(events).doesNotContain("NODE_ADDED /tc-ns").contains("NODE_ADDED /test");
        assertThat(events.get(events.size() - 1)).isEqualTo("NODE_ADDED /test");
        assertThat(events).allMatch(e -> e.equals("NODE_ADDED /") || e.equals("NODE_ADDED /test"));
        assertThat(tree.getCurrentData("/test")).isNotNull();
    }

    @Test
    void treeCacheReportsTheEphemeralNodesAKilledSessionTookAway() throws Exception {
        writer.create().forPath("/tc-killed");
        TreeCache tree = open(new TreeCache(client, "/tc-killed"));
        List<String> events = new CopyOnWriteArrayList<>();
        tree.getListenable().addListener((c, e) -> {
            if (e.getType().name().startsWith("CONNECTION_")) {
                return;
            }
            events.add(e.getType() + (e.getData() == null ? "" : " " + e.getData().getPath()));
        });
        tree.start();
        await().until(() -> events.contains("INITIALIZED"));
        client.create().withMode(CreateMode.EPHEMERAL).forPath("/tc-killed/foo", bytes("foo"));
        client.create().withMode(CreateMode.EPHEMERAL).forPath("/tc-killed/me", bytes("me"));
        await().until(() -> events.size() == 4);

        zk.server().expireSession(client.getZooKeeper());
        await().atMost(Duration.ofSeconds(30)).until(() -> events.size() >= 6);
        assertThat(events).containsExactly("NODE_ADDED /tc-killed", "INITIALIZED", "NODE_ADDED /tc-killed/foo",
                "NODE_ADDED /tc-killed/me", "NODE_REMOVED /tc-killed/foo", "NODE_REMOVED /tc-killed/me");
        assertThat(tree.size()).isEqualTo(1);
    }
}
