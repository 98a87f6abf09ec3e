package dev.baton.recipes.atomic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.retry.RetryForever;
import dev.baton.retry.RetryNTimes;
import dev.baton.retry.RetryOneTime;
import dev.baton.retry.RetryPolicy;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
@Tag("slow")
class DistributedAtomicTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private final List<BatonClient> clients = new ArrayList<>();
    private BatonClient client;

    private BatonClient newClient() throws InterruptedException {
        BatonClient c = Baton.builder().connectString(zk.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).retryPolicy(new RetryOneTime(10)).build();
        clients.add(c);
        c.start();
        assertThat(c.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return c;
    }

    @BeforeEach
    void setUp() throws InterruptedException {
        client = newClient();
    }

    @AfterEach
    void tearDown() {
        clients.forEach(BatonClient::close);
    }

    @Test
    void getSyncsTheServerBeforeItReads() throws Exception {
        DistributedAtomicLong counter = new DistributedAtomicLong(client, "/atomic/synced", new RetryNTimes(3, 1));
        counter.increment();
        for (boolean async : new boolean[] {false, true}) {
            Map<String, Long> before = zk.server().requestCounts();
            long value = async ? counter.getAsync().get(10, TimeUnit.SECONDS).postValue() : counter.get().postValue();
            Map<String, Long> after = zk.server().requestCounts();
            assertThat(value).isEqualTo(1L);
            assertThat(after.getOrDefault("sync", 0L) - before.getOrDefault("sync", 0L)).as("syncs").isEqualTo(1L);
            assertThat(after.getOrDefault("getData", 0L) - before.getOrDefault("getData", 0L)).as("reads")
                    .isEqualTo(1L);
        }
    }

    @Test
    void longSemantics() throws Exception {
        DistributedAtomicLong counter = new DistributedAtomicLong(client, "/atomic/long", new RetryNTimes(3, 1));
        assertThat(counter.get()).isEqualTo(new AtomicValue<>(true, 0L, 0L)); // missing node reads as 0
        assertThat(counter.increment()).isEqualTo(new AtomicValue<>(true, 0L, 1L));
        assertThat(client.getData().forPath("/atomic/long")).hasSize(8);
        assertThat(counter.add(10L)).isEqualTo(new AtomicValue<>(true, 1L, 11L));
        assertThat(counter.subtract(4L)).isEqualTo(new AtomicValue<>(true, 11L, 7L));
        assertThat(counter.decrement()).isEqualTo(new AtomicValue<>(true, 7L, 6L));
        assertThat(counter.compareAndSet(5L, 50L)).isEqualTo(new AtomicValue<>(false, 6L, 6L));
        assertThat(counter.compareAndSet(6L, 60L)).isEqualTo(new AtomicValue<>(true, 6L, 60L));
        assertThat(counter.trySet(-3L)).isEqualTo(new AtomicValue<>(true, 60L, -3L));
        assertThat(counter.forceSet(Long.MAX_VALUE)).isEqualTo(new AtomicValue<>(true, -3L, Long.MAX_VALUE));
        assertThat(counter.increment().postValue()).isEqualTo(Long.MIN_VALUE); // wraps as Java does
        assertThat(counter.initialize(5L)).isEqualTo(new AtomicValue<>(false, Long.MIN_VALUE, Long.MIN_VALUE));
        assertThat(ByteBuffer.wrap(client.getData().forPath("/atomic/long")).getLong()).isEqualTo(Long.MIN_VALUE);

        DistributedAtomicLong fresh = new DistributedAtomicLong(client, "/atomic/fresh/long", new RetryOneTime(1));
        assertThat(fresh.initialize(5L)).isEqualTo(new AtomicValue<>(true, 0L, 5L));
        assertThat(fresh.initialize(6L)).isEqualTo(new AtomicValue<>(false, 5L, 5L));
        client.setData().forPath("/atomic/fresh/long", new byte[0]); // empty data reads as 0
        assertThat(fresh.get().postValue()).isZero();
        assertThat(new DistributedAtomicLong(client, "/atomic/cas", new RetryOneTime(1)).compareAndSet(0L, 9L))
                .isEqualTo(new AtomicValue<>(true, 0L, 9L)); // creates: missing reads as 0
        assertThat(new DistributedAtomicLong(client, "/atomic/forced/x", new RetryOneTime(1)).forceSet(4L))
                .isEqualTo(new AtomicValue<>(true, 0L, 4L));
    }

    @Test
    void integerSemantics() throws Exception {
        DistributedAtomicInteger counter = new DistributedAtomicInteger(client, "/atomic/int", new RetryNTimes(3, 1));
        assertThat(counter.get()).isEqualTo(new AtomicValue<>(true, 0, 0));
        assertThat(counter.increment()).isEqualTo(new AtomicValue<>(true, 0, 1));
        assertThat(client.getData().forPath("/atomic/int")).containsExactly(0, 0, 0, 1);
        assertThat(counter.add(Integer.MAX_VALUE).postValue()).isEqualTo(Integer.MIN_VALUE);
        assertThat(counter.subtract(1).postValue()).isEqualTo(Integer.MAX_VALUE);
        assertThat(counter.decrement().postValue()).isEqualTo(Integer.MAX_VALUE - 1);
        assertThat(counter.compareAndSet(1, 2).succeeded()).isFalse();
        assertThat(counter.compareAndSet(Integer.MAX_VALUE - 1, 2)).isEqualTo(new AtomicValue<>(true,
                Integer.MAX_VALUE - 1, 2));
        assertThat(counter.trySet(3)).isEqualTo(new AtomicValue<>(true, 2, 3));
        assertThat(counter.forceSet(4)).isEqualTo(new AtomicValue<>(true, 3, 4));
        assertThat(counter.initialize(0).succeeded()).isFalse();

        client.setData().forPath("/atomic/int", new byte[] {1, 2, 3});
        assertThatThrownBy(counter::get).isInstanceOf(IllegalStateException.class).hasMessageContaining("3 bytes");
    }

    /**
     * A client whose every transaction is preceded by a write from another client: every optimistic attempt
     * loses its race, deterministically. {@code racesToLose} attempts are spoiled, then no more.
     */
    private BatonClient spoiling(BatonClient real, BatonClient rival, String path, int racesToLose,
            AtomicInteger attempts) {
        return (BatonClient) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {BatonClient.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("transaction")) {
                        if (attempts.incrementAndGet() <= racesToLose) {
                            byte[] now = rival.getData().forPath(path);
                            rival.setData().forPath(path, now); // same value, new version
                        }
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void succeededIsFalseWhenRetriesRunOut() throws Exception {
        BatonClient rival = newClient();
        new DistributedAtomicLong(client, "/atomic/lost", new RetryOneTime(1)).initialize(10L);

        AtomicInteger attempts = new AtomicInteger();
        DistributedAtomicLong noRetries = new DistributedAtomicLong(
                spoiling(client, rival, "/atomic/lost", Integer.MAX_VALUE, attempts), "/atomic/lost",
                new RetryNTimes(0, 0));
        AtomicValue<Long> result = noRetries.increment();
        assertThat(result).isEqualTo(new AtomicValue<>(false, 10L, 10L));
        assertThat(attempts).hasValue(1);

        attempts.set(0);
        List<Integer> retriesAsked = new ArrayList<>();
        RetryPolicy twice = (count, elapsed) -> {
            retriesAsked.add(count);
            return new RetryNTimes(2, 0).delayBeforeRetry(count, elapsed);
        };
        DistributedAtomicLong threeTries = new DistributedAtomicLong(
                spoiling(client, rival, "/atomic/lost", Integer.MAX_VALUE, attempts), "/atomic/lost", twice);
        assertThat(threeTries.add(5L).succeeded()).isFalse();
        assertThat(attempts).hasValue(3);
        assertThat(retriesAsked).containsExactly(0, 1, 2);
        assertThat(threeTries.get().postValue()).isEqualTo(10L); // nothing written

        attempts.set(0);
        DistributedAtomicLong winsOnThird = new DistributedAtomicLong(
                spoiling(client, rival, "/atomic/lost", 2, attempts), "/atomic/lost", new RetryNTimes(2, 0));
        assertThat(winsOnThird.increment()).isEqualTo(new AtomicValue<>(true, 10L, 11L));
        assertThat(attempts).hasValue(3);
    }

    @Test
    void promotedToLockTriesAgainUnderTheMutex() throws Exception {
        BatonClient rival = newClient();
        AtomicInteger attempts = new AtomicInteger();
        new DistributedAtomicInteger(client, "/atomic/promoted", new RetryOneTime(1)).initialize(1);
        PromotedToLock promoted = PromotedToLock.builder().lockPath("/atomic/promoted-lock")
                .timeout(5, TimeUnit.SECONDS).retryPolicy(new RetryNTimes(1, 0)).build();
        DistributedAtomicInteger counter = new DistributedAtomicInteger(
                spoiling(client, rival, "/atomic/promoted", 1, attempts), "/atomic/promoted",
                new RetryNTimes(0, 0), promoted);
        assertThat(counter.increment()).isEqualTo(new AtomicValue<>(true, 1, 2));
        assertThat(attempts).hasValue(2); // one optimistic attempt lost, one under the lock won
        assertThat(lockNodes("/atomic/promoted-lock")).isEmpty(); // released
    }

    @Test
    void eightContendingClientsLoseNoIncrement() throws Exception {
        int contenders = 8;
        int each = 25;
        ExecutorService pool = Executors.newFixedThreadPool(contenders);
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (int i = 0; i < contenders; i++) {
                BatonClient own = newClient();
                DistributedAtomicLong counter = new DistributedAtomicLong(own, "/atomic/contended",
                        new ExponentialBackoffRetry(1, 50, 20));
                DistributedAtomicInteger small = new DistributedAtomicInteger(own, "/atomic/contended-int",
                        new ExponentialBackoffRetry(1, 50, 20));
                runs.add(pool.submit(() -> {
                    int failed = 0;
                    for (int n = 0; n < each; n++) {
                        failed += counter.increment().succeeded() ? 0 : 1;
                        failed += small.add(2).succeeded() ? 0 : 1;
                    }
                    return failed;
                }));
            }
            for (Future<Integer> f : runs) {
                assertThat(f.get(40, TimeUnit.SECONDS)).isZero();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(new DistributedAtomicLong(client, "/atomic/contended", new RetryOneTime(1)).get().postValue())
                .isEqualTo((long) contenders * each);
        assertThat(new DistributedAtomicInteger(client, "/atomic/contended-int", new RetryOneTime(1)).get()
                .postValue()).isEqualTo(contenders * each * 2);
    }

    @Test
    void anUpdateRightAfterItsOwnWriteSendsOnlyTheWrite() throws Exception {
        DistributedAtomicLong counter = new DistributedAtomicLong(client, "/atomic/memory", new RetryNTimes(3, 1));
        counter.increment(); // creates the node
        int increments = 40;
        long before = zk.server().requestCount();
        for (int i = 0; i < increments; i++) {
            assertThat(counter.increment().succeeded()).isTrue();
        }
        long sent = zk.server().requestCount() - before;
        // Reading before each write would be 80 requests; from memory, a read only every eighth write (up to 45) or
        // after a pause longer than one read and write (a thread descheduled, a collection): well under 80.
        assertThat(sent).isBetween((long) increments, 60L);
        assertThat(counter.get().postValue()).isEqualTo(increments + 1L);
    }

    @Test
    void anUpdateFromMemoryThatFindsTheCounterMovedAppliesToTheNewValue() throws Exception {
        BatonClient other = newClient();
        DistributedAtomicLong counter = new DistributedAtomicLong(client, "/atomic/moved", new RetryNTimes(3, 1));
        for (long moved = 100; moved < 110; moved++) {
            counter.increment();
            // Written straight after, so the counter's memory of its own write is usually still fresh (whether it is
            // depends on timing; the outcome may not).
            other.setData().forPath("/atomic/moved", ByteBuffer.allocate(Long.BYTES).putLong(moved).array());
            assertThat(counter.add(5L)).isEqualTo(new AtomicValue<>(true, moved, moved + 5));
        }
    }

    @Test
    void threadsSharingOneInstanceLoseNoIncrement() throws Exception {
        DistributedAtomicLong shared = new DistributedAtomicLong(client, "/atomic/shared", new RetryForever(0));
        int threads = 4;
        int each = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Long>> runs = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                runs.add(pool.submit(() -> {
                    long lastSeen = Long.MIN_VALUE;
                    for (int n = 0; n < each; n++) {
                        AtomicValue<Long> result = shared.increment();
                        assertThat(result.succeeded()).isTrue();
                        assertThat(result.postValue()).isEqualTo(result.preValue() + 1).isGreaterThan(lastSeen);
                        lastSeen = result.postValue();
                    }
                    return lastSeen;
                }));
            }
            for (Future<Long> run : runs) {
                run.get(40, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(shared.get().postValue()).isEqualTo((long) threads * each);
    }

    @Test
    void asyncFormsMatchTheBlockingOnes() throws Exception {
        DistributedAtomicLong counter = new DistributedAtomicLong(client, "/atomic/async/long", new RetryNTimes(3, 1));
        assertThat(counter.getAsync().get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 0L, 0L));
        assertThat(counter.incrementAsync().get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 0L, 1L));
        assertThat(client.getData().forPath("/atomic/async/long")).hasSize(8);
        assertThat(counter.addAsync(10L).get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 1L, 11L));
        assertThat(counter.subtractAsync(4L).get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 11L, 7L));
        assertThat(counter.decrementAsync().get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 7L, 6L));
        assertThat(counter.compareAndSetAsync(5L, 50L).get(10, TimeUnit.SECONDS))
                .isEqualTo(new AtomicValue<>(false, 6L, 6L));
        assertThat(counter.compareAndSetAsync(6L, 60L).get(10, TimeUnit.SECONDS))
                .isEqualTo(new AtomicValue<>(true, 6L, 60L));
        assertThat(counter.trySetAsync(-3L).get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 60L, -3L));
        assertThat(counter.forceSetAsync(Long.MAX_VALUE).get(10, TimeUnit.SECONDS))
                .isEqualTo(new AtomicValue<>(true, -3L, Long.MAX_VALUE));
        assertThat(counter.incrementAsync().get(10, TimeUnit.SECONDS).postValue()).isEqualTo(Long.MIN_VALUE);
        assertThat(counter.initializeAsync(5L).get(10, TimeUnit.SECONDS).succeeded()).isFalse();
        assertThat(counter.get().postValue()).isEqualTo(Long.MIN_VALUE);

        DistributedAtomicLong fresh = new DistributedAtomicLong(client, "/atomic/async/fresh/long",
                new RetryOneTime(1));
        // parents created as containers
        assertThat(fresh.initializeAsync(5L).get(10, TimeUnit.SECONDS).succeeded()).isTrue();
        assertThat(fresh.initializeAsync(6L).get(10, TimeUnit.SECONDS).succeeded()).isFalse();
        assertThat(fresh.get().postValue()).isEqualTo(5L);
        assertThat(new DistributedAtomicLong(client, "/atomic/async/cas", new RetryOneTime(1))
                .compareAndSetAsync(0L, 9L).get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 0L, 9L));
        assertThat(new DistributedAtomicLong(client, "/atomic/async/forced/x", new RetryOneTime(1))
                .forceSetAsync(4L).get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 0L, 4L));

        DistributedAtomicInteger small = new DistributedAtomicInteger(client, "/atomic/async/int",
                new RetryNTimes(3, 1));
        assertThat(small.incrementAsync().get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 0, 1));
        assertThat(client.getData().forPath("/atomic/async/int")).containsExactly(0, 0, 0, 1);
        assertThat(small.addAsync(Integer.MAX_VALUE).get(10, TimeUnit.SECONDS).postValue())
                .isEqualTo(Integer.MIN_VALUE);
        assertThat(small.subtractAsync(1).get(10, TimeUnit.SECONDS).postValue()).isEqualTo(Integer.MAX_VALUE);
        assertThat(small.decrementAsync().get(10, TimeUnit.SECONDS).postValue()).isEqualTo(Integer.MAX_VALUE - 1);
        assertThat(small.compareAndSetAsync(1, 2).get(10, TimeUnit.SECONDS).succeeded()).isFalse();
        assertThat(small.compareAndSetAsync(Integer.MAX_VALUE - 1, 2).get(10, TimeUnit.SECONDS).succeeded()).isTrue();
        assertThat(small.trySetAsync(3).get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 2, 3));
        assertThat(small.forceSetAsync(4).get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 3, 4));
        assertThat(small.initializeAsync(0).get(10, TimeUnit.SECONDS).succeeded()).isFalse();
        assertThat(small.getAsync().get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 4, 4));
    }

    @Test
    void asyncFailuresCompleteTheFutureExceptionally() throws Exception {
        client.create().creatingParentsIfNeeded().forPath("/atomic/async/bad", new byte[] {1, 2, 3});
        DistributedAtomicInteger bad = new DistributedAtomicInteger(client, "/atomic/async/bad", new RetryOneTime(1));
        Throwable seen = bad.incrementAsync().handle((v, e) -> e).get(10, TimeUnit.SECONDS);
        assertThat(seen).isInstanceOf(IllegalStateException.class).hasMessageContaining("3 bytes"); // not wrapped
        assertThatThrownBy(() -> bad.getAsync().get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);

        // The server refuses: ZooKeeper's own exception.
        client.create().withMode(CreateMode.EPHEMERAL).forPath("/atomic-ephemeral");
        DistributedAtomicLong underEphemeral = new DistributedAtomicLong(client, "/atomic-ephemeral/x",
                new RetryOneTime(1));
        assertThat(underEphemeral.incrementAsync().handle((v, e) -> e).get(10, TimeUnit.SECONDS))
                .isInstanceOf(KeeperException.NoChildrenForEphemeralsException.class);
        assertThatThrownBy(underEphemeral::increment)
                .isInstanceOf(KeeperException.NoChildrenForEphemeralsException.class);

        BatonClient closed = newClient();
        DistributedAtomicLong onClosed = new DistributedAtomicLong(closed, "/atomic/async/closed", new RetryOneTime(1));
        closed.close();
        assertThat(onClosed.incrementAsync().handle((v, e) -> e).get(10, TimeUnit.SECONDS))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void eightClientsIncrementingAsynchronouslyLoseNoIncrement() throws Exception {
        int contenders = 8;
        int each = 25;
        List<CompletableFuture<Integer>> runs = new ArrayList<>();
        for (int i = 0; i < contenders; i++) {
            BatonClient own = newClient();
            DistributedAtomicLong counter = new DistributedAtomicLong(own, "/atomic/async/contended",
                    new ExponentialBackoffRetry(1, 50, 20));
            DistributedAtomicInteger small = new DistributedAtomicInteger(own, "/atomic/async/contended-int",
                    new ExponentialBackoffRetry(1, 50, 20));
            // Each client chains its changes, one after another; no thread of the test waits meanwhile.
            CompletableFuture<Integer> failed = CompletableFuture.completedFuture(0);
            for (int n = 0; n < each; n++) {
                failed = failed.thenCompose(f -> counter.incrementAsync()
                        .thenCombine(small.addAsync(2), (a, b) -> f + lost(a) + lost(b)));
            }
            runs.add(failed);
        }
        for (CompletableFuture<Integer> run : runs) {
            assertThat(run.get(40, TimeUnit.SECONDS)).isZero();
        }
        assertThat(new DistributedAtomicLong(client, "/atomic/async/contended", new RetryOneTime(1)).get().postValue())
                .isEqualTo((long) contenders * each);
        assertThat(new DistributedAtomicInteger(client, "/atomic/async/contended-int", new RetryOneTime(1)).get()
                .postValue()).isEqualTo(contenders * each * 2);
    }

    private static int lost(AtomicValue<?> result) {
        return result.succeeded() ? 0 : 1;
    }

    @Test
    void aRetryAtOnceBacksOffWithinTwiceTheQueuedTimeDoublingPerLossToFourTimesThat() {
        long queued = 1_000_000;
        for (int lost = 1; lost <= 6; lost++) {
            long window = 2 * queued << Math.min(lost - 1, 2);
            for (int i = 0; i < 200; i++) {
                assertThat(AtomicCore.backOff(Duration.ZERO, lost, queued).toNanos()).isBetween(0L, window);
            }
        }
        // No queue (a long round trip is not contention): still spread, but by microseconds only.
        for (int i = 0; i < 200; i++) {
            assertThat(AtomicCore.backOff(Duration.ZERO, 1, 0).toNanos()).isBetween(0L, 1_000L);
        }
        // Spread out, not a fixed sleep: draws differ.
        assertThat(IntStream.range(0, 50)
                .mapToObj(i -> AtomicCore.backOff(Duration.ZERO, 3, queued)).distinct().count()).isGreaterThan(1);
        // A pause the policy sets is the user's choice and is kept.
        assertThat(AtomicCore.backOff(Duration.ofMillis(20), 5, queued)).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void theQueuedPartOfAnAttemptIsWhatItTookBeyondTheQuickestAttemptSeen() {
        AtomicCore<Long> core = new AtomicCore<>(client, "/queued", new RetryNTimes(1, 0), null, null);
        assertThat(core.queuedPart(3_000_000)).isZero(); // the first: nothing quicker known
        assertThat(core.queuedPart(3_400_000)).isEqualTo(400_000);
        assertThat(core.queuedPart(2_000_000)).isZero(); // a new quickest
        assertThat(core.queuedPart(3_400_000)).isEqualTo(1_400_000);
        assertThat(core.queuedPart(2_000_000)).isZero();
    }

    @Test
    void asyncSucceededIsFalseWhenRetriesRunOut() throws Exception {
        BatonClient rival = newClient();
        new DistributedAtomicLong(client, "/atomic/async/lost", new RetryOneTime(1)).initialize(10L);

        AtomicInteger attempts = new AtomicInteger();
        DistributedAtomicLong noRetries = new DistributedAtomicLong(
                spoiling(client, rival, "/atomic/async/lost", Integer.MAX_VALUE, attempts), "/atomic/async/lost",
                new RetryNTimes(0, 0));
        assertThat(noRetries.incrementAsync().get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(false, 10L, 10L));
        assertThat(attempts).hasValue(1);

        // Pauses between attempts, as the policy asks, scheduled rather than slept.
        attempts.set(0);
        List<Integer> retriesAsked = new CopyOnWriteArrayList<>();
        RetryPolicy twice = (count, elapsed) -> {
            retriesAsked.add(count);
            return new RetryNTimes(2, 20).delayBeforeRetry(count, elapsed);
        };
        DistributedAtomicLong threeTries = new DistributedAtomicLong(
                spoiling(client, rival, "/atomic/async/lost", Integer.MAX_VALUE, attempts), "/atomic/async/lost",
                twice);
        long start = System.nanoTime();
        AtomicValue<Long> lost = threeTries.addAsync(5L).get(10, TimeUnit.SECONDS);
        assertThat(lost.succeeded()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(40));
        assertThat(attempts).hasValue(3);
        assertThat(retriesAsked).containsExactly(0, 1, 2);
        assertThat(threeTries.getAsync().get(10, TimeUnit.SECONDS).postValue()).isEqualTo(10L); // nothing written

        attempts.set(0);
        DistributedAtomicLong winsOnThird = new DistributedAtomicLong(
                spoiling(client, rival, "/atomic/async/lost", 2, attempts), "/atomic/async/lost",
                new RetryNTimes(2, 5));
        assertThat(winsOnThird.incrementAsync().get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 10L, 11L));
        assertThat(attempts).hasValue(3);
    }

    @Test
    void asyncPromotedToLockTriesAgainUnderTheMutex() throws Exception {
        BatonClient rival = newClient();
        AtomicInteger attempts = new AtomicInteger();
        new DistributedAtomicInteger(client, "/atomic/async/promoted", new RetryOneTime(1)).initialize(1);
        PromotedToLock promoted = PromotedToLock.builder().lockPath("/atomic/async/promoted-lock")
                .timeout(5, TimeUnit.SECONDS).retryPolicy(new RetryNTimes(1, 0)).build();
        DistributedAtomicInteger counter = new DistributedAtomicInteger(
                spoiling(client, rival, "/atomic/async/promoted", 1, attempts), "/atomic/async/promoted",
                new RetryNTimes(0, 0), promoted);
        assertThat(counter.incrementAsync().get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(true, 1, 2));
        assertThat(attempts).hasValue(2); // one optimistic attempt lost, one under the lock won
        await().until(() -> lockNodes("/atomic/async/promoted-lock").isEmpty()); // released

        // The mutex is held elsewhere past the timeout: the optimistic outcome stands, nothing is left behind.
        InterProcessMutex holder = new InterProcessMutex(rival, "/atomic/async/promoted-lock");
        holder.acquire();
        try {
            PromotedToLock briefly = PromotedToLock.builder().lockPath("/atomic/async/promoted-lock")
                    .timeout(100, TimeUnit.MILLISECONDS).build();
            attempts.set(0);
            DistributedAtomicInteger blocked = new DistributedAtomicInteger(
                    spoiling(client, rival, "/atomic/async/promoted", Integer.MAX_VALUE, attempts),
                    "/atomic/async/promoted", new RetryNTimes(0, 0), briefly);
            assertThat(blocked.incrementAsync().get(10, TimeUnit.SECONDS)).isEqualTo(new AtomicValue<>(false, 2, 2));
            assertThat(attempts).hasValue(1);
            await().until(() -> lockNodes("/atomic/async/promoted-lock").size() == 1);
        } finally {
            holder.release();
        }
    }

    @Test
    void cancellingAnAsyncChangeStopsItsAttempts() throws Exception {
        BatonClient rival = newClient();
        new DistributedAtomicLong(client, "/atomic/async/cancelled", new RetryOneTime(1)).initialize(0L);
        AtomicInteger attempts = new AtomicInteger();
        DistributedAtomicLong forever = new DistributedAtomicLong(
                spoiling(client, rival, "/atomic/async/cancelled", Integer.MAX_VALUE, attempts),
                "/atomic/async/cancelled", new RetryForever(5));
        CompletableFuture<AtomicValue<Long>> change = forever.incrementAsync();
        await().until(() -> attempts.get() >= 3);
        assertThat(change.cancel(false)).isTrue();
        int atCancel = attempts.get();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> attempts.get() <= atCancel + 1); // at most the round under way
        assertThat(forever.get().postValue()).isZero();
    }

    @Test
    void badArguments() {
        assertThatThrownBy(() -> new DistributedAtomicLong(null, "/a", new RetryOneTime(1)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("client");
        assertThatThrownBy(() -> new DistributedAtomicLong(client, null, new RetryOneTime(1)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("path");
        assertThatThrownBy(() -> new DistributedAtomicInteger(client, "/a", null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("retryPolicy");
        assertThatThrownBy(() -> new DistributedAtomicInteger(client, "/a", new RetryOneTime(1), null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("promotedToLock");
        assertThatThrownBy(() -> new DistributedAtomicLong(client, "a", new RetryOneTime(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PromotedToLock.builder().build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lockPath");
        assertThatThrownBy(() -> PromotedToLock.builder().timeout(-1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PromotedToLock.builder().lockPath("/l").lockPath("/m"))
                .isInstanceOf(IllegalStateException.class);
        PromotedToLock defaults = PromotedToLock.builder().lockPath("/l").build();
        assertThat(defaults.timeout()).isEmpty();
        assertThat(defaults.retryPolicy().delayBeforeRetry(0, Duration.ZERO)).isEmpty();
    }

    /** The mutex's nodes; none once the server has swept its empty container path. */
    private List<String> lockNodes(String lockPath) throws Exception {
        try {
            return client.getChildren().forPath(lockPath);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }
}
