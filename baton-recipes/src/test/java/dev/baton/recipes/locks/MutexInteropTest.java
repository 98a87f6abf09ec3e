package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Baton and Apache Curator mutexes on one path exclude each other. */
@Timeout(120)
class MutexInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    /** Something only one holder may be inside at a time, across both libraries. */
    private interface Locked {
        void run(Runnable body) throws Exception;
    }

    @Test
    void batonAndCuratorMutexesExcludeEachOther() throws Exception {
        BatonClient baton = resources.client();
        CuratorFramework curator = resources.curator();

        InterProcessMutex batonLock = new InterProcessMutex(baton, "/interop/mutex");
        var curatorLock = new org.apache.curator.framework.recipes.locks.InterProcessMutex(curator,
                "/interop/mutex");
        Locked viaBaton = body -> {
            batonLock.acquire();
            try {
                body.run();
            } finally {
                batonLock.release();
            }
        };
        Locked viaCurator = body -> {
            curatorLock.acquire();
            try {
                body.run();
            } finally {
                curatorLock.release();
            }
        };

        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicInteger rounds = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (Locked locked : List.of(viaBaton, viaBaton, viaCurator, viaCurator)) {
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < 15; i++) {
                        locked.run(() -> {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            Thread.yield();
                            rounds.incrementAndGet();
                            inside.decrementAndGet();
                        });
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(rounds.get()).isEqualTo(60);
        assertThat(maxInside.get()).isEqualTo(1);

        // Each sees the other's holder in the same queue.
        batonLock.acquire();
        assertThat(curatorLock.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(curatorLock.getParticipantNodes()).containsExactlyElementsOf(batonLock.getParticipantNodes());
        batonLock.release();
        assertThat(curatorLock.acquire(10, TimeUnit.SECONDS)).isTrue();
        assertThat(batonLock.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        curatorLock.release();
    }
}
