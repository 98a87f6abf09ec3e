package dev.baton.recipes.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.BatonEventType;
import dev.baton.recipes.locks.InterProcessMultiLock;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.recipes.locks.InterProcessReadWriteLock;
import dev.baton.recipes.locks.InterProcessSemaphoreMutex;
import dev.baton.recipes.locks.InterProcessSemaphoreV2;
import dev.baton.recipes.locks.Lease;
import dev.baton.recipes.locks.Revoker;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * README.md's lock examples, line for line (checked by {@link DocsMirrorTest}), run against an embedded server:
 * each piece of work runs while its lock is held, and every lock is given back.
 */
@Timeout(120)
class ReadmeLocksTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /** The client the examples use. */
    private BatonClient client;
    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final Object catalog = "the catalog";
    private final Object from = "account 1";
    private final Object to = "account 2";
    private final AtomicBoolean stopSoon = new AtomicBoolean();
    private final List<String> work = new CopyOnWriteArrayList<>();
    private final AtomicInteger leasesReturned = new AtomicInteger();

    @BeforeEach
    void startClient() throws InterruptedException {
        client = Baton.newClient(zk.connectString(), new RetryOneTime(10));
        client.getOperationListenable().addListener(op -> {
            if (op.type() == BatonEventType.DELETE && op.isOk() && op.path().startsWith("/semaphores/exports/")) {
                leasesReturned.incrementAndGet();
            }
        });
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void closeClient() {
        executor.shutdownNow();
        client.close();
    }

    /** A parent's children; none once the server removed the empty container. */
    private List<String> children(String path) throws Exception {
        return client.checkExists().forPath(path) == null ? List.of() : client.getChildren().forPath(path);
    }

    void render(Object what) throws Exception {
        work.add("render " + what + " under " + children("/locks/catalog"));
    }

    void runExport(long fencingToken) {
        work.add("export with token " + fencingToken);
    }

    void runBatch() {
        work.add("batch on " + Thread.currentThread().getName());
    }

    void transfer(Object from, Object to) {
        try {
            work.add("transfer from " + from + " to " + to + " holding " + children("/locks/from").size() + "+"
                    + children("/locks/to").size());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theCatalogIsRenderedUnderTheReadLock() throws Exception {
        // README.md begin read-write-lock
        InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, "/locks/catalog");
        rw.readLock().acquire();
        try {
            render(catalog);
        } finally {
            rw.readLock().release();
        }
        // README.md end read-write-lock
        assertThat(work).singleElement().asString().matches("render the catalog under \\[_c_.*-__READ__0000000000\\]");
        assertThat(children("/locks/catalog")).isEmpty();
    }

    @Test
    void theExportRunsWithItsLeasesToken() throws Exception {
        // README.md begin semaphore
        InterProcessSemaphoreV2 exports = new InterProcessSemaphoreV2(client, "/semaphores/exports", 3);
        try (Lease lease = exports.acquire(10, TimeUnit.SECONDS)) {
            if (lease != null) {
                runExport(lease.fencingToken().getAsLong());
            }
        }
        exports.acquireAsync().thenAccept(lease -> { /* no thread waits meanwhile */ lease.close(); });
        // README.md end semaphore
        assertThat(work).singleElement().asString().matches("export with token [1-9]\\d*");
        await().atMost(Duration.ofSeconds(30)).until(() -> leasesReturned.get() == 2);   // the async lease too
        assertThat(exports.getParticipantNodes()).isEmpty();
    }

    @Test
    void theBatchRunsOnTheExecutorWhichReleasesTheMutex() throws Exception {
        String testThread = Thread.currentThread().getName();
        // README.md begin semaphore-mutex
        InterProcessSemaphoreMutex batch = new InterProcessSemaphoreMutex(client, "/locks/batch");
        batch.acquire();
        executor.execute(() -> {
            try {
                runBatch();
            } finally {
                batch.release();
            }
        });
        // README.md end semaphore-mutex
        await().atMost(Duration.ofSeconds(30)).until(() -> !batch.isAcquiredInThisProcess());
        assertThat(work).singleElement().asString().startsWith("batch on ").doesNotEndWith(" " + testThread);
        assertThat(batch.getParticipantNodes()).isEmpty();
    }

    @Test
    void theTransferRunsHoldingBothLocks() throws Exception {
        // README.md begin multi-lock
        InterProcessMultiLock both = new InterProcessMultiLock(client, List.of("/locks/from", "/locks/to"));
        if (both.acquire(5, TimeUnit.SECONDS)) {
            try {
                transfer(from, to);
            } finally {
                both.release();
            }
        }
        both.acquireAsync().thenAccept(hold -> { transfer(from, to); hold.release(); });   // no thread waits meanwhile
        // README.md end multi-lock
        await().atMost(Duration.ofSeconds(30)).until(() -> work.size() == 2 && !both.isAcquiredInThisProcess());
        assertThat(work).containsOnly("transfer from account 1 to account 2 holding 1+1");
        await().atMost(Duration.ofSeconds(30)).until(() -> children("/locks/from").isEmpty()
                && children("/locks/to").isEmpty());
    }

    @Test
    void theHolderIsAskedToGiveUp() throws Exception {
        // README.md begin revocation
        InterProcessMutex lock = new InterProcessMutex(client, "/locks/report");
        lock.makeRevocable(forLock -> stopSoon.set(true));        // then release() from the holding thread
        lock.acquire();                                           // the holder works until stopSoon
        Revoker.attemptRevoke(client, lock.getParticipantNodes().iterator().next());   // from anywhere: ask the holder
        // README.md end revocation
        await().atMost(Duration.ofSeconds(30)).untilTrue(stopSoon);
        assertThat(lock.isAcquiredInThisProcess()).isTrue();   // asked, not forced: the holder decides
        lock.release();
        assertThat(lock.getParticipantNodes()).isEmpty();
    }
}
