package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
@Tag("slow")
class InterProcessSemaphoreV2Test {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void eightClientsNeverHoldMoreThanMaxLeasesWithSingleAndMultiLeaseAcquires() throws Exception {
        AtomicInteger out = new AtomicInteger();
        AtomicInteger maxOut = new AtomicInteger();
        AtomicInteger rounds = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(resources.client(), "/sem/eight", 3);
                int qty = c < 2 ? 2 : 1; // two clients take two leases at a time
                boolean async = c % 2 == 1;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < 12; i++) {
                        Collection<Lease> leases = async
                                ? semaphore.acquireAsync(qty, 60, TimeUnit.SECONDS).get()
                                : semaphore.acquire(qty);
                        assertThat(leases).hasSize(qty);
                        maxOut.accumulateAndGet(out.addAndGet(qty), Math::max);
                        Thread.yield();
                        out.addAndGet(-qty);
                        rounds.incrementAndGet();
                        semaphore.returnAll(leases);
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
        assertThat(rounds.get()).isEqualTo(96);
        assertThat(maxOut.get()).isBetween(1, 3);
    }

    /**
     * Multi-lease acquirers asking for every lease at once: taken lease by lease without more, two of them would
     * soon each hold one and wait for the other for ever.
     */
    @Test
    void multiLeaseAcquirersAskingForAllLeasesDoNotDeadlock() throws Exception {
        AtomicInteger out = new AtomicInteger();
        AtomicInteger maxOut = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> workers = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(resources.client(), "/sem/all", 2);
                int qty = c < 3 ? 2 : 1; // three ask for both leases, one for a single lease
                workers.add(pool.submit(() -> {
                    int granted = 0;
                    for (int i = 0; i < 15; i++) {
                        Collection<Lease> leases = semaphore.acquire(qty, 20, TimeUnit.SECONDS);
                        if (leases == null) {
                            continue;
                        }
                        granted++;
                        maxOut.accumulateAndGet(out.addAndGet(qty), Math::max);
                        Thread.yield();
                        out.addAndGet(-qty);
                        semaphore.returnAll(leases);
                    }
                    return granted;
                }));
            }
            for (Future<Integer> w : workers) {
                assertThat(w.get(100, TimeUnit.SECONDS)).as("acquires granted of 15").isEqualTo(15);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(maxOut.get()).isBetween(1, 2);
        assertThat(new InterProcessSemaphoreV2(resources.client(), "/sem/all", 2).getParticipantNodes()).isEmpty();
    }

    @Test
    void aHolderFurtherAheadThanThePredecessorHandsItsLeaseOn() throws Exception {
        InterProcessSemaphoreV2 a = new InterProcessSemaphoreV2(resources.client(), "/sem/window", 2);
        InterProcessSemaphoreV2 b = new InterProcessSemaphoreV2(resources.client(), "/sem/window", 2);
        Lease first = a.acquire();
        Lease second = b.acquire();
        CompletableFuture<Lease> third = a.acquireAsync();
        await().atMost(Duration.ofSeconds(10)).until(() -> a.getParticipantNodes().size() == 3);
        CompletableFuture<Lease> fourth = b.acquireAsync();
        await().atMost(Duration.ofSeconds(10)).until(() -> a.getParticipantNodes().size() == 4);
        assertThat(third).isNotDone();
        first.close(); // two places ahead of the first waiter, not its predecessor
        Lease got = third.get(10, TimeUnit.SECONDS);
        assertThat(got.fencingToken().getAsLong()).isGreaterThan(second.fencingToken().getAsLong());
        assertThat(fourth).isNotDone();
        second.close();
        fourth.get(10, TimeUnit.SECONDS).close();
        got.close();
        assertThat(a.getParticipantNodes()).isEmpty();
    }

    @Test
    void timedAcquireReturnsNullAndLeavesNoNode() throws Exception {
        InterProcessSemaphoreV2 holder = new InterProcessSemaphoreV2(resources.client(), "/sem/timed", 2);
        InterProcessSemaphoreV2 waiter = new InterProcessSemaphoreV2(resources.client(), "/sem/timed", 2);
        Collection<Lease> held = holder.acquire(2);
        assertThat(waiter.acquire(200, TimeUnit.MILLISECONDS)).isNull();
        assertThat(waiter.acquireAsync(100, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS)).isNull();
        assertThat(holder.getParticipantNodes()).hasSize(2);
        holder.returnLease(held.iterator().next());
        // all or nothing: one lease is free, two are asked for
        assertThat(waiter.acquire(2, 300, TimeUnit.MILLISECONDS)).isNull();
        assertThat(holder.getParticipantNodes()).hasSize(1);
        holder.returnAll(held);
        Collection<Lease> both = waiter.acquire(2, 10, TimeUnit.SECONDS);
        assertThat(both).hasSize(2).allMatch(Lease::isHeld);
        assertThat(both.iterator().next().getNodeName()).matches("_c_[0-9a-f-]{36}-lease-\\d{10}");
        assertThat(both.iterator().next().getData()).isEmpty();
        waiter.returnAll(both);
        assertThat(both).noneMatch(Lease::isHeld);
        assertThat(holder.getParticipantNodes()).isEmpty();
    }

    @Test
    void leaseHolderIsToldWhenItsSessionExpires() throws Exception {
        BatonClient holderClient = resources.client();
        InterProcessSemaphoreV2 holder = new InterProcessSemaphoreV2(holderClient, "/sem/lost", 1);
        InterProcessSemaphoreV2 other = new InterProcessSemaphoreV2(resources.client(), "/sem/lost", 1);
        List<HoldState> states = new CopyOnWriteArrayList<>();
        holder.getHoldListenable().addListener((hold, state) -> states.add(state));
        Lease lease = holder.acquire();
        assertThat(lease.safeFor()).isPositive();
        long token = lease.fencingToken().getAsLong();

        zk.server().expireSession(holderClient.getZooKeeper());

        Lease next = other.acquire(20, TimeUnit.SECONDS);
        assertThat(next).isNotNull();
        assertThat(next.fencingToken().getAsLong()).isGreaterThan(token);
        await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(HoldState.LOST));
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.state()).isEqualTo(HoldState.LOST);
        assertThat(lease.fencingToken()).isEmpty();
        assertThat(lease.safeFor()).isZero();
        lease.close(); // harmless: it does not delete the new holder's node
        assertThat(other.getParticipantNodes()).hasSize(1);
        next.close();
    }

    @Test
    void thousandAsyncWaitersHoldNoThreads() throws Exception {
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(resources.client(), "/sem/async", 2);
        Collection<Lease> held = semaphore.acquire(2);
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            waiters.add(semaphore.acquireAsync());
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> semaphore.getParticipantNodes().size() == 1002);
        Set<String> added = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                .map(Thread::getName)
                .filter(n -> !n.startsWith("NIOWorkerThread") && !n.startsWith("awaitility")
                        && !n.startsWith("baton-events") && !n.startsWith("ForkJoinPool"))
                .collect(Collectors.toSet());
        assertThat(added).as("threads added by 1,000 waiting acquires").isEmpty();
        assertThat(waiters).noneMatch(CompletableFuture::isDone);
        semaphore.returnAll(held);
        Lease a = waiters.get(0).get(10, TimeUnit.SECONDS);
        Lease b = waiters.get(1).get(10, TimeUnit.SECONDS);
        assertThat(waiters.get(2)).isNotDone();
        for (CompletableFuture<Lease> waiter : waiters) {
            if (!waiter.complete(null) && waiter.join() != null) {
                waiter.join().close();
            }
        }
        a.close();
        b.close();
        await().atMost(Duration.ofSeconds(30)).until(() -> semaphore.getParticipantNodes().isEmpty());
    }

    @Test
    void badArguments() throws Exception {
        BatonClient client = resources.client();
        assertThatThrownBy(() -> new InterProcessSemaphoreV2(client, "/sem/args", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxLeases");
        assertThatThrownBy(() -> new InterProcessSemaphoreV2(client, "/sem/args", -3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-3");
        assertThatThrownBy(() -> new InterProcessSemaphoreV2(null, "/sem/args", 1))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("client");
        assertThatThrownBy(() -> new InterProcessSemaphoreV2(client, null, 1))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("path");
        assertThatThrownBy(() -> new InterProcessSemaphoreV2(client, "sem/args", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sem/args");
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, "/sem/args", 1);
        assertThatThrownBy(() -> semaphore.acquire(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("qty");
        assertThatThrownBy(() -> semaphore.acquire(-1, 1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.acquire(-1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.acquire(1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> semaphore.acquireAsync(1, -1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.returnLease(null)).isInstanceOf(NullPointerException.class);
        assertThat(semaphore.getParticipantNodes()).isEmpty();
    }
}
