package dev.baton.recipes.cache;

import static dev.baton.recipes.cache.CacheTesting.bytes;
import static dev.baton.recipes.cache.CacheTesting.cacheTree;
import static dev.baton.recipes.cache.CacheTesting.serverTree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.recipes.cache.CacheTesting.Recording;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Waiting for a cache's initial load, and the package's depth-limited caches the classic façades sit on. */
@Timeout(60)
class BatonCacheLoadTest {
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

    @Test
    void startAsyncCompletesOnceTheWholeTreeIsLoadedAndReported() throws Exception {
        for (int i = 0; i < 50; i++) {
            writer.create().creatingParentsIfNeeded().forPath("/load/n" + i + "/leaf", bytes("v" + i));
        }
        BatonCache cache = open(BatonCache.build(client, "/load"));
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        CompletableFuture<Void> loaded = cache.startAsync();
        loaded.get(10, TimeUnit.SECONDS);
        // Complete only after every node was reported and initialized() was called.
        assertThat(rec.initialized).isTrue();
        assertThat(rec.events).hasSize(101);
        assertThat(cache.size()).isEqualTo(101);
        assertThat(cacheTree(cache)).isEqualTo(serverTree(writer, "/load"));
        assertThat(cache.awaitInitialized(0, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(cache::startAsync).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void awaitInitializedWaitsAfterAPlainStart() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/plain/a", bytes("a"));
        BatonCache cache = open(BatonCache.build(client, "/plain"));
        assertThatThrownBy(() -> cache.awaitInitialized(1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("start()");
        cache.start();
        assertThatThrownBy(() -> cache.awaitInitialized(-1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> cache.awaitInitialized(1, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("unit");
        assertThat(cache.awaitInitialized(10, TimeUnit.SECONDS)).isTrue();
        assertThat(cache.get("/plain/a")).isPresent();
    }

    @Test
    void waitingOnTheEventThreadBeforeTheLoadFailsAtOnce() throws Exception {
        BatonCache cache = open(BatonCache.build(client, "/evt"));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        cache.listenable().addListener(new BatonCacheListener() {
            @Override
            public void event(Type type, ChildData oldData, ChildData data) {
            }

            @Override
            public void initialized() { // runs before the load counts as done, on ZooKeeper's event thread
                try {
                    cache.awaitInitialized(5, TimeUnit.SECONDS);
                } catch (Throwable e) {
                    thrown.set(e);
                }
            }
        });
        cache.startAsync().get(10, TimeUnit.SECONDS);
        assertThat(thrown.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("event thread");
    }

    @Test
    void closingBeforeTheLoadFailsTheFutureAndTheWaiters() throws Exception {
        int port;
        try (ServerSocket unused = new ServerSocket(0)) {
            port = unused.getLocalPort(); // nothing listens there once closed: the client never connects
        }
        BatonClient nowhere = open(Baton.newClient("127.0.0.1:" + port, new RetryOneTime(10)));
        nowhere.start();
        BatonCache cache = open(BatonCache.build(nowhere, "/never"));
        CompletableFuture<Void> loaded = cache.startAsync();
        assertThat(cache.awaitInitialized(50, TimeUnit.MILLISECONDS)).isFalse();
        cache.close();
        assertThatThrownBy(loaded::join).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> cache.awaitInitialized(1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalStateException.class);

        // Cancelling the caller's future gives up only the caller's interest: the cache goes on loading.
        BatonCache other = open(BatonCache.build(nowhere, "/never"));
        other.startAsync().cancel(true);
        assertThat(other.awaitInitialized(50, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(other.toString()).contains("/never");
    }

    @Test
    void depthLimitedCacheReadsAndReportsNothingDeeper() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/depth/a/x/deep", bytes("d"));
        writer.create().forPath("/depth/b", bytes("b"));
        BatonCache cache = open(BatonCache.build(client, "/depth", 1));
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        cache.startAsync().get(10, TimeUnit.SECONDS);
        assertThat(cache.stream().map(ChildData::path)).containsExactly("/depth", "/depth/a", "/depth/b");

        writer.create().forPath("/depth/a/y", bytes("too deep"));
        writer.setData().forPath("/depth/a/x", bytes("too deep"));
        writer.create().forPath("/depth/c", bytes("c"));
        await().until(() -> cache.get("/depth/c").isPresent());
        // The cache is updated before its listeners hear of it: wait for what they heard.
        await().untilAsserted(() -> assertThat(rec.briefsFrom(3)).containsExactly("NODE_CREATED /depth/c"));
        assertThat(cache.children("/depth")).containsOnlyKeys("a", "b", "c");
        assertThat(cache.children("/depth/a")).isEmpty();
        assertThat(cache.children("/depth/nope")).isNull();

        writer.delete().deletingChildrenIfNeeded().forPath("/depth/a");
        await().until(() -> cache.get("/depth/a").isEmpty());
        await().untilAsserted(() -> assertThat(rec.briefsFrom(4)).containsExactly("NODE_DELETED /depth/a"));
        assertThatThrownBy(() -> BatonCache.build(client, "/depth", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refreshAfterClearingReportsEveryNodeAgain() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/again/a", bytes("a"));
        BatonCache cache = open(BatonCache.build(client, "/again"));
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        assertThatThrownBy(cache::refresh).isInstanceOf(IllegalStateException.class);
        cache.startAsync().get(10, TimeUnit.SECONDS);
        cache.refresh().get(10, TimeUnit.SECONDS);
        assertThat(rec.briefs()).containsExactly("NODE_CREATED /again", "NODE_CREATED /again/a"); // nothing new
        cache.clearNodes();
        assertThat(cache.size()).isZero();
        cache.refresh().get(10, TimeUnit.SECONDS);
        assertThat(rec.briefsFrom(2)).containsExactly("NODE_CREATED /again", "NODE_CREATED /again/a");
        assertThat(cache.size()).isEqualTo(2);
    }
}
