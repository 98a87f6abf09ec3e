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
 * InterProcessReadWriteLock under faults on a real 3-server ensemble, each client behind its own proxies: the
 * write lock's holder has its session expired on the server, is partitioned beyond its session, or has its JVM
 * paused (SIGSTOP) past its session; the writer is told (HoldListener: SUSPENDED, LOST), the next in the queue (a writer, or the readers) gets in within the
 * session timeout + 2 s of the writer's session ending, and the resource the writers guard with fencing tokens
 * refuses the old writer. When the writer's server (a follower) is killed, its session moves to another server:
 * it is told SUSPENDED then HELD, and nobody else gets in meanwhile. In every case the history shows at no point
 * a connected writer together with another connected writer or reader ({@link Checkers#readWriteExclusion}),
 * and only increasing write tokens.
 */
@Timeout(180)
@Tag("fault")
class ReadWriteLockFaultsTest {
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Duration TAKEOVER_BOUND = SESSION.plusSeconds(2);
    private static final String WRITE = "write";
    private static final String READ = "read";

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

    private final History history = new History();
    private final GuardedResource resource = new GuardedResource("resource", history);
    private final FaultHolders holders = new FaultHolders(zk, SESSION, history, resource);

    private FaultHolders.Holder<Hold> writer(String name, String path) throws InterruptedException {
        return holders.open(name, WRITE, c -> FaultHolders.Recipe.of(new InterProcessReadWriteLock(c, path)
                .writeLock()));
    }

    private FaultHolders.Holder<Hold> reader(String name, String path) throws InterruptedException {
        return holders.open(name, READ, c -> FaultHolders.Recipe.of(new InterProcessReadWriteLock(c, path)
                .readLock()));
    }

    /** Waits until the lock's directory holds {@code count} nodes, so that later acquirers queue behind them. */
    private void awaitQueued(FaultHolders.Holder<Hold> any, String path, int count) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> any.client.getChildren().forPath(path).size() == count);
    }

    @AfterEach
    void checkHistory() {
        holders.close();
        Checkers.assertValid(history, Checkers.readWriteExclusion(WRITE, READ), Checkers.fencingTokensIncrease(WRITE),
                Checkers.noStaleTokenAccepted());
    }

    @Test
    void writerSessionExpiredOnTheServer() throws Exception {
        String path = "/faults/rw-expiry";
        FaultHolders.Holder<Hold> holder = writer("w1", path);
        FaultHolders.Holder<Hold> next = writer("w2", path);
        FaultHolders.Holder<Hold> reader = reader("r", path);
        Hold hold = holder.acquire().get(20, TimeUnit.SECONDS);
        assertThat(holder.use()).isTrue();
        CompletableFuture<Hold> writing = next.acquire();
        awaitQueued(holder, path, 2);
        CompletableFuture<Hold> reading = reader.acquire();
        awaitQueued(holder, path, 3);

        // A real expiry follows a session timeout of silence, by which time the holder has been suspended.
        holder.recorder.disconnected("session expired on the server (forced)");
        zk.ensemble().expireSession(holder.client.getZooKeeper());

        Hold taken = writing.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(taken.fencingToken()).isGreaterThan(hold.fencingToken());
        assertThat(next.use()).isTrue();
        await().atMost(Duration.ofSeconds(20)).until(() -> holder.holdStates.contains(HoldState.LOST));
        assertThat(hold.state()).isEqualTo(HoldState.LOST);
        assertThat(holder.recipe.heldInThisProcess()).isFalse();
        assertThat(holder.use()).as("the old writer's token is refused").isFalse();

        // The reader queued behind the new writer: it gets in when that writer is done, not before.
        assertThat(reading).isNotDone();
        next.release();
        assertThat(reading.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS).fencingToken())
                .isGreaterThan(taken.fencingToken());
    }

    @Test
    void writerPartitionedBeyondItsSession() throws Exception {
        String path = "/faults/rw-partition";
        FaultHolders.Holder<Hold> holder = writer("w1", path);
        FaultHolders.Holder<Hold> reader1 = reader("r1", path);
        FaultHolders.Holder<Hold> reader2 = reader("r2", path);
        FaultHolders.Holder<Hold> next = writer("w2", path);
        Hold hold = holder.acquire().get(20, TimeUnit.SECONDS);
        assertThat(holder.use()).isTrue();
        CompletableFuture<Hold> reading1 = reader1.acquire();
        CompletableFuture<Hold> reading2 = reader2.acquire();
        awaitQueued(holder, path, 3);
        CompletableFuture<Hold> writing = next.acquire();
        awaitQueued(holder, path, 4);

        long cutAt = System.nanoTime();
        holder.link.partition(TcpProxy.Mode.BLACKHOLE);
        await().atMost(SESSION).until(() -> hold.state() != HoldState.HELD); // told before the session can end
        // Both readers were queued right behind the writer: they get in together once its session ends.
        reading1.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        reading2.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - cutAt)).isLessThan(TAKEOVER_BOUND);
        assertThat(writing).as("the second writer waits for the readers").isNotDone();

        holder.link.heal();
        await().atMost(Duration.ofSeconds(30)).until(() -> hold.state() == HoldState.LOST);
        assertThat(holder.recipe.heldInThisProcess()).isFalse();

        reader1.release();
        assertThat(writing).as("one reader still holds").isNotDone();
        reader2.release();
        Hold taken = writing.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(taken.fencingToken()).isGreaterThan(hold.fencingToken());
        assertThat(next.use()).isTrue();
        assertThat(holder.use()).as("the partitioned writer's token is refused").isFalse();
    }

    @Test
    void writersServerKilled() throws Exception {
        String path = "/faults/rw-kill";
        FaultHolders.Holder<Hold> holder = writer("w1", path);
        FaultHolders.Holder<Hold> reader = reader("r", path);
        FaultHolders.Holder<Hold> next = writer("w2", path);
        holder.avoidLeader();
        Hold hold = holder.acquire().get(20, TimeUnit.SECONDS);
        CompletableFuture<Hold> reading = reader.acquire();
        awaitQueued(holder, path, 2);
        CompletableFuture<Hold> writing = next.acquire();
        awaitQueued(holder, path, 3);

        int server = holder.serverId();
        zk.ensemble().kill(server);
        await().atMost(Duration.ofSeconds(20)).until(() -> holder.holdStates.contains(HoldState.SUSPENDED));
        // The session lives on the other servers: the hold is confirmed again, and the others keep waiting.
        await().atMost(Duration.ofSeconds(30)).until(() -> hold.state() != HoldState.SUSPENDED);
        zk.ensemble().start(server);
        assertThat(hold.state()).isEqualTo(HoldState.HELD);
        assertThat(holder.holdStates).containsExactly(HoldState.SUSPENDED, HoldState.HELD);
        assertThat(reading).isNotDone();
        assertThat(writing).isNotDone();
        assertThat(holder.use()).isTrue();

        holder.release();
        assertThat(reading.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS).fencingToken())
                .isGreaterThan(hold.fencingToken());
        assertThat(writing).as("the second writer waits for the reader").isNotDone();
        reader.release();
        assertThat(writing.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS).fencingToken())
                .isGreaterThan(hold.fencingToken());
        assertThat(next.use()).isTrue();
    }

    @Test
    void writerJvmPausedPastItsSession() throws Exception {
        String path = "/faults/rw-pause";
        FaultHolders.Driven jvm = holders.driven("jvm", WRITE, "write", path);
        long token = jvm.acquire();
        assertThat(jvm.use()).isTrue();
        FaultHolders.Holder<Hold> reader = reader("r", path);
        FaultHolders.Holder<Hold> next = writer("w2", path);
        CompletableFuture<Hold> reading = reader.acquire();
        awaitQueued(reader, path, 2);
        CompletableFuture<Hold> writing = next.acquire();
        awaitQueued(reader, path, 3);

        long pausedAt = System.nanoTime();
        jvm.pause();
        Hold read = reading.get(TAKEOVER_BOUND.toMillis() + 2000, TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - pausedAt)).isLessThan(TAKEOVER_BOUND);
        assertThat(read.fencingToken()).isGreaterThan(token);
        assertThat(writing).as("the second writer waits for the reader").isNotDone();

        jvm.resume();
        // Right after the pause the process may still think it holds the lock; its deadline says otherwise.
        assertThat(jvm.call("safe")).isEqualTo("0");
        jvm.awaitLost(Duration.ofSeconds(20));
        assertThat(jvm.call("held")).isEqualTo("false");

        reader.release();
        assertThat(writing.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS).fencingToken())
                .isGreaterThan(token);
        assertThat(next.use()).isTrue();
        assertThat(jvm.use()).as("the paused writer's token is refused").isFalse();
    }
}
