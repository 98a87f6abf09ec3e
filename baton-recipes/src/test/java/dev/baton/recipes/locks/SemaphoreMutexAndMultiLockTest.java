package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
class SemaphoreMutexAndMultiLockTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void semaphoreMutexIsNotReentrantAndAnyThreadMayReleaseIt() throws Exception {
        InterProcessSemaphoreMutex lock = new InterProcessSemaphoreMutex(resources.client(), "/smutex/basic");
        InterProcessSemaphoreMutex other = new InterProcessSemaphoreMutex(resources.client(), "/smutex/basic");
        lock.acquire();
        assertThat(lock.isAcquiredInThisProcess()).isTrue();
        assertThat(lock.fencingToken()).isPresent();
        assertThat(lock.acquire(200, TimeUnit.MILLISECONDS)).as("not re-entrant").isFalse();
        assertThat(other.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(lock.getParticipantNodes()).hasSize(1);
        CompletableFuture.runAsync(lock::release).get(10, TimeUnit.SECONDS); // another thread releases
        assertThat(lock.isAcquiredInThisProcess()).isFalse();
        assertThat(lock.fencingToken()).isEmpty();
        assertThatThrownBy(lock::release).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(other.acquireAsync().get(10, TimeUnit.SECONDS)).isTrue();
        other.release();
        assertThat(lock.getParticipantNodes()).isEmpty();
    }

    @Test
    void semaphoreMutexHolderIsToldWhenItsSessionExpires() throws Exception {
        BatonClient holderClient = resources.client();
        InterProcessSemaphoreMutex holder = new InterProcessSemaphoreMutex(holderClient, "/smutex/lost");
        InterProcessSemaphoreMutex other = new InterProcessSemaphoreMutex(resources.client(), "/smutex/lost");
        List<HoldState> states = new CopyOnWriteArrayList<>();
        holder.getHoldListenable().addListener((hold, state) -> states.add(state));
        holder.acquire();
        long token = holder.fencingToken().getAsLong();
        zk.server().expireSession(holderClient.getZooKeeper());
        assertThat(other.acquire(20, TimeUnit.SECONDS)).isTrue();
        assertThat(other.fencingToken().getAsLong()).isGreaterThan(token);
        await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(HoldState.LOST));
        assertThat(holder.isAcquiredInThisProcess()).isFalse();
        assertThat(holder.safeFor()).isZero();
        holder.release();
        other.release();
    }

    @Test
    void multiLockIsAllOrNothingWithinOneDeadline() throws Exception {
        BatonClient client = resources.client();
        InterProcessMultiLock both = new InterProcessMultiLock(client, List.of("/multi/a", "/multi/b"));
        InterProcessMutex elsewhere = new InterProcessMutex(resources.client(), "/multi/b");
        InterProcessMutex probeA = new InterProcessMutex(resources.client(), "/multi/a");
        Hold heldElsewhere = elsewhere.acquireAsync().get(10, TimeUnit.SECONDS);

        long start = System.nanoTime();
        assertThat(both.acquire(500, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(400),
                Duration.ofSeconds(5));
        assertThat(both.isAcquiredInThisProcess()).isFalse();
        assertThat(both.fencingTokens()).isEmpty();
        assertThat(probeA.getParticipantNodes()).as("nothing of the first lock left behind").isEmpty();
        assertThat(elsewhere.getParticipantNodes()).hasSize(1);

        heldElsewhere.release();
        assertThat(both.acquire(10, TimeUnit.SECONDS)).isTrue();
        assertThat(both.isAcquiredInThisProcess()).isTrue();
        assertThat(both.fencingTokens()).hasSize(2);
        assertThat(both.fencingToken()).isPresent();
        assertThat(both.safeFor()).isPositive();
        assertThat(probeA.acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        both.release();
        assertThat(both.isAcquiredInThisProcess()).isFalse();
        assertThat(probeA.getParticipantNodes()).isEmpty();
        assertThat(elsewhere.getParticipantNodes()).isEmpty();
        assertThatThrownBy(both::release).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void multiLockOfOtherLocksAndBadArguments() throws Exception {
        BatonClient client = resources.client();
        InterProcessSemaphoreMutex first = new InterProcessSemaphoreMutex(client, "/multi/x");
        InterProcessMutex second = new InterProcessMutex(client, "/multi/y");
        InterProcessMultiLock both = new InterProcessMultiLock(List.of(first, second));
        both.acquire();
        assertThat(first.isAcquiredInThisProcess()).isTrue();
        assertThat(second.isOwnedByCurrentThread()).isTrue();
        both.release();
        assertThat(first.isAcquiredInThisProcess()).isFalse();
        assertThatThrownBy(() -> new InterProcessMultiLock(client, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new InterProcessMultiLock(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new InterProcessMultiLock(null, List.of("/a")))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("client");
        assertThatThrownBy(() -> new InterProcessMultiLock(client, List.of("/ok", "bad")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad");
        assertThatThrownBy(() -> both.acquire(-1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new InterProcessSemaphoreMutex(client, "//x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new InterProcessSemaphoreMutex(null, "/x")).isInstanceOf(NullPointerException.class);
    }
}
