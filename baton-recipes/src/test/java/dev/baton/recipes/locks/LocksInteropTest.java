package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.recipes.TestResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import dev.baton.testing.EmbeddedZooKeeperExtension;

/** Baton's mutex, read-write lock, semaphore and semaphore mutex against Apache Curator 5.9's on the same paths. */
@Timeout(120)
@Tag("slow")
class LocksInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    /** Runs a body while holding something. */
    private interface Guarded {
        void run(Runnable body) throws Exception;
    }

    private static void runAll(List<Callable<Void>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (Callable<Void> task : tasks) {
                futures.add(pool.submit(task));
            }
            for (Future<Void> f : futures) {
                f.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void readWriteLocksExcludeAcrossLibraries() throws Exception {
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
            boolean baton = c % 2 == 0;
            int client = c;
            Guarded read;
            Guarded write;
            if (baton) {
                InterProcessReadWriteLock rw = new InterProcessReadWriteLock(resources.client(), "/interop/rw");
                read = body -> guarded(rw.readLock()::acquire, rw.readLock()::release, body);
                write = body -> guarded(rw.writeLock()::acquire, rw.writeLock()::release, body);
            } else {
                var rw = new org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock(resources.curator(),
                        "/interop/rw");
                read = body -> guarded(rw.readLock()::acquire, rw.readLock()::release, body);
                write = body -> guarded(rw.writeLock()::acquire, rw.writeLock()::release, body);
            }
            tasks.add(() -> {
                for (int i = 0; i < 12; i++) {
                    if ((i + client) % 3 == 0) {
                        write.run(() -> {
                            if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                                violations.incrementAndGet();
                            }
                            Thread.yield();
                            writers.decrementAndGet();
                        });
                    } else {
                        read.run(() -> {
                            readers.incrementAndGet();
                            if (writers.get() != 0) {
                                violations.incrementAndGet();
                            }
                            Thread.yield();
                            readers.decrementAndGet();
                        });
                    }
                }
                return null;
            });
        }
        runAll(tasks);
        assertThat(violations.get()).isZero();

        // each sees the other's writer
        InterProcessReadWriteLock batonRw = new InterProcessReadWriteLock(resources.client(), "/interop/rw2");
        var curatorRw = new org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock(resources.curator(),
                "/interop/rw2");
        batonRw.writeLock().acquire();
        assertThat(curatorRw.readLock().acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        batonRw.writeLock().release();
        assertThat(curatorRw.readLock().acquire(5, TimeUnit.SECONDS)).isTrue();
        assertThat(batonRw.readLock().acquire(5, TimeUnit.SECONDS)).as("readers of both share").isTrue();
        assertThat(batonRw.writeLock().acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        batonRw.readLock().release();
        curatorRw.readLock().release();
    }

    @Test
    void aCuratorWriterQueuedBehindABatonDowngradeWaitsForTheReader() throws Exception {
        InterProcessReadWriteLock baton = new InterProcessReadWriteLock(resources.client(), "/interop/downgrade");
        var curator = new org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock(resources.curator(),
                "/interop/downgrade");
        baton.writeLock().acquire();
        AtomicBoolean readerHolds = new AtomicBoolean(true);
        CompletableFuture<Boolean> writer = CompletableFuture.supplyAsync(() -> {
            try {
                curator.writeLock().acquire();
                boolean alone = !readerHolds.get();
                curator.writeLock().release();
                return alone;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> baton.writeLock().getParticipantNodes().size() == 2);

        baton.readLock().acquire();
        baton.writeLock().release();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> !writer.isDone());
        readerHolds.set(false);
        baton.readLock().release();
        assertThat(writer.get(10, TimeUnit.SECONDS)).as("the Curator writer got in only after the reader left")
                .isTrue();
    }

    @Test
    void aBatonWriterQueuedBehindACuratorDowngradeWaitsForTheReader() throws Exception {
        var curator = new org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock(resources.curator(),
                "/interop/downgrade2");
        InterProcessReadWriteLock baton = new InterProcessReadWriteLock(resources.client(), "/interop/downgrade2");
        curator.writeLock().acquire();
        CompletableFuture<Hold> writer = baton.writeLock().acquireAsync();
        await().atMost(Duration.ofSeconds(10)).until(() -> baton.writeLock().getParticipantNodes().size() == 2);

        curator.readLock().acquire();
        curator.writeLock().release();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> !writer.isDone());
        curator.readLock().release();
        writer.get(10, TimeUnit.SECONDS).release();
    }

    private interface Acquire {
        void run() throws Exception;
    }

    private static void guarded(Acquire acquire, Acquire release, Runnable body) throws Exception {
        acquire.run();
        try {
            body.run();
        } finally {
            release.run();
        }
    }

    @Test
    void mixedSemaphoreClientsNeverExceedMaxLeases() throws Exception {
        AtomicInteger out = new AtomicInteger();
        AtomicInteger maxOut = new AtomicInteger();
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            Guarded lease;
            if (c % 2 == 0) {
                InterProcessSemaphoreV2 s = new InterProcessSemaphoreV2(resources.client(), "/interop/sem", 3);
                lease = body -> {
                    try (Lease l = s.acquire()) {
                        body.run();
                    }
                };
            } else {
                var s = new org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2(resources.curator(),
                        "/interop/sem", 3);
                lease = body -> {
                    var l = s.acquire();
                    try {
                        body.run();
                    } finally {
                        s.returnLease(l);
                    }
                };
            }
            tasks.add(() -> {
                for (int i = 0; i < 10; i++) {
                    lease.run(() -> {
                        maxOut.accumulateAndGet(out.incrementAndGet(), Math::max);
                        Thread.yield();
                        out.decrementAndGet();
                    });
                }
                return null;
            });
        }
        runAll(tasks);
        assertThat(maxOut.get()).isBetween(1, 3);
    }

    /**
     * Runs each holder {@code times} through a body that counts who is inside, all holders at once, and checks
     * that every round ran and never two at a time.
     */
    private static void assertOneAtATime(List<Guarded> holders, int times) throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicInteger rounds = new AtomicInteger();
        List<Callable<Void>> tasks = new ArrayList<>();
        for (Guarded holder : holders) {
            tasks.add(() -> {
                for (int i = 0; i < times; i++) {
                    holder.run(() -> {
                        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        Thread.yield();
                        rounds.incrementAndGet();
                        inside.decrementAndGet();
                    });
                }
                return null;
            });
        }
        runAll(tasks);
        assertThat(rounds.get()).isEqualTo(holders.size() * times);
        assertThat(maxInside.get()).isEqualTo(1);
    }

    @Test
    void mutexesExcludeAcrossLibraries() throws Exception {
        InterProcessMutex batonLock = new InterProcessMutex(resources.client(), "/interop/mutex");
        var curatorLock = new org.apache.curator.framework.recipes.locks.InterProcessMutex(resources.curator(),
                "/interop/mutex");
        Guarded viaBaton = body -> guarded(batonLock::acquire, batonLock::release, body);
        Guarded viaCurator = body -> guarded(curatorLock::acquire, curatorLock::release, body);
        // Two threads on each lock object: a mutex is held by a thread, not by its object.
        assertOneAtATime(List.of(viaBaton, viaBaton, viaCurator, viaCurator), 15);

        // Each sees the other's holder in the same queue.
        batonLock.acquire();
        assertThat(curatorLock.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(curatorLock.getParticipantNodes()).containsExactlyElementsOf(batonLock.getParticipantNodes());
        batonLock.release();
        assertThat(curatorLock.acquire(10, TimeUnit.SECONDS)).isTrue();
        assertThat(batonLock.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        curatorLock.release();
    }

    @Test
    void semaphoreMutexesExcludeAcrossLibraries() throws Exception {
        List<Guarded> holders = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            if (c % 2 == 0) {
                InterProcessSemaphoreMutex m = new InterProcessSemaphoreMutex(resources.client(), "/interop/smutex");
                holders.add(body -> guarded(m::acquire, m::release, body));
            } else {
                var m = new org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex(resources.curator(),
                        "/interop/smutex");
                holders.add(body -> guarded(m::acquire, m::release, body));
            }
        }
        assertOneAtATime(holders, 10);

        InterProcessSemaphoreMutex baton = new InterProcessSemaphoreMutex(resources.client(), "/interop/smutex2");
        var curator = new org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex(resources.curator(),
                "/interop/smutex2");
        baton.acquire();
        assertThat(curator.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        baton.release();
        assertThat(curator.acquire(5, TimeUnit.SECONDS)).isTrue();
        assertThat(baton.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(baton.getParticipantNodes()).hasSize(1);
        curator.release();
    }
}
