package dev.baton.recipes.barriers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
class DistributedBarrierTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private Clients clients;
    private BatonClient client;

    @BeforeEach
    void setUp() throws InterruptedException {
        clients = new Clients(zk);
        client = clients.newClient();
    }

    @AfterEach
    void tearDown() {
        clients.close();
    }

    @Test
    void waitersAreHeldUntilTheBarrierIsRemoved() throws Exception {
        DistributedBarrier coordinator = new DistributedBarrier(client, "/barrier/a");
        coordinator.setBarrier();
        coordinator.setBarrier(); // setting it again does nothing
        BatonClient other = clients.newClient();
        DistributedBarrier waiter = new DistributedBarrier(other, "/barrier/a");
        CompletableFuture<Void> blocked = CompletableFuture.runAsync(() -> {
            try {
                waiter.waitOnBarrier();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        CompletableFuture<Boolean> timed = CompletableFuture.supplyAsync(() -> {
            try {
                return waiter.waitOnBarrier(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waiter.waitOnBarrier(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(blocked).isNotDone();
        assertThat(timed).isNotDone();

        coordinator.removeBarrier();
        blocked.get(10, TimeUnit.SECONDS);
        assertThat(timed.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(waiter.waitOnBarrier(0, TimeUnit.SECONDS)).isTrue(); // not set: at once
        coordinator.removeBarrier(); // removing it again does nothing
    }

    @Test
    void aTimedOutWaitRemovesItsWatch() throws Exception {
        DistributedBarrier barrier = new DistributedBarrier(client, "/barrier/watch");
        barrier.setBarrier();
        int before = ServerWatches.total(zk.server().port());
        assertThat(barrier.waitOnBarrier(100, TimeUnit.MILLISECONDS)).isFalse();
        await().untilAsserted(() -> assertThat(ServerWatches.total(zk.server().port())).isEqualTo(before));
        barrier.removeBarrier();
    }

    @Test
    void dataChangesAndConnectionEventsDoNotReleaseWaiters() throws Exception {
        DistributedBarrier barrier = new DistributedBarrier(client, "/barrier/changed");
        barrier.setBarrier();
        int before = ServerWatches.total(zk.server().port());
        CompletableFuture<Boolean> timed = CompletableFuture.supplyAsync(() -> {
            try {
                return barrier.waitOnBarrier(1500, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().until(() -> ServerWatches.total(zk.server().port()) > before);
        client.setData().forPath("/barrier/changed", new byte[] {1});
        assertThat(timed.get(10, TimeUnit.SECONDS)).isFalse();
        barrier.removeBarrier();
    }

    @Test
    void badArgumentsFailAtOnce() {
        assertThatThrownBy(() -> new DistributedBarrier(null, "/x")).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new DistributedBarrier(client, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("barrierPath");
        assertThatThrownBy(() -> new DistributedBarrier(client, "x/")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("x/");
        DistributedBarrier barrier = new DistributedBarrier(client, "/barrier/args");
        assertThatThrownBy(() -> barrier.waitOnBarrier(-1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> barrier.waitOnBarrier(1, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("unit");
    }
}
