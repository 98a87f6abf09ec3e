package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Checkers;
import dev.baton.testing.GuardedResource;
import dev.baton.testing.History;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * InterProcessMutex under faults on a real 3-server ensemble (separate JVMs, each client behind its own
 * proxies): the holder's session expired on the server, its server killed, it partitioned beyond its session,
 * its JVM paused past its session. The holder is told (HoldListener: SUSPENDED, LOST), a waiter acquires within
 * the session timeout + 2 s of the holder's session ending, the guarded resource refuses the old holder's
 * token, and the history checkers find no two believed holders among connected clients and only increasing
 * tokens.
 */
@Timeout(180)
@Tag("fault")
class MutexFaultsTest {
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Duration TAKEOVER_BOUND = SESSION.plusSeconds(2);
    private static final String LOCK = "lock";

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

    private final History history = new History();
    private final GuardedResource resource = new GuardedResource("resource", history);
    private final FaultHolders holders = new FaultHolders(zk, SESSION, history, resource);

    private FaultHolders.Holder<Hold> locker(String name, String path) throws InterruptedException {
        return holders.mutex(name, LOCK, path);
    }

    @AfterEach
    void checkHistory() {
        holders.close();
        Checkers.assertValid(history, Checkers.mutualExclusion(), Checkers.fencingTokensIncrease(),
                Checkers.noStaleTokenAccepted());
    }

    @Test
    void holderSessionExpiredOnTheServer() throws Exception {
        FaultHolders.Holder<Hold> holder = locker("h", "/faults/mutex-expiry");
        FaultHolders.Holder<Hold> waiter = locker("w", "/faults/mutex-expiry");
        holder.acquire().get(20, TimeUnit.SECONDS);
        assertThat(holder.use()).isTrue();
        CompletableFuture<Hold> waiting = waiter.acquire();

        // A real expiry follows a session timeout of silence, by which time the holder has been suspended.
        holder.recorder.disconnected("session expired on the server (forced)");
        zk.ensemble().expireSession(holder.client.getZooKeeper());

        Hold taken = waiting.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(taken.fencingToken()).isGreaterThan(holder.hold().fencingToken());
        assertThat(waiter.use()).isTrue();
        await().atMost(Duration.ofSeconds(20)).until(() -> holder.holdStates.contains(HoldState.LOST));
        assertThat(holder.recipe.heldInThisProcess()).isFalse();
        assertThat(holder.hold().isHeld()).isFalse();
        assertThat(holder.use()).as("the old holder's token is refused").isFalse();
    }

    @Test
    void holdersServerKilled() throws Exception {
        FaultHolders.Holder<Hold> holder = locker("h", "/faults/mutex-kill");
        FaultHolders.Holder<Hold> waiter = locker("w", "/faults/mutex-kill");
        Hold hold = holder.acquire().get(20, TimeUnit.SECONDS);
        CompletableFuture<Hold> waiting = waiter.acquire();
        int server = holder.serverId();
        zk.ensemble().kill(server);
        await().atMost(Duration.ofSeconds(20)).until(() -> holder.holdStates.contains(HoldState.SUSPENDED));
        // The session lives on the other servers: the hold is confirmed again, and the waiter keeps waiting.
        await().atMost(Duration.ofSeconds(30)).until(() -> hold.state() != HoldState.SUSPENDED);
        zk.ensemble().start(server);
        if (hold.state() == HoldState.HELD) {
            assertThat(waiting).isNotDone();
            assertThat(holder.use()).isTrue();
            holder.release();
        }
        assertThat(waiting.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS).fencingToken())
                .isGreaterThan(hold.fencingToken());
        assertThat(waiter.use()).isTrue();
    }

    @Test
    void holderPartitionedBeyondItsSession() throws Exception {
        FaultHolders.Holder<Hold> holder = locker("h", "/faults/mutex-partition");
        FaultHolders.Holder<Hold> waiter = locker("w", "/faults/mutex-partition");
        Hold hold = holder.acquire().get(20, TimeUnit.SECONDS);
        CompletableFuture<Hold> waiting = waiter.acquire();

        long cutAt = System.nanoTime();
        holder.link.partition(TcpProxy.Mode.BLACKHOLE);
        await().atMost(SESSION).until(() -> hold.state() != HoldState.HELD); // told before the session can end
        Hold taken = waiting.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - cutAt)).isLessThan(TAKEOVER_BOUND);
        assertThat(taken.fencingToken()).isGreaterThan(hold.fencingToken());
        assertThat(waiter.use()).isTrue();

        holder.link.heal();
        await().atMost(Duration.ofSeconds(30)).until(() -> hold.state() == HoldState.LOST);
        assertThat(holder.recipe.heldInThisProcess()).isFalse();
        assertThat(holder.use()).as("the old holder's token is refused").isFalse();
    }

    @Test
    void holderJvmPausedPastItsSession() throws Exception {
        FaultHolders.Driven jvm = holders.driven("jvm", LOCK, "mutex", "/faults/mutex-pause");
        long token = jvm.acquire();
        assertThat(jvm.use()).isTrue();
        FaultHolders.Holder<Hold> waiter = locker("w", "/faults/mutex-pause");
        CompletableFuture<Hold> waiting = waiter.acquire();

        long pausedAt = System.nanoTime();
        jvm.pause();
        Hold taken = waiting.get(TAKEOVER_BOUND.toMillis() + 2000, TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - pausedAt)).isLessThan(TAKEOVER_BOUND);
        assertThat(waiter.use()).isTrue();

        jvm.resume();
        // Right after the pause the process may still think it holds the lock; its deadline says otherwise.
        assertThat(jvm.call("safe")).isEqualTo("0");
        jvm.awaitLost(Duration.ofSeconds(20));
        assertThat(jvm.call("held")).isEqualTo("false");
        assertThat(jvm.use()).as("the paused holder's token is refused").isFalse();
        assertThat(taken.fencingToken()).isGreaterThan(token);
    }
}
