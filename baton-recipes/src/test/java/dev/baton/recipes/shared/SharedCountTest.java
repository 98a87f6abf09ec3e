package dev.baton.recipes.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.BatonOp;
import dev.baton.internal.Versions;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
@Tag("slow")
class SharedCountTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    private SharedCount count(BatonClient client, String path, int seed) {
        SharedCount count = new SharedCount(client, path, seed);
        return resources.open(count);
    }

    /** Records what listeners hear. */
    private static final class Heard implements SharedCountListener {
        final List<Integer> counts = new CopyOnWriteArrayList<>();
        final List<ConnectionState> states = new CopyOnWriteArrayList<>();

        @Override
        public void countHasChanged(SharedCountReader sharedCount, int newCount) {
            counts.add(newCount);
        }

        @Override
        public void stateChanged(BatonClient client, ConnectionState newState) {
            states.add(newState);
        }
    }

    /**
     * Returns once the server has counted every request the client's recipes sent in answer to the events the
     * client received so far. The first read's stages run on the client's event thread after those events (and
     * so after the requests their handlers sent); the server answers one session's requests in order, so the
     * second read's reply comes after theirs were counted.
     */
    private static void readsSettled(BatonClient client, String path) throws Exception {
        client.checkExists().forPathAsync(path).thenCompose(stat -> client.checkExists().forPathAsync(path))
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void seedsOnceAndEveryInstanceFollowsTheValue() throws Exception {
        BatonClient a = resources.client();
        BatonClient b = resources.client();
        SharedCount first = count(a, "/counts/a", 7);
        first.start();
        assertThat(first.getCount()).isEqualTo(7);
        assertThat(a.getData().forPath("/counts/a")).containsExactly(0, 0, 0, 7);
        SharedCount second = count(b, "/counts/a", 99); // seed ignored: the node exists
        Heard heard = new Heard();
        second.addListener(heard);
        second.start();
        assertThat(second.getCount()).isEqualTo(7);
        assertThat(second.getVersionedValue()).isEqualTo(new VersionedValue<>(0, 7));

        first.setCount(8);
        assertThat(first.getCount()).isEqualTo(8);
        await().until(() -> second.getCount() == 8);
        // The count is set before the listeners hear of it: wait for them.
        await().untilAsserted(() -> assertThat(heard.counts).containsExactly(8));
        assertThat(second.getVersionedValue().getVersion()).isEqualTo(1);
        assertThat(second.getVersionedValue().getValue()).isEqualTo(8);

        // Own writes reach own listeners once, not again when the watch reports them.
        Heard own = new Heard();
        first.addListener(own, Executors.newSingleThreadExecutor());
        first.setCount(9);
        await().until(() -> heard.counts.size() == 2);
        await().until(() -> own.counts.size() == 1);
        assertThat(own.counts).containsExactly(9);
        first.removeListener(own);
        first.setCount(10);
        await().until(() -> heard.counts.size() == 3);
        assertThat(own.counts).containsExactly(9);
    }

    @Test
    void trySetCountWithAStaleVersionFails() throws Exception {
        BatonClient a = resources.client();
        BatonClient b = resources.client();
        SharedCount first = count(a, "/counts/try", 0);
        SharedCount second = count(b, "/counts/try", 0);
        first.start();
        second.start();
        VersionedValue<Integer> seenByBoth = first.getVersionedValue();
        assertThat(second.getVersionedValue()).isEqualTo(seenByBoth);

        assertThat(first.trySetCount(seenByBoth, 1)).isTrue();
        assertThat(first.getVersionedValue()).isEqualTo(new VersionedValue<>(1, 1));
        // second may not have heard yet: its write goes to the server and fails on the version.
        assertThat(second.trySetCount(seenByBoth, 2)).isFalse();
        await().until(() -> second.getCount() == 1);
        // Known stale locally: false without a write. Both watches saw the write above and read the value
        // again in the background (first's read changes nothing it knows, so only the server sees it): let
        // every such read be counted first.
        readsSettled(a, "/counts/try");
        readsSettled(b, "/counts/try");
        long before = zk.server().requestCount();
        assertThat(second.trySetCount(seenByBoth, 3)).isFalse();
        assertThat(zk.server().requestCount()).isEqualTo(before);
        assertThat(second.trySetCount(second.getVersionedValue(), 3)).isTrue();
        await().until(() -> first.getCount() == 3);
        assertThat(b.getData().forPath("/counts/try")).containsExactly(0, 0, 0, 3);
    }

    @Test
    void manyWritersWithTrySetCountLoseNoUpdate() throws Exception {
        int writers = 4;
        int each = 10;
        List<SharedCount> counts = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            SharedCount c = count(resources.client(), "/counts/many", 0);
            c.start();
            counts.add(c);
        }
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (SharedCount c : counts) {
                done.add(pool.submit(() -> {
                    for (int n = 0; n < each; ) {
                        VersionedValue<Integer> v = c.getVersionedValue();
                        if (c.trySetCount(v, v.value() + 1)) {
                            n++;
                        } else {
                            await().until(() -> !c.getVersionedValue().equals(v)); // wait for the news
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        await().until(() -> counts.stream().allMatch(c -> c.getCount() == writers * each));
    }

    @Test
    void asyncFormsStartSetAndTrySet() throws Exception {
        BatonClient a = resources.client();
        BatonClient b = resources.client();
        SharedCount first = count(a, "/counts/async/a", 5);
        assertThat(first.startAsync().get(10, TimeUnit.SECONDS)).isNull();
        assertThat(first.getCount()).isEqualTo(5);
        assertThat(a.getData().forPath("/counts/async/a")).containsExactly(0, 0, 0, 5);
        assertThatThrownBy(first::startAsync).isInstanceOf(IllegalStateException.class);
        SharedCount second = count(b, "/counts/async/a", 99); // seed ignored: the node exists
        Heard heard = new Heard();
        second.addListener(heard);
        second.startAsync().get(10, TimeUnit.SECONDS);
        assertThat(second.getVersionedValue()).isEqualTo(new VersionedValue<>(0, 5));

        assertThat(first.setCountAsync(6).get(10, TimeUnit.SECONDS)).isNull();
        assertThat(first.getVersionedValue()).isEqualTo(new VersionedValue<>(1, 6)); // known when complete
        await().until(() -> second.getCount() == 6);
        await().untilAsserted(() -> assertThat(heard.counts).containsExactly(6));

        VersionedValue<Integer> seen = first.getVersionedValue();
        assertThat(first.trySetCountAsync(seen, 7).get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(first.getVersionedValue()).isEqualTo(new VersionedValue<>(2, 7));
        // Known stale here: false at once (complete when returned), without a request.
        CompletableFuture<Boolean> stale = first.trySetCountAsync(seen, 8);
        assertThat(stale).isCompletedWithValue(false);
        // Stale on the server only: the version check fails there.
        assertThat(second.trySetCountAsync(seen, 8).get(10, TimeUnit.SECONDS)).isFalse();
        await().until(() -> second.getCount() == 7);
        assertThat(second.trySetCountAsync(second.getVersionedValue(), 8).get(10, TimeUnit.SECONDS)).isTrue();
        await().until(() -> first.getCount() == 8);
        await().untilAsserted(() -> assertThat(heard.counts).containsExactly(6, 7, 8));
        assertThat(a.getData().forPath("/counts/async/a")).containsExactly(0, 0, 0, 8);
        assertThatThrownBy(() -> first.trySetCountAsync(null, 1)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("previous");

        // A deleted node: setCount fails with NoNode, trySetCount answers false.
        a.delete().forPath("/counts/async/a");
        Throwable failed = first.setCountAsync(9).handle((v, e) -> e).get(10, TimeUnit.SECONDS);
        assertThat(failed).isInstanceOf(KeeperException.NoNodeException.class);
        assertThatThrownBy(() -> first.setCountAsync(9).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(KeeperException.NoNodeException.class);
        assertThat(first.trySetCountAsync(first.getVersionedValue(), 9).get(10, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void asyncStartSeedsCreatesParentsAndClosesOnFailure() throws Exception {
        BatonClient client = resources.client();
        SharedCount fresh = count(client, "/counts/async/deep/fresh", -3);
        fresh.startAsync().get(10, TimeUnit.SECONDS);
        assertThat(fresh.getCount()).isEqualTo(-3);
        client.setData().forPath("/counts/async/deep/fresh", SharedCount.toBytes(4)); // followed by the watch
        await().until(() -> fresh.getCount() == 4);

        client.create().creatingParentsIfNeeded().forPath("/counts/async/bad", new byte[] {1, 2, 3});
        SharedCount bad = count(client, "/counts/async/bad", 0);
        assertThatThrownBy(() -> bad.startAsync().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("3 bytes");
        assertThatThrownBy(bad::getCount).isInstanceOf(IllegalStateException.class).hasMessageContaining("CLOSED");
        SharedCount notStarted = count(client, "/counts/async/latent", 0);
        assertThatThrownBy(() -> notStarted.setCountAsync(1)).isInstanceOf(IllegalStateException.class);
    }

    /** The check-after-set transaction used for version -1, exercised at an ordinary version. */
    @Test
    void theSetThenCheckTransactionIsAnExactVersionCheck() throws Exception {
        BatonClient client = resources.client();
        client.create().creatingParentsIfNeeded().forPath("/counts/raw", SharedCount.toBytes(0));
        for (int i = 0; i < 5; i++) {
            client.setData().forPath("/counts/raw", SharedCount.toBytes(i));
        }
        assertThat(client.checkExists().forPath("/counts/raw").getVersion()).isEqualTo(5);
        assertThatThrownBy(() -> client.transaction().forOperations(
                Versions.setThenCheck(client, "/counts/raw", SharedCount.toBytes(40), 4)))
                .isInstanceOf(KeeperException.BadVersionException.class);
        Stat stat = new Stat();
        assertThat(client.getData().storingStatIn(stat).forPath("/counts/raw")).containsExactly(0, 0, 0, 4);
        assertThat(stat.getVersion()).isEqualTo(5); // the failed transaction changed nothing
        client.transaction().forOperations(Versions.setThenCheck(client, "/counts/raw", SharedCount.toBytes(50), 5));
        assertThat(client.getData().storingStatIn(stat).forPath("/counts/raw")).containsExactly(0, 0, 0, 50);
        assertThat(stat.getVersion()).isEqualTo(6);

        // At -1 the plain version check would mean "any": the transaction form is chosen instead.
        List<BatonOp> atMinusOne = Versions.setIfVersion(client, "/counts/raw", SharedCount.toBytes(1), -1);
        assertThat(atMinusOne).extracting(BatonOp::type).containsExactly(BatonOp.Type.SET_DATA, BatonOp.Type.CHECK);
        assertThat(Versions.setIfVersion(client, "/counts/raw", SharedCount.toBytes(1), -2)).hasSize(1);
        assertThat(Versions.setIfVersion(client, "/counts/raw", SharedCount.toBytes(1), 6)).hasSize(1);
        assertThatThrownBy(() -> Versions.setThenCheck(client, "/x", new byte[4], -2))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void followsDeletionAndRecreationAndTellsConnectionStates() throws Exception {
        BatonClient a = resources.client();
        SharedCount count = count(a, "/counts/recreated", 5);
        Heard heard = new Heard();
        count.addListener(heard);
        count.start();
        count.setCount(6);
        count.setCount(7);
        BatonClient other = resources.client();
        other.delete().forPath("/counts/recreated");
        other.create().creatingParentsIfNeeded().forPath("/counts/recreated", SharedCount.toBytes(1)); // version 0 again
        await().until(() -> count.getCount() == 1);
        await().untilAsserted(() -> assertThat(heard.counts).containsExactly(6, 7, 1));

        zk.server().stop();
        await().until(() -> heard.states.contains(ConnectionState.SUSPENDED));
        zk.server().restart();
        await().atMost(Duration.ofSeconds(20)).until(() -> heard.states.contains(ConnectionState.RECONNECTED));
        other.setData().forPath("/counts/recreated", SharedCount.toBytes(2));
        await().until(() -> count.getCount() == 2);
    }

    @Test
    void lifecycleAndBadArguments() throws Exception {
        BatonClient client = resources.client();
        assertThatThrownBy(() -> new SharedCount(null, "/c", 0)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new SharedCount(client, null, 0)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("path");
        assertThatThrownBy(() -> new SharedCount(client, "/c/", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new VersionedValue<Integer>(0, null)).isInstanceOf(NullPointerException.class);
        SharedCount count = count(client, "/counts/life", 0);
        assertThatThrownBy(count::getCount).isInstanceOf(IllegalStateException.class).hasMessageContaining("LATENT");
        assertThatThrownBy(() -> count.setCount(1)).isInstanceOf(IllegalStateException.class);
        count.start();
        assertThatThrownBy(count::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> count.trySetCount(null, 1)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("previous");
        assertThatThrownBy(() -> count.addListener(null)).isInstanceOf(NullPointerException.class);
        count.close();
        count.close();
        assertThatThrownBy(count::getCount).isInstanceOf(IllegalStateException.class).hasMessageContaining("CLOSED");
        assertThatThrownBy(count::start).isInstanceOf(IllegalStateException.class);

        client.create().creatingParentsIfNeeded().forPath("/counts/bad", new byte[] {1, 2});
        SharedCount bad = count(client, "/counts/bad", 0);
        assertThatThrownBy(bad::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("2 bytes");
        assertThatThrownBy(bad::getCount).isInstanceOf(IllegalStateException.class); // closed by the failed start
        assertThat(ByteBuffer.wrap(SharedCount.toBytes(-2)).getInt()).isEqualTo(-2);
    }
}
