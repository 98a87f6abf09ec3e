package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Revocation with Curator's protocol: Baton and Curator holders and revokers, mutex, read-write lock, leases. */
@Timeout(60)
class RevocationTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        pool.shutdownNow();
    }

    @Test
    void aBatonRevokerReachesABatonHolderWhichReleases() throws Exception {
        BatonClient client = resources.untrackedClient();
        BatonClient otherClient = resources.untrackedClient();
        BatonClient revoker = resources.untrackedClient();
        InterProcessMutex lock = new InterProcessMutex(client, "/revoke/mutex");
        CountDownLatch asked = new CountDownLatch(1);
        List<InterProcessMutex> told = new CopyOnWriteArrayList<>();
        lock.makeRevocable(forLock -> {
            told.add(forLock);
            asked.countDown();
        });
        int watchesBefore = zk.server().watchCount();
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            try {
                lock.acquire();
                try {
                    asked.await(); // works until asked to give up
                } finally {
                    lock.release();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, pool);
        await().until(() -> lock.getParticipantNodes().size() == 1);
        String node = lock.getParticipantNodes().iterator().next();

        InterProcessMutex other = new InterProcessMutex(otherClient, "/revoke/mutex");
        Revoker.attemptRevoke(revoker, node);
        assertThat(other.acquire(10, TimeUnit.SECONDS)).isTrue();
        holder.get(10, TimeUnit.SECONDS);
        assertThat(told).containsExactly(lock);
        other.release();
        // The holder's data watch went with its node.
        await().untilAsserted(() -> assertThat(zk.server().watchCount()).isEqualTo(watchesBefore));
    }

    @Test
    void aRequestMadeWhileWaitingIsToldOnceTheLockIsGranted() throws Exception {
        InterProcessMutex first = new InterProcessMutex(resources.client(), "/revoke/waiting");
        first.acquire();
        InterProcessMutex second = new InterProcessMutex(resources.client(), "/revoke/waiting");
        List<InterProcessMutex> told = new CopyOnWriteArrayList<>();
        second.makeRevocable(told::add);
        CompletableFuture<Hold> waiting = second.acquireAsync();
        await().until(() -> second.getParticipantNodes().size() == 2);
        String secondNode = List.copyOf(second.getParticipantNodes()).get(1);
        Revoker.attemptRevokeAsync(resources.client(), secondNode).get(10, TimeUnit.SECONDS);
        assertThat(told).isEmpty(); // not holding yet
        first.release();
        Hold hold = waiting.get(10, TimeUnit.SECONDS);
        await().until(() -> told.size() == 1);
        hold.release();
    }

    @Test
    void theReadWriteLocksHalvesAreRevocable() throws Exception {
        InterProcessReadWriteLock rw = new InterProcessReadWriteLock(resources.client(), "/revoke/rw");
        List<String> told = new CopyOnWriteArrayList<>();
        rw.writeLock().makeRevocable(l -> told.add("write"), pool);
        rw.readLock().makeRevocable(l -> told.add("read"), pool);
        Hold write = rw.writeLock().acquireAsync().get(10, TimeUnit.SECONDS);
        Revoker.attemptRevoke(resources.client(), write.nodePath());
        await().until(() -> told.equals(List.of("write")));
        write.release();
        Hold read = rw.readLock().acquireAsync().get(10, TimeUnit.SECONDS);
        Revoker.attemptRevoke(resources.client(), read.nodePath());
        await().until(() -> told.equals(List.of("write", "read")));
        read.release();
    }

    @Test
    void aSemaphoreLeaseCanBeRevoked() throws Exception {
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(resources.client(), "/revoke/semaphore", 1);
        semaphore.makeRevocable(Lease::close); // gives the lease back when asked
        Lease lease = semaphore.acquire();
        InterProcessSemaphoreV2 other = new InterProcessSemaphoreV2(resources.client(), "/revoke/semaphore", 1);
        assertThat(other.acquire(100, TimeUnit.MILLISECONDS)).isNull();
        Revoker.attemptRevoke(resources.client(), lease.getNodePath());
        Lease next = other.acquire(10, TimeUnit.SECONDS);
        assertThat(next).isNotNull();
        assertThat(lease.isHeld()).isFalse();
        next.close();
    }

    @Test
    void aCuratorRevokerReachesABatonHolder() throws Exception {
        CuratorFramework curator = resources.curator();
        InterProcessMutex lock = new InterProcessMutex(resources.client(), "/revoke/from-curator");
        List<InterProcessMutex> told = new CopyOnWriteArrayList<>();
        lock.makeRevocable(told::add);
        Hold hold = lock.acquireAsync().get(10, TimeUnit.SECONDS);
        org.apache.curator.framework.recipes.locks.Revoker.attemptRevoke(curator, hold.nodePath());
        await().until(() -> told.size() == 1);
        hold.release();
    }

    @Test
    void aBatonRevokerReachesACuratorHolder() throws Exception {
        CuratorFramework curator = resources.curator();
        var theirs = new org.apache.curator.framework.recipes.locks.InterProcessMutex(curator, "/revoke/to-curator");
        CountDownLatch asked = new CountDownLatch(1);
        theirs.makeRevocable(forLock -> asked.countDown());
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            try {
                theirs.acquire();
                try {
                    asked.await();
                } finally {
                    theirs.release();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, pool);
        InterProcessMutex ours = new InterProcessMutex(resources.client(), "/revoke/to-curator");
        await().until(() -> ours.getParticipantNodes().size() == 1);
        Revoker.attemptRevoke(resources.client(), ours.getParticipantNodes().iterator().next());
        assertThat(ours.acquire(10, TimeUnit.SECONDS)).isTrue();
        holder.get(10, TimeUnit.SECONDS);
        ours.release();
    }

    @Test
    void revokingAGoneNodeDoesNothingAndBadArgumentsFail() throws Exception {
        BatonClient client = resources.client();
        Revoker.attemptRevoke(client, "/revoke/nothing/here");
        assertThat(client.checkExists().forPath("/revoke/nothing/here")).isNull();
        assertThatThrownBy(() -> Revoker.attemptRevoke(null, "/x")).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> Revoker.attemptRevoke(client, "x")).isInstanceOf(IllegalArgumentException.class);
        InterProcessMutex lock = new InterProcessMutex(client, "/revoke/bad");
        assertThatThrownBy(() -> lock.makeRevocable(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("listener");
        assertThatThrownBy(() -> lock.makeRevocable(l -> { }, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("executor");
    }
}
