package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import dev.baton.testing.EmbeddedZooKeeperExtension;

/**
 * The semaphore remembers that no Curator client was at {@code <path>/locks} until a watch says otherwise: a
 * Curator client that queues after that look must still make a later Baton waiter go through Curator's mutex
 * (with one lease, a Baton waiter queued behind a waiting Curator client would wait for ever).
 */
@Timeout(60)
class SemaphoreCuratorPresenceTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void curatorClientArrivingAfterACachedLookIsStillSeen() throws Exception {
        BatonClient baton = resources.client();
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(baton, "/presence/sem", 1);
        Lease first = semaphore.acquire();
        // A waiter looks at <path>/locks (no Curator client: the answer is remembered).
        CompletableFuture<Lease> second = semaphore.acquireAsync();
        await().atMost(Duration.ofSeconds(10)).until(() -> semaphore.getParticipantNodes().size() == 2);

        var curatorSemaphore = new org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2(
                resources.curator(), "/presence/sem", 1);
        CompletableFuture<org.apache.curator.framework.recipes.locks.Lease> curatorLease =
                CompletableFuture.supplyAsync(() -> {
                    try {
                        return curatorSemaphore.acquire(30, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
        await().atMost(Duration.ofSeconds(10)).until(() -> semaphore.getParticipantNodes().size() == 3);

        // Queued behind the waiting Curator client: must withdraw and queue for Curator's mutex.
        CompletableFuture<Lease> third = semaphore.acquireAsync();

        first.close();
        second.get(10, TimeUnit.SECONDS).close();
        var fromCurator = curatorLease.get(10, TimeUnit.SECONDS);
        assertThat(fromCurator).isNotNull();
        assertThat(third).isNotDone();
        curatorSemaphore.returnLease(fromCurator);
        third.get(10, TimeUnit.SECONDS).close();
    }
}
