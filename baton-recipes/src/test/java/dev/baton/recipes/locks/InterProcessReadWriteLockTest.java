package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.Checkers;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import dev.baton.testing.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
class InterProcessReadWriteLockTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    private static boolean tryIn(InterProcessMutex lock, long ms) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            try {
                boolean got = lock.acquire(ms, TimeUnit.MILLISECONDS);
                if (got) {
                    lock.release();
                }
                return got;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).get(30, TimeUnit.SECONDS);
    }

    @Test
    void readersShareWritersExclude() throws Exception {
        InterProcessReadWriteLock one = new InterProcessReadWriteLock(resources.client(), "/rw/rules");
        InterProcessReadWriteLock two = new InterProcessReadWriteLock(resources.client(), "/rw/rules");
        one.readLock().acquire();
        assertThat(tryIn(two.readLock(), 5_000)).as("a second reader").isTrue();
        assertThat(tryIn(two.writeLock(), 200)).as("a writer while a reader holds").isFalse();
        one.readLock().release();
        one.writeLock().acquire();
        assertThat(tryIn(two.readLock(), 200)).as("a reader while a writer holds").isFalse();
        assertThat(tryIn(two.writeLock(), 200)).as("a second writer").isFalse();
        assertThat(one.writeLock().getParticipantNodes()).singleElement().asString().contains("__WRIT__");
        one.writeLock().release();
        assertThat(tryIn(two.writeLock(), 5_000)).isTrue();
        assertThat(one.readLock().getParticipantNodes()).isEmpty();
    }

    @Test
    void eightClientsMostlyReadingNeverSeeAWriterBesideAnyoneElse() throws Exception {
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger maxReaders = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                InterProcessReadWriteLock rw = new InterProcessReadWriteLock(resources.client(), "/rw/eight");
                int client = c;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < 15; i++) {
                        boolean write = (i + client) % 5 == 0;
                        InterProcessMutex lock = write ? rw.writeLock() : rw.readLock();
                        lock.acquire();
                        try {
                            if (write) {
                                if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                                    violations.incrementAndGet();
                                }
                                Thread.yield();
                                writers.decrementAndGet();
                            } else {
                                maxReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
                                if (writers.get() != 0) {
                                    violations.incrementAndGet();
                                }
                                Thread.yield();
                                readers.decrementAndGet();
                            }
                        } finally {
                            lock.release();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violations.get()).isZero();
    }

    @Test
    void aWriterMayTakeTheReadLockAndDowngrade() throws Exception {
        InterProcessReadWriteLock rw = new InterProcessReadWriteLock(resources.client(), "/rw/downgrade");
        InterProcessReadWriteLock other = new InterProcessReadWriteLock(resources.client(), "/rw/downgrade");
        rw.writeLock().acquire();
        assertThat(rw.readLock().acquire(5, TimeUnit.SECONDS)).isTrue();
        rw.writeLock().release();
        assertThat(rw.readLock().isOwnedByCurrentThread()).isTrue();
        assertThat(tryIn(other.readLock(), 5_000)).as("another reader beside the downgraded one").isTrue();
        assertThat(tryIn(other.writeLock(), 200)).as("a writer while the downgraded reader holds").isFalse();
        rw.readLock().release();
        assertThat(tryIn(other.writeLock(), 5_000)).isTrue();
    }

    @Test
    void aWriterQueuedBehindADowngradeWaitsForTheDowngradedReader() throws Exception {
        InterProcessReadWriteLock rw = new InterProcessReadWriteLock(resources.client(), "/rw/downgrade-queued");
        InterProcessReadWriteLock other = new InterProcessReadWriteLock(resources.client(), "/rw/downgrade-queued");
        rw.writeLock().acquire();
        CompletableFuture<Hold> writer = other.writeLock().acquireAsync();
        await().atMost(Duration.ofSeconds(10)).until(() -> rw.writeLock().getParticipantNodes().size() == 2);

        rw.readLock().acquire();
        String writeNode = rw.writeLock().getParticipantNodes().iterator().next();
        rw.writeLock().release();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> !writer.isDone());
        assertThat(rw.readLock().getParticipantNodes()).singleElement().asString()
                .as("the read node takes the write node's sequence")
                .endsWith("__READ__" + writeNode.substring(writeNode.lastIndexOf("__WRIT__") + 8));

        rw.readLock().release();
        writer.get(10, TimeUnit.SECONDS).release();
    }

    @Test
    void downgradesAmongReadersAndWritersKeepWritersAlone() throws Exception {
        History history = new History();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < 6; c++) {
                InterProcessReadWriteLock rw = new InterProcessReadWriteLock(resources.client(), "/rw/downgrades");
                History.Recorder me = history.recorder("c" + c);
                int client = c;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < 12; i++) {
                        switch ((i + client) % 3) {
                            case 0 -> { // write, downgrade, read on
                                rw.writeLock().acquire();
                                me.acquired("w", rw.writeLock().fencingToken().getAsLong());
                                rw.readLock().acquire();
                                me.acquired("r", rw.readLock().fencingToken().getAsLong());
                                me.released("w", History.NO_TOKEN);
                                rw.writeLock().release();
                                Thread.yield();
                                me.released("r", History.NO_TOKEN);
                                rw.readLock().release();
                            }
                            case 1 -> {
                                rw.writeLock().acquire();
                                me.acquired("w", rw.writeLock().fencingToken().getAsLong());
                                Thread.yield();
                                me.released("w", History.NO_TOKEN);
                                rw.writeLock().release();
                            }
                            default -> {
                                rw.readLock().acquire();
                                me.acquired("r", rw.readLock().fencingToken().getAsLong());
                                Thread.yield();
                                me.released("r", History.NO_TOKEN);
                                rw.readLock().release();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(history.events()).filteredOn(e -> e.kind() == History.Kind.ACQUIRED).hasSize(6 * 12 + 6 * 4);
        Checkers.assertValid(history, Checkers.readWriteExclusion("w", "r"), Checkers.fencingTokensIncrease("w"));
    }

    @Test
    void readersDoNotWakeOnReadersButWakeTogetherWhenTheWriterGoes() throws Exception {
        InterProcessReadWriteLock r1 = new InterProcessReadWriteLock(resources.client(), "/rw/wake");
        InterProcessReadWriteLock r2 = new InterProcessReadWriteLock(resources.client(), "/rw/wake");
        InterProcessReadWriteLock w = new InterProcessReadWriteLock(resources.client(), "/rw/wake");
        InterProcessReadWriteLock late = new InterProcessReadWriteLock(resources.client(), "/rw/wake");
        Hold h1 = r1.readLock().acquireAsync().get(10, TimeUnit.SECONDS);
        Hold h2 = r2.readLock().acquireAsync().get(10, TimeUnit.SECONDS);
        CompletableFuture<Hold> writer = w.writeLock().acquireAsync();
        await().atMost(Duration.ofSeconds(10)).until(() -> w.writeLock().getParticipantNodes().size() == 1);
        CompletableFuture<Hold> l1 = late.readLock().acquireAsync();
        CompletableFuture<Hold> l2 = late.readLock().acquireAsync();
        await().atMost(Duration.ofSeconds(10)).until(() -> late.readLock().getParticipantNodes().size() == 4);

        h1.release(); // a reader goes: neither the waiting readers nor the writer (it watches r2) wake
        h2.release(); // the writer wakes and holds
        Hold held = writer.get(10, TimeUnit.SECONDS);
        assertThat(l1).isNotDone();
        assertThat(l2).isNotDone();
        assertThat(late.readLock().wakeUps()).as("wake-ups of the late readers so far").isZero();
        assertThat(w.writeLock().wakeUps()).isEqualTo(1);

        held.release(); // both late readers wake together and hold
        Hold a = l1.get(10, TimeUnit.SECONDS);
        Hold b = l2.get(10, TimeUnit.SECONDS);
        assertThat(late.readLock().wakeUps()).isEqualTo(2);
        assertThat(a.fencingToken()).isGreaterThan(held.fencingToken());
        a.release();
        b.release();
    }

    @Test
    void timedAcquireThatTimesOutLeavesNoNodeAndBadArguments() throws Exception {
        BatonClient client = resources.client();
        InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, "/rw/timed");
        InterProcessReadWriteLock other = new InterProcessReadWriteLock(resources.client(), "/rw/timed");
        rw.writeLock().acquire();
        assertThat(tryIn(other.readLock(), 200)).isFalse();
        assertThat(other.readLock().getParticipantNodes()).isEmpty();
        assertThat(other.writeLock().getParticipantNodes()).hasSize(1);
        rw.writeLock().release();
        assertThatThrownBy(rw.writeLock()::release).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> new InterProcessReadWriteLock(null, "/rw")).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new InterProcessReadWriteLock(client, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("path");
        assertThatThrownBy(() -> new InterProcessReadWriteLock(client, "/rw/")).isInstanceOf(
                IllegalArgumentException.class).hasMessageContaining("/rw/");
        assertThatThrownBy(() -> rw.readLock().acquire(-1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
