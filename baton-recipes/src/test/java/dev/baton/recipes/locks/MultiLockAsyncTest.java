package dev.baton.recipes.locks;

import static dev.baton.recipes.TestResources.childCount;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** InterProcessMultiLock.acquireAsync: all or nothing, no thread while waiting, nothing left when given up. */
@Timeout(60)
class MultiLockAsyncTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void acquiresEveryLockAndReleasesThemAsOne() throws Exception {
        BatonClient client = resources.client();
        InterProcessMultiLock both = new InterProcessMultiLock(client, List.of("/multi/a", "/multi/b"));
        Hold hold = both.acquireAsync().get(10, TimeUnit.SECONDS);
        assertThat(hold.isHeld()).isTrue();
        assertThat(hold.state()).isEqualTo(HoldState.HELD);
        assertThat(hold.nodePath()).startsWith("/multi/a/");
        assertThat(both.isAcquiredInThisProcess()).isTrue();
        InterProcessMutex b = new InterProcessMutex(resources.client(), "/multi/b");
        assertThat(b.acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        CompletableFuture.runAsync(hold::release).get(10, TimeUnit.SECONDS); // any thread
        assertThat(childCount(client, "/multi/a") + childCount(client, "/multi/b")).isZero();
        assertThat(both.isAcquiredInThisProcess()).isFalse();
        hold.release(); // twice: nothing
    }

    @Test
    void waitsForABusyLockWithoutAThreadAndTimesOutLeavingNothing() throws Exception {
        BatonClient client = resources.client();
        InterProcessMutex blocker = new InterProcessMutex(resources.client(), "/multi/busy/b");
        blocker.acquire();
        InterProcessMultiLock both = new InterProcessMultiLock(client,
                List.of("/multi/busy/a", "/multi/busy/b"));
        assertThat(both.acquireAsync(300, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS)).isNull();
        await().until(() -> childCount(client, "/multi/busy/a") == 0 && childCount(client, "/multi/busy/b") == 1);

        CompletableFuture<Hold> waiting = both.acquireAsync();
        await().until(() -> childCount(client, "/multi/busy/b") == 2); // holds a, queued for b
        assertThat(childCount(client, "/multi/busy/a")).isEqualTo(1);
        blocker.release();
        Hold hold = waiting.get(10, TimeUnit.SECONDS);
        assertThat(hold.isHeld()).isTrue();
        hold.release();
    }

    @Test
    void cancellingGivesUpAndReleasesWhatWasTaken() throws Exception {
        BatonClient client = resources.client();
        InterProcessMutex blocker = new InterProcessMutex(resources.client(), "/multi/cancel/b");
        blocker.acquire();
        InterProcessMultiLock both = new InterProcessMultiLock(client,
                List.of("/multi/cancel/a", "/multi/cancel/b"));
        CompletableFuture<Hold> waiting = both.acquireAsync();
        await().until(() -> childCount(client, "/multi/cancel/b") == 2);
        waiting.cancel(false);
        await().until(() -> childCount(client, "/multi/cancel/a") == 0 && childCount(client, "/multi/cancel/b") == 1);
        blocker.release();
        assertThat(both.acquire(10, TimeUnit.SECONDS)).isTrue(); // nothing of the cancelled attempt is in the way
        both.release();
    }

    @Test
    void locksThatCannotWaitAsynchronouslyAreRefusedAtTheCall() throws Exception {
        InterProcessMultiLock mixed = new InterProcessMultiLock(List.of(
                new InterProcessMutex(resources.client(), "/multi/mixed/a"),
                new InterProcessSemaphoreMutex(resources.client(), "/multi/mixed/b")));
        assertThatThrownBy(mixed::acquireAsync).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("locks[1]").hasMessageContaining("InterProcessSemaphoreMutex");
        assertThatThrownBy(() -> mixed.acquireAsync(-1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> mixed.acquireAsync(1, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("unit");
    }
}
