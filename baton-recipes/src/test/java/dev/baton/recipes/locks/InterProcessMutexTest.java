package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
@Tag("slow")
class InterProcessMutexTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private final List<BatonClient> clients = new ArrayList<>();

    private BatonClient client() throws InterruptedException {
        return client(zk.connectString());
    }

    private BatonClient client(String connectString) throws InterruptedException {
        BatonClient client = Baton.builder().connectString(connectString).ensembleTracker(false)
                .sessionTimeout(Duration.ofSeconds(10)).retryPolicy(new RetryOneTime(10)).build();
        clients.add(client);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    @AfterEach
    void close() {
        clients.forEach(BatonClient::close);
    }

    @Test
    void eightClientsWithTwoThreadsEachNeverLoseAnUpdate() throws Exception {
        int[] counter = {0}; // deliberately unsynchronized: only the lock protects it
        List<Long> tokens = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                InterProcessMutex lock = new InterProcessMutex(client(), "/mutex/counter");
                for (int t = 0; t < 2; t++) {
                    workers.add(pool.submit(() -> {
                        for (int i = 0; i < 10; i++) {
                            lock.acquire();
                            try {
                                tokens.add(lock.fencingToken().getAsLong());
                                int read = counter[0];
                                Thread.yield();
                                counter[0] = read + 1;
                            } finally {
                                lock.release();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> w : workers) {
                w.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(counter[0]).isEqualTo(160);
        assertThat(tokens).hasSize(160).doesNotHaveDuplicates();
        assertThat(tokens).isSorted(); // successive holders: strictly increasing fencing tokens
    }

    @Test
    void aBlockingAcquireUnderMissingParentsMakesThemAndHolds() throws Exception {
        BatonClient client = client();
        InterProcessMutex lock = new InterProcessMutex(client, "/mutex/fresh/a/b");
        assertThat(lock.acquire(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.getParticipantNodes()).hasSize(1);
        lock.release();
        assertThat(client.getChildren().forPath("/mutex/fresh/a/b")).isEmpty();
    }

    @Test
    void aBlockingAcquireOnTheEventThreadFailsAtOnce() throws Exception {
        BatonClient client = client();
        InterProcessMutex lock = new InterProcessMutex(client, "/mutex/event-thread");
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        client.checkExists().usingWatcher((org.apache.zookeeper.Watcher) e -> {
            try {
                lock.acquire();
                failure.complete(null);
            } catch (Exception | Error t) {
                failure.complete(t);
            }
        }).forPath("/mutex/event-thread-trigger");
        client.create().forPath("/mutex/event-thread-trigger");
        assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("event thread");
        assertThat(lock.getParticipantNodes()).isEmpty();
    }

    @Test
    void aZeroTimeoutTakesAFreeLockAndGivesUpAtOnceOnAHeldOne() throws Exception {
        InterProcessMutex lock = new InterProcessMutex(client(), "/mutex/zero");
        InterProcessMutex other = new InterProcessMutex(client(), "/mutex/zero");
        assertThat(lock.acquire(0, TimeUnit.SECONDS)).as("a free lock, blocking").isTrue();
        assertThat(other.acquire(0, TimeUnit.SECONDS)).as("a held lock").isFalse();
        assertThat(other.acquireAsync(0, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS)).as("held, async").isNull();
        assertThat(lock.getParticipantNodes()).hasSize(1);
        lock.release();
        Hold hold = other.acquireAsync(0, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        assertThat(hold).as("a free lock, async").isNotNull();
        hold.release();
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client(), "/mutex/zero-semaphore", 1);
        Lease lease = semaphore.acquire(0, TimeUnit.SECONDS);
        assertThat(lease).as("a free lease").isNotNull();
        assertThat(semaphore.acquire(0, TimeUnit.SECONDS)).as("no lease left").isNull();
        lease.close();
    }

    @Test
    void reentrantPerThread() throws Exception {
        InterProcessMutex lock = new InterProcessMutex(client(), "/mutex/reentrant");
        lock.acquire();
        assertThat(lock.acquire(1, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.holdCount()).isEqualTo(2);
        assertThat(lock.getParticipantNodes()).hasSize(1);
        lock.release();
        assertThat(lock.isOwnedByCurrentThread()).isTrue();
        lock.release();
        assertThat(lock.isOwnedByCurrentThread()).isFalse();
        assertThat(lock.isAcquiredInThisProcess()).isFalse();
        assertThatThrownBy(lock::release).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void anotherThreadCannotReleaseAndWaitsForTheHolder() throws Exception {
        InterProcessMutex lock = new InterProcessMutex(client(), "/mutex/threads");
        lock.acquire();
        CompletableFuture<Throwable> release = CompletableFuture.supplyAsync(() -> {
            try {
                lock.release();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        assertThat(release.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class);
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
            try {
                return lock.acquire(200, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(other.get(10, TimeUnit.SECONDS)).isFalse();
        lock.release();
    }

    @Test
    void timedAcquireThatTimesOutLeavesNoNode() throws Exception {
        InterProcessMutex holder = new InterProcessMutex(client(), "/mutex/timed");
        InterProcessMutex waiter = new InterProcessMutex(client(), "/mutex/timed");
        holder.acquire();
        CompletableFuture<Boolean> attempt = CompletableFuture.supplyAsync(() -> {
            try {
                return waiter.acquire(300, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(attempt.get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(holder.getParticipantNodes()).hasSize(1);
        holder.release();
        assertThat(holder.getParticipantNodes()).isEmpty();
    }

    @Test
    void asyncAcquireHoldsNoThreadWhileWaitingAndHandsOverInOrder() throws Exception {
        BatonClient client = client();
        InterProcessMutex lock = new InterProcessMutex(client, "/mutex/async");
        Hold first = lock.acquireAsync().get(10, TimeUnit.SECONDS);
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        List<CompletableFuture<Hold>> waiters = new ArrayList<>();
        for (int i = 0; i < 1000; i++) { // half with a deadline: timed on the client's scheduler, no timer thread
            waiters.add(i % 2 == 0 ? lock.acquireAsync() : lock.acquireAsync(10, TimeUnit.MINUTES));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> lock.getParticipantNodes().size() == 1001);
        Set<String> added = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                .map(Thread::getName)
                .filter(n -> !n.startsWith("NIOWorkerThread") && !n.startsWith("awaitility")
                        && !n.startsWith("baton-events") && !n.startsWith("baton-scheduler")
                        && !n.startsWith("ForkJoinPool"))
                .collect(Collectors.toSet());
        assertThat(added).as("threads added by 1,000 waiting acquires").isEmpty();
        assertThat(waiters).noneMatch(CompletableFuture::isDone);

        long token = first.fencingToken();
        first.release();
        for (CompletableFuture<Hold> waiter : waiters.subList(0, 5)) {
            Hold hold = waiter.get(10, TimeUnit.SECONDS);
            assertThat(hold.fencingToken()).isGreaterThan(token);
            token = hold.fencingToken();
            assertThat(lock.isAcquiredInThisProcess()).isTrue();
            hold.release();
        }
        for (CompletableFuture<Hold> waiter : waiters) {
            if (!waiter.complete(null) && waiter.join() != null) {
                waiter.join().release(); // it got the lock before we gave up
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> lock.getParticipantNodes().isEmpty());
    }

    @Test
    void giveUpAsyncCompletesOnceTheWaitersNodeIsGone() throws Exception {
        InterProcessMutex holder = new InterProcessMutex(client(), "/mutex/give-up");
        holder.acquire();
        try (TcpProxy proxy = TcpProxy.start("mutex", zk.port())) {
            BatonClient far = client(proxy.address());
            InterProcessMutex waiter = new InterProcessMutex(far, "/mutex/give-up");
            CompletableFuture<Hold> waiting = waiter.acquireAsync();
            await().until(() -> holder.getParticipantNodes().size() == 2);
            proxy.latency(Duration.ofMillis(500)); // each way: the delete is answered a second later
            waiter.giveUpAsync(waiting).get(10, TimeUnit.SECONDS);
            assertThat(waiting).isCompletedWithValue(null);
            assertThat(holder.getParticipantNodes()).hasSize(1);
            proxy.latency(Duration.ZERO);

            CompletableFuture<Hold> dropped = waiter.acquireAsync();
            await().until(() -> holder.getParticipantNodes().size() == 2);
            proxy.latency(Duration.ofMillis(500));
            dropped.complete(null); // given up by the caller first: giveUpAsync still tells when the node is gone
            waiter.giveUpAsync(dropped).get(10, TimeUnit.SECONDS);
            assertThat(holder.getParticipantNodes()).hasSize(1);
            proxy.latency(Duration.ZERO);

            holder.release();
            CompletableFuture<Hold> won = waiter.acquireAsync();
            Hold hold = won.get(10, TimeUnit.SECONDS);
            assertThat(waiter.giveUpAsync(won)).isCompletedWithValue(null); // a won acquisition is released
            assertThat(hold.isHeld()).isFalse();
            assertThat(holder.getParticipantNodes()).isEmpty();
            far.close();
        }
        InterProcessMutex other = new InterProcessMutex(client(), "/mutex/give-up");
        CompletableFuture<Hold> foreign = new CompletableFuture<>();
        assertThatThrownBy(() -> other.giveUpAsync(foreign))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/mutex/give-up");
        assertThat(foreign).isNotDone();
        assertThatThrownBy(() -> other.giveUpAsync(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("acquisition");
    }

    @Test
    void holderIsToldWhenItsSessionExpiresAndAnotherTakesOver() throws Exception {
        BatonClient holderClient = client();
        InterProcessMutex holderLock = new InterProcessMutex(holderClient, "/mutex/lost");
        InterProcessMutex other = new InterProcessMutex(client(), "/mutex/lost");
        List<HoldState> states = new CopyOnWriteArrayList<>();
        holderLock.getHoldListenable().addListener((hold, state) -> states.add(state));
        holderLock.acquire();
        long token = holderLock.fencingToken().getAsLong();
        assertThat(holderLock.safeFor()).isPositive();

        zk.server().expireSession(holderClient.getZooKeeper());

        assertThat(other.acquire(20, TimeUnit.SECONDS)).isTrue();
        assertThat(other.fencingToken().getAsLong()).isGreaterThan(token);
        await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(HoldState.LOST));
        assertThat(holderLock.isAcquiredInThisProcess()).isFalse();
        assertThat(holderLock.isOwnedByCurrentThread()).isFalse();
        assertThat(holderLock.fencingToken()).isEmpty();
        assertThat(holderLock.safeFor()).isZero();
        holderLock.release(); // the owner may still release: no exception, nothing deleted that isn't its own
        assertThat(other.isOwnedByCurrentThread()).isTrue();
        other.release();
    }

    @Test
    void badArguments() throws Exception {
        BatonClient client = client();
        assertThatThrownBy(() -> new InterProcessMutex(null, "/x")).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new InterProcessMutex(client, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("path");
        assertThatThrownBy(() -> new InterProcessMutex(client, "bad//path"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad//path");
        InterProcessMutex lock = new InterProcessMutex(client, "/mutex/args");
        assertThatThrownBy(() -> lock.acquire(-1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lock.acquire(1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> lock.acquireAsync(-5, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
