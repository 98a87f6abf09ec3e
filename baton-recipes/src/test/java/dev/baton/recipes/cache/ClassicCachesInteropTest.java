package dev.baton.recipes.cache;

import static dev.baton.recipes.cache.CacheTesting.bytes;
import static dev.baton.recipes.cache.CacheTesting.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each classic cache beside Apache Curator 5.9's class of the same name, on the same path, through the same
 * scripted changes: both must report the same events (type, path, data, old data), step by step, and hold the
 * same data. Each step waits until both have reported what it expects, so quick successive changes (which either
 * library may coalesce differently) are not part of the comparison.
 */
@Timeout(120)
@SuppressWarnings("deprecation") // Curator's classic caches are deprecated in favour of CuratorCache
@Tag("slow")
class ClassicCachesInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /**
     * After a partition heals, a classic cache may report the change made meanwhile before its
     * {@code CONNECTION_RECONNECTED}: connection states reach the cache from the client's listener thread, watch
     * events from ZooKeeper's event thread, and neither library orders the two. Seen twice in full-suite runs under
     * load (Curator's tree cache reported {@code NODE_UPDATED} first). Both must report the same two events.
     */
    private static final String RECONNECTED_AND_CHANGE = "the reconnection and the change made meanwhile";

    private final List<AutoCloseable> resources = new ArrayList<>();
    private BatonClient writer;
    private TcpProxy proxy;
    private BatonClient baton;
    private CuratorFramework curator;

    @BeforeEach
    void clients() throws InterruptedException {
        writer = open(CacheTesting.newClient(zk.connectString()));
        // Both readers go through one proxy, so one partition cuts both at the same moment.
        proxy = open(TcpProxy.start("classic", zk.port()));
        baton = open(CacheTesting.newClient(proxy.address()));
        curator = open(CuratorFrameworkFactory.builder().connectString(proxy.address())
                .sessionTimeoutMs(30_000).connectionTimeoutMs(5_000)
                .retryPolicy(new org.apache.curator.retry.RetryOneTime(10)).build());
        curator.start();
        assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T open(T resource) {
        resources.add(resource);
        return resource;
    }

    /** Events of both libraries as comparable lines. */
    private static final class Both {
        final List<String> baton = new CopyOnWriteArrayList<>();
        final List<String> curator = new CopyOnWriteArrayList<>();
        int seen;

        /** Waits until both reported {@code n} more events, then returns Baton's (after checking Curator's). */
        List<String> next(int n, boolean ordered) {
            int to = seen + n;
            await().atMost(Duration.ofSeconds(30)).until(() -> baton.size() >= to && curator.size() >= to);
            List<String> b = baton.subList(seen, to);
            List<String> c = curator.subList(seen, to);
            if (ordered) {
                assertThat(b).as("Baton's events against Curator's").containsExactlyElementsOf(c);
            } else {
                assertThat(b).as("Baton's events against Curator's").containsExactlyInAnyOrderElementsOf(c);
            }
            seen = to;
            return List.copyOf(b);
        }

        void nothingMore() {
            assertThat(baton).hasSize(seen);
            assertThat(curator).hasSize(seen);
        }
    }

    private static String line(Object type, String path, byte[] data, byte[] oldData) {
        return type + " " + path + (data == null ? "" : "=" + text(data))
                + (oldData == null ? "" : " (was " + text(oldData) + ")");
    }

    @Test
    void pathChildrenCacheReportsWhatCuratorsReports() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/pcc/a", bytes("a1"));
        writer.create().forPath("/pcc/b", bytes("b1"));
        Both events = new Both();
        var theirs = new org.apache.curator.framework.recipes.cache.PathChildrenCache(curator, "/pcc", true);
        open(theirs::close);
        theirs.getListenable().addListener((c, e) -> events.curator.add(
                line(e.getType(), e.getData() == null ? "" : e.getData().getPath(),
                        e.getData() == null ? null : e.getData().getData(), null)));
        PathChildrenCache ours = open(new PathChildrenCache(baton, "/pcc", true));
        ours.getListenable().addListener((c, e) -> events.baton.add(
                line(e.getType(), e.getData() == null ? "" : e.getData().getPath(),
                        e.getData() == null ? null : e.getData().getData(), null)));
        theirs.start(org.apache.curator.framework.recipes.cache.PathChildrenCache.StartMode.POST_INITIALIZED_EVENT);
        ours.start(PathChildrenCache.StartMode.POST_INITIALIZED_EVENT);

        assertThat(events.next(2, false)).containsExactlyInAnyOrder("CHILD_ADDED /pcc/a=a1", "CHILD_ADDED /pcc/b=b1");
        assertThat(events.next(1, true)).containsExactly("INITIALIZED ");

        writer.create().forPath("/pcc/c", bytes("c1"));
        assertThat(events.next(1, true)).containsExactly("CHILD_ADDED /pcc/c=c1");
        writer.setData().forPath("/pcc/a", bytes("a2"));
        assertThat(events.next(1, true)).containsExactly("CHILD_UPDATED /pcc/a=a2");
        writer.setData().forPath("/pcc/a", bytes("a2")); // same bytes, new version: still an update
        assertThat(events.next(1, true)).containsExactly("CHILD_UPDATED /pcc/a=a2");
        writer.create().forPath("/pcc/c/grandchild", bytes("g")); // below the children: not reported
        writer.setData().forPath("/pcc", bytes("parent")); // the parent itself: not reported
        writer.delete().forPath("/pcc/b");
        assertThat(events.next(1, true)).containsExactly("CHILD_REMOVED /pcc/b=b1");
        writer.delete().deletingChildrenIfNeeded().forPath("/pcc/c");
        assertThat(events.next(1, true)).containsExactly("CHILD_REMOVED /pcc/c=c1");

        // Cut off: both hear the suspension; a child created meanwhile comes after the reconnection.
        proxy.partition(TcpProxy.Mode.DROP);
        assertThat(events.next(1, true)).containsExactly("CONNECTION_SUSPENDED ");
        writer.create().forPath("/pcc/d", bytes("d1"));
        proxy.heal();
        assertThat(events.next(2, false)).as(RECONNECTED_AND_CHANGE)
                .containsExactlyInAnyOrder("CONNECTION_RECONNECTED ", "CHILD_ADDED /pcc/d=d1");

        assertThat(ours.getCurrentData()).extracting(ChildData::getPath)
                .containsExactlyElementsOf(theirs.getCurrentData().stream().map(d -> d.getPath()).toList());
        assertThat(text(ours.getCurrentData("/pcc/a").getData()))
                .isEqualTo(text(theirs.getCurrentData("/pcc/a").getData()));
        assertThat(ours.getCurrentData("/pcc/a").getStat()).isEqualTo(theirs.getCurrentData("/pcc/a").getStat());
        assertThat(ours.getCurrentData("/pcc/b")).isNull();
        assertThat(ours.getCurrentData("/pcc")).isNull();
        events.nothingMore();
    }

    @Test
    void pathChildrenCacheStartModesMatchCuratorsToo() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/modes/a", bytes("a1"));
        for (var mode : List.of(PathChildrenCache.StartMode.NORMAL, PathChildrenCache.StartMode.BUILD_INITIAL_CACHE)) {
            Both events = new Both();
            var theirs = new org.apache.curator.framework.recipes.cache.PathChildrenCache(curator, "/modes", false);
            theirs.getListenable().addListener((c, e) -> events.curator.add(line(e.getType(),
                    e.getData().getPath(), e.getData().getData(), null)));
            PathChildrenCache ours = new PathChildrenCache(baton, "/modes", false);
            ours.getListenable().addListener((c, e) -> events.baton.add(line(e.getType(), e.getData().getPath(),
                    e.getData().getData(), null)));
            try (ours) {
                theirs.start(org.apache.curator.framework.recipes.cache.PathChildrenCache.StartMode.valueOf(
                        mode.name()));
                ours.start(mode);
                if (mode == PathChildrenCache.StartMode.NORMAL) {
                    // Without data (cacheData false): the events carry none either.
                    assertThat(events.next(1, true)).containsExactly("CHILD_ADDED /modes/a");
                } else {
                    // Loaded before start returned, and not reported.
                    assertThat(ours.getCurrentData()).extracting(ChildData::getPath).containsExactly("/modes/NORMAL",
                            "/modes/a");
                    assertThat(theirs.getCurrentData()).extracting(d -> d.getPath())
                            .containsExactly("/modes/NORMAL", "/modes/a");
                }
                writer.create().forPath("/modes/" + mode, bytes("x"));
                assertThat(events.next(1, true)).containsExactly("CHILD_ADDED /modes/" + mode);
                assertThat(ours.getCurrentData("/modes/" + mode).getData()).isNull();
                events.nothingMore();
            } finally {
                theirs.close();
            }
        }
    }

    @Test
    void treeCacheReportsWhatCuratorsReports() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/tree/a/a1", bytes("x"));
        writer.create().forPath("/tree/b", bytes("b1"));
        Both events = new Both();
        var theirs = org.apache.curator.framework.recipes.cache.TreeCache.newBuilder(curator, "/tree").build();
        open(theirs::close);
        theirs.getListenable().addListener((c, e) -> events.curator.add(line(e.getType(),
                e.getData() == null ? "" : e.getData().getPath(), e.getData() == null ? null : e.getData().getData(),
                e.getOldData() == null ? null : e.getOldData().getData())));
        TreeCache ours = open(TreeCache.newBuilder(baton, "/tree").build());
        ours.getListenable().addListener((c, e) -> events.baton.add(line(e.getType(),
                e.getData() == null ? "" : e.getData().getPath(), e.getData() == null ? null : e.getData().getData(),
                e.getOldData() == null ? null : e.getOldData().getData())));
        theirs.start();
        assertThat(ours.start()).isSameAs(ours);

        assertThat(events.next(4, false)).containsExactlyInAnyOrder("NODE_ADDED /tree=", "NODE_ADDED /tree/a=",
                "NODE_ADDED /tree/a/a1=x", "NODE_ADDED /tree/b=b1");
        assertThat(events.next(1, true)).containsExactly("INITIALIZED ");

        writer.create().forPath("/tree/a/a2", bytes("y"));
        assertThat(events.next(1, true)).containsExactly("NODE_ADDED /tree/a/a2=y");
        writer.setData().forPath("/tree/b", bytes("b2"));
        assertThat(events.next(1, true)).containsExactly("NODE_UPDATED /tree/b=b2 (was b1)");
        writer.setData().forPath("/tree", bytes("root"));
        assertThat(events.next(1, true)).containsExactly("NODE_UPDATED /tree=root (was )");
        writer.create().forPath("/tree/a/a2/deep", bytes("d"));
        assertThat(events.next(1, true)).containsExactly("NODE_ADDED /tree/a/a2/deep=d");
        writer.delete().forPath("/tree/a/a1");
        assertThat(events.next(1, true)).containsExactly("NODE_REMOVED /tree/a/a1=x");
        writer.delete().deletingChildrenIfNeeded().forPath("/tree/a");
        assertThat(events.next(3, false)).containsExactlyInAnyOrder("NODE_REMOVED /tree/a/a2/deep=d",
                "NODE_REMOVED /tree/a/a2=y", "NODE_REMOVED /tree/a=");

        proxy.partition(TcpProxy.Mode.DROP);
        assertThat(events.next(1, true)).containsExactly("CONNECTION_SUSPENDED ");
        writer.setData().forPath("/tree/b", bytes("b3"));
        proxy.heal();
        assertThat(events.next(2, false)).as(RECONNECTED_AND_CHANGE)
                .containsExactlyInAnyOrder("CONNECTION_RECONNECTED ", "NODE_UPDATED /tree/b=b3 (was b2)");

        assertThat(snapshot(ours)).isEqualTo(curatorSnapshot(theirs, "/tree"));
        assertThat(ours.getCurrentChildren("/tree")).containsOnlyKeys(
                theirs.getCurrentChildren("/tree").keySet().toArray(String[]::new));
        assertThat(ours.getCurrentChildren("/tree/b")).isEmpty();
        assertThat(ours.getCurrentChildren("/tree/a")).isNull();
        assertThat(theirs.getCurrentChildren("/tree/a")).isNull();
        assertThat(ours.size()).isEqualTo(theirs.size());
        events.nothingMore();
    }

    @Test
    void treeCacheDepthLimitMatchesCuratorsToo() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/depth/a/deep", bytes("d"));
        for (int depth : new int[] {0, 1}) {
            Both events = new Both();
            var theirs = org.apache.curator.framework.recipes.cache.TreeCache.newBuilder(curator, "/depth")
                    .setMaxDepth(depth).build();
            theirs.getListenable().addListener((c, e) -> events.curator.add(line(e.getType(),
                    e.getData() == null ? "" : e.getData().getPath(), null, null)));
            TreeCache ours = TreeCache.newBuilder(baton, "/depth").setMaxDepth(depth).build();
            ours.getListenable().addListener((c, e) -> events.baton.add(line(e.getType(),
                    e.getData() == null ? "" : e.getData().getPath(), null, null)));
            try (ours) {
                theirs.start();
                ours.start();
                // The root (and its children with depth 1), then INITIALIZED.
                events.next(depth == 0 ? 2 : 2 + writer.getChildren().forPath("/depth").size(), false);
                writer.create().forPath("/depth/a/deeper" + depth);
                writer.create().forPath("/depth/b" + depth);
                if (depth == 1) {
                    assertThat(events.next(1, true)).containsExactly("NODE_ADDED /depth/b1");
                }
                writer.setData().forPath("/depth", bytes("v" + depth));
                assertThat(events.next(1, true)).containsExactly("NODE_UPDATED /depth");
                assertThat(snapshot(ours)).isEqualTo(curatorSnapshot(theirs, "/depth"));
                events.nothingMore();
            } finally {
                theirs.close();
            }
        }
    }

    @Test
    void nodeCacheIsToldOfTheSameChangesAsCuratorsAndHoldsTheSameData() throws Exception {
        // The parent exists: Curator's NodeCache would make it a container, which the server may reap while
        // the first step creates the node.
        writer.create().forPath("/node");
        AtomicInteger oursCalls = new AtomicInteger();
        AtomicInteger theirsCalls = new AtomicInteger();
        var theirs = new org.apache.curator.framework.recipes.cache.NodeCache(curator, "/node/x");
        open(theirs::close);
        theirs.getListenable().addListener(theirsCalls::incrementAndGet);
        NodeCache ours = open(new NodeCache(baton, "/node/x"));
        ours.getListenable().addListener(oursCalls::incrementAndGet);
        theirs.start();
        ours.start();
        List<Write> steps = List.of(
                () -> writer.create().forPath("/node/x", bytes("1")),
                () -> writer.setData().forPath("/node/x", bytes("2")),
                () -> {
                    writer.create().forPath("/node/x/child"); // a child is no change of the node: no call
                    writer.setData().forPath("/node/x", bytes("2b")); // so exactly one call for this step
                },
                () -> writer.delete().deletingChildrenIfNeeded().forPath("/node/x"),
                () -> writer.create().forPath("/node/x", bytes("3")));
        for (int i = 0; i < steps.size(); i++) {
            steps.get(i).run();
            int expected = i + 1;
            await().until(() -> oursCalls.get() >= expected && theirsCalls.get() >= expected);
            await().until(() -> sameData(ours.getCurrentData(), theirs.getCurrentData()));
            assertThat(oursCalls.get()).isEqualTo(expected);
            assertThat(theirsCalls.get()).isEqualTo(expected);
        }
        assertThat(text(ours.getCurrentData().getData())).isEqualTo("3");
        assertThat(oursCalls.get()).isEqualTo(5);
    }

    @Test
    void nodeCacheBuildInitialReportsOnlyLaterChangesAsCuratorsDoes() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/initial/x", bytes("1"));
        AtomicInteger oursCalls = new AtomicInteger();
        AtomicInteger theirsCalls = new AtomicInteger();
        var theirs = new org.apache.curator.framework.recipes.cache.NodeCache(curator, "/initial/x");
        open(theirs::close);
        theirs.getListenable().addListener(theirsCalls::incrementAndGet);
        NodeCache ours = open(new NodeCache(baton, "/initial/x"));
        ours.getListenable().addListener(oursCalls::incrementAndGet);
        theirs.start(true);
        ours.start(true);
        assertThat(text(ours.getCurrentData().getData())).isEqualTo("1");
        assertThat(ours.getCurrentData().getStat()).isEqualTo(theirs.getCurrentData().getStat());
        writer.setData().forPath("/initial/x", bytes("2"));
        await().until(() -> oursCalls.get() == 1 && theirsCalls.get() == 1);
        assertThat(sameData(ours.getCurrentData(), theirs.getCurrentData())).isTrue();
    }

    private interface Write {
        void run() throws Exception;
    }

    private static boolean sameData(ChildData ours, org.apache.curator.framework.recipes.cache.ChildData theirs) {
        if (ours == null || theirs == null) {
            return ours == null && theirs == null;
        }
        return ours.getPath().equals(theirs.getPath()) && ours.getStat().equals(theirs.getStat())
                && java.util.Arrays.equals(ours.getData(), theirs.getData());
    }

    private static Map<String, String> snapshot(TreeCache cache) {
        Map<String, String> nodes = new TreeMap<>();
        cache.forEach(d -> nodes.put(d.getPath(), text(d.getData()) + "@" + d.getStat().getMzxid()));
        return nodes;
    }

    private static Map<String, String> curatorSnapshot(org.apache.curator.framework.recipes.cache.TreeCache cache,
            String path) {
        Map<String, String> nodes = new TreeMap<>();
        List<String> todo = new ArrayList<>(List.of(path));
        while (!todo.isEmpty()) {
            String next = todo.remove(0);
            var data = cache.getCurrentData(next);
            if (data == null) {
                continue;
            }
            nodes.put(next, text(data.getData()) + "@" + data.getStat().getMzxid());
            cache.getCurrentChildren(next).keySet().forEach(child -> todo.add(next + "/" + child));
        }
        return nodes;
    }
}
