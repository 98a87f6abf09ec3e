package dev.baton.recipes;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonClient;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.cache.BatonCacheListener;
import dev.baton.recipes.cache.ChildData;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.nodes.PersistentNode;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A caller that synchronizes on a recipe instance (its own business: the instance is a public object) does not
 * stall the recipe: the recipes lock on private monitors. Each test holds the instance's monitor from another
 * thread while the recipe starts and works on a third; on a recipe that locked on {@code this} the work would never
 * finish, and the test fails on its bounded wait (the monitor is let go after each test, so nothing stays stuck).
 */
@Timeout(60)
class MonitorsTest {
    private static final Duration BOUND = Duration.ofSeconds(20);

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Thread> holders = new ArrayList<>();
    private final ExecutorService worker = Executors.newSingleThreadExecutor();

    @AfterEach
    void letGo() throws InterruptedException {
        release.countDown();
        for (Thread holder : holders) {
            holder.join(TimeUnit.SECONDS.toMillis(10));
        }
        worker.shutdown();
        assertThat(worker.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    /** Holds {@code target}'s monitor from another thread until the test ends; returns once it is held. */
    private void holdMonitorOf(Object target) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (target) {
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "monitor-holder");
        holder.setDaemon(true);
        holder.start();
        holders.add(holder);
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
    }

    private interface Work<T> {
        T run() throws Exception;
    }

    /** Runs {@code work} on the worker thread. */
    private <T> CompletableFuture<T> onWorker(Work<T> work) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return work.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, worker);
    }

    @Test
    void leaderLatchLeadsWhileItsMonitorIsHeld() throws Exception {
        BatonClient client = resources.client();
        LeaderLatch latch = resources.open(new LeaderLatch(client, "/monitors/latch", "a"));
        holdMonitorOf(latch);

        CompletableFuture<Boolean> led = onWorker(() -> {
            latch.start();
            boolean leads = latch.await(BOUND.toSeconds(), TimeUnit.SECONDS);
            latch.await();
            return leads && latch.hasLeadership() && latch.fencingToken().isPresent()
                    && latch.getOurPath() != null;
        });
        assertThat(led).succeedsWithin(BOUND).isEqualTo(true);

        assertThat(onWorker(() -> {
            latch.close();
            return latch.getState();
        })).succeedsWithin(BOUND).isEqualTo(LeaderLatch.State.CLOSED);
    }

    @Test
    void persistentNodeIsCreatedWhileItsMonitorIsHeld() throws Exception {
        BatonClient client = resources.client();
        PersistentNode node = resources.open(new PersistentNode(client, CreateMode.EPHEMERAL, false,
                "/monitors/node", "hello".getBytes(UTF_8)));
        holdMonitorOf(node);

        CompletableFuture<String> created = onWorker(() -> {
            node.start();
            assertThat(node.waitForInitialCreate(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
            node.setData("v2".getBytes(UTF_8));
            return node.getActualPath() + " " + new String(node.getData(), UTF_8);
        });
        assertThat(created).succeedsWithin(BOUND).isEqualTo("/monitors/node v2");
        assertThat(new String(client.getData().forPath("/monitors/node"), UTF_8)).isEqualTo("v2");

        assertThat(onWorker(() -> {
            node.close();
            return client.checkExists().forPath("/monitors/node") == null;
        })).succeedsWithin(BOUND).isEqualTo(true);
    }

    @Test
    void batonCacheSeesChangesWhileItsMonitorIsHeld() throws Exception {
        BatonClient client = resources.client();
        BatonCache cache = resources.open(BatonCache.build(client, "/monitors/cache"));
        BlockingQueue<String> created = new LinkedBlockingQueue<>();
        cache.listenable().addListener(BatonCacheListener.builder()
                .forCreates(data -> created.add(data.path())).build());
        holdMonitorOf(cache);

        CompletableFuture<String> seen = onWorker(() -> {
            cache.start();
            assertThat(cache.awaitInitialized(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
            client.create().creatingParentsIfNeeded().forPath("/monitors/cache/child", "x".getBytes(UTF_8));
            String path;
            do {
                path = created.poll(BOUND.toSeconds(), TimeUnit.SECONDS);
            } while (path != null && !path.equals("/monitors/cache/child"));
            return path + " " + cache.get("/monitors/cache/child").map(ChildData::data)
                    .map(d -> new String(d, UTF_8)).orElse("missing");
        });
        assertThat(seen).succeedsWithin(BOUND).isEqualTo("/monitors/cache/child x");

        assertThat(onWorker(() -> {
            cache.close();
            return cache.size();
        })).succeedsWithin(BOUND).isEqualTo(0);
    }
}
