package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Ten thousand virtual threads (JDK 21 and newer) blocked in {@code acquire()} of one semaphore of three leases,
 * each holding its lease briefly: all complete, never more than three hold at once, and the client starts no
 * thread per waiter. The library is Java 17 bytecode, so the virtual threads are made through reflection; on an
 * older JDK the test is skipped. The build runs it on JDK 25 where one is installed (baton-recipes' jdk25
 * profile) with 1,000 waiters ({@code baton.virtualWaiters}): 10,000 take some four minutes on two cores, each
 * hand-over of the semaphore's inner mutex costing a listing of the queue.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class VirtualThreadWaitersTest {
    private static final int WAITERS = Integer.getInteger("baton.virtualWaiters", 10_000);
    private static final int LEASES = 3;

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void tenThousandVirtualThreadsWaitingForThreeLeasesAllGetOneAndTheClientAddsNoThreadPerWaiter()
            throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21 or newer");
        BatonClient client = resources.client();
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, "/virtual/semaphore", LEASES);
        Set<String> platformBefore = platformThreadNames();
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger platformDuring = new AtomicInteger();
        ExecutorService virtual = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
                .invoke(null);
        try {
            List<Future<?>> waiters = new ArrayList<>(WAITERS);
            for (int i = 0; i < WAITERS; i++) {
                waiters.add(virtual.submit(() -> {
                    Lease lease = semaphore.acquire();
                    try {
                        int now = holding.incrementAndGet();
                        mostAtOnce.accumulateAndGet(now, Math::max);
                        if (done.get() == WAITERS / 2) {
                            platformDuring.set(platformThreadNames().size()); // about half still waiting now
                        }
                        Thread.sleep(1); // held briefly: the others stay blocked in acquire() meanwhile
                    } finally {
                        holding.decrementAndGet();
                        semaphore.returnLease(lease);
                        done.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> waiter : waiters) {
                waiter.get(9, TimeUnit.MINUTES);
            }
        } finally {
            virtual.shutdownNow();
        }
        assertThat(done.get()).isEqualTo(WAITERS);
        assertThat(mostAtOnce.get()).isBetween(1, LEASES);
        // Carrier threads (one per core) and the client's few threads; nothing that grows with the waiters.
        Set<String> platformAfter = platformThreadNames();
        platformAfter.removeAll(platformBefore);
        assertThat(platformAfter).as("platform threads started meanwhile").hasSizeLessThan(32);
        assertThat(platformDuring.get()).isLessThan(platformBefore.size() + 32);
        assertThat(leaseNodes(client)).isEmpty();
    }

    /** The lease nodes left; none if the server has already reaped the empty container. */
    private static List<String> leaseNodes(BatonClient client) throws Exception {
        try {
            return client.getChildren().forPath("/virtual/semaphore/leases");
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    private static Set<String> platformThreadNames() {
        return Thread.getAllStackTraces().keySet().stream().map(t -> t.getName() + "#" + t.getId())
                .collect(Collectors.toSet());
    }
}
