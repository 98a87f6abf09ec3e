package dev.baton.recipes.cache;

import static dev.baton.recipes.cache.CacheTesting.bytes;
import static dev.baton.recipes.cache.CacheTesting.cacheTree;
import static dev.baton.recipes.cache.CacheTesting.serverTree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.cache.CacheTesting.NodeState;
import dev.baton.recipes.cache.CacheTesting.Recording;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Random writes from several clients against a cache whose client is cut off (and, once, loses its session) in
 * the middle. What "no lost event" means when the cache cannot see every intermediate state (changes made while
 * it was cut off are coalesced): after quiescence the cache equals the server's tree exactly (path, czxid,
 * mzxid, data), and replaying the received events from nothing, each checked against the state before it
 * (a creation of an absent node, a change or deletion whose old data is exactly the current one), ends in that
 * same tree. A lost event breaks the final equality or a later check; a duplicate breaks a check.
 */
@Timeout(120)
class BatonCacheModelTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static final String ROOT = "/model";
    private static final String[] NAMES = {"a", "b", "c"};

    @Test
    void randomWritersWithPartitionsAndSessionLoss() throws Exception {
        long seed = System.nanoTime();
        System.out.println("BatonCacheModelTest seed " + seed);
        List<BatonClient> writers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try (TcpProxy proxy = TcpProxy.start("model", zk.port());
                BatonClient cut = CacheTesting.newClient(proxy.address());
                BatonCache cache = BatonCache.build(cut, ROOT)) {
            for (int i = 0; i < 3; i++) {
                writers.add(CacheTesting.newClient(zk.connectString()));
            }
            writers.get(0).create().forPath(ROOT, bytes("root"));
            Recording rec = new Recording();
            cache.listenable().addListener(rec);
            List<String> states = new CopyOnWriteArrayList<>();
            cut.getConnectionStateListenable().addListener((c, s) -> states.add(s.name()));
            cache.start();
            AtomicInteger ops = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(3);
            for (int w = 0; w < 3; w++) {
                BatonClient writer = writers.get(w);
                Random random = new Random(seed + w);
                pool.execute(() -> {
                    try {
                        for (int i = 0; i < 400; i++) {
                            randomOp(writer, random, i);
                            ops.incrementAndGet();
                        }
                    } finally {
                        done.countDown();
                    }
                });
            }
            await().until(() -> ops.get() > 200);
            proxy.partition(TcpProxy.Mode.DROP);
            await().until(() -> states.contains("SUSPENDED"));
            await().until(() -> ops.get() > 500);
            proxy.heal();
            await().atMost(Duration.ofSeconds(20)).until(() -> states.contains("RECONNECTED"));
            await().until(() -> ops.get() > 800);
            zk.server().expireSession(cut.getZooKeeper());
            await().atMost(Duration.ofSeconds(20)).until(() -> states.contains("LOST"));
            assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(cacheTree(cache)).isEqualTo(serverTree(writers.get(0), ROOT)));
            Map<String, NodeState> replayed = rec.replay();
            assertThat(replayed).isEqualTo(cacheTree(cache));
            assertThat(rec.initialized).isTrue();
            System.out.printf("model: %d ops, %d events, %d nodes at the end%n", ops.get(), rec.events.size(),
                    cache.size());
        } finally {
            pool.shutdownNow();
            writers.forEach(BatonClient::close);
        }
    }

    /** Creates, changes or deletes a random node of a tree at most three levels below the root. */
    private static void randomOp(BatonClient writer, Random random, int i) {
        StringBuilder path = new StringBuilder(ROOT);
        int depth = 1 + random.nextInt(3);
        for (int d = 0; d < depth; d++) {
            path.append('/').append(NAMES[random.nextInt(NAMES.length)]);
        }
        String p = path.toString();
        try {
            switch (random.nextInt(4)) {
                case 0, 1 -> writer.create().creatingParentsIfNeeded().forPath(p, bytes("v" + i));
                case 2 -> writer.setData().forPath(p, bytes("s" + i));
                default -> writer.delete().deletingChildrenIfNeeded().forPath(p);
            }
        } catch (KeeperException e) {
            // NONODE / NODEEXISTS / NOTEMPTY races between writers are expected
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void curatorCacheAndBatonCacheConverge() throws Exception {
        String root = "/interop";
        try (BatonClient writer = CacheTesting.newClient(zk.connectString());
                BatonClient reader = CacheTesting.newClient(zk.connectString());
                CuratorFramework curator = CuratorFrameworkFactory.newClient(zk.connectString(), 10_000, 5_000,
                        new RetryOneTime(10))) {
            curator.start();
            writer.create().creatingParentsIfNeeded().forPath(root + "/seed/x", bytes("x"));
            try (CuratorCache theirs = CuratorCache.build(curator, root);
                    BatonCache ours = BatonCache.build(reader, root)) {
                CompletableFuture<Void> theirsReady = new CompletableFuture<>();
                theirs.listenable().addListener(new org.apache.curator.framework.recipes.cache.CuratorCacheListener() {
                    @Override
                    public void event(Type type, org.apache.curator.framework.recipes.cache.ChildData oldData,
                            org.apache.curator.framework.recipes.cache.ChildData data) {
                    }

                    @Override
                    public void initialized() {
                        theirsReady.complete(null);
                    }
                });
                theirs.start();
                ours.start();
                theirsReady.get(10, TimeUnit.SECONDS);
                Random random = new Random(42);
                for (int i = 0; i < 300; i++) {
                    StringBuilder p = new StringBuilder(root);
                    for (int d = 0, depth = 1 + random.nextInt(3); d < depth; d++) {
                        p.append('/').append(NAMES[random.nextInt(NAMES.length)]);
                    }
                    try {
                        switch (random.nextInt(3)) {
                            case 0 -> writer.create().creatingParentsIfNeeded().forPath(p.toString(), bytes("v" + i));
                            case 1 -> writer.setData().forPath(p.toString(), bytes("s" + i));
                            default -> writer.delete().deletingChildrenIfNeeded().forPath(p.toString());
                        }
                    } catch (KeeperException e) {
                        // expected races with the tree's shape
                    }
                }
                await().untilAsserted(() -> {
                    Map<String, NodeState> server = serverTree(writer, root);
                    assertThat(cacheTree(ours)).isEqualTo(server);
                    Map<String, NodeState> curatorView = new java.util.TreeMap<>();
                    theirs.stream().forEach(d -> curatorView.put(d.getPath(), new NodeState(d.getStat().getCzxid(),
                            d.getStat().getMzxid(), CacheTesting.text(d.getData()))));
                    assertThat(curatorView).isEqualTo(server);
                });
            }
        }
    }
}
