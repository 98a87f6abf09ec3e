package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Checkers;
import dev.baton.testing.History;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * InterProcessSemaphoreV2 with 2 leases and 4 clients under faults on a real 3-server ensemble, each client behind
 * its own proxies: a lease holder has its session expired on the server, is partitioned beyond its session, or
 * has its JVM paused (SIGSTOP) past its session; the holder is told (HoldListener and {@link Lease#state()}: LOST), and the first waiter gets the freed
 * lease within the session timeout + 2 s of the holder's session ending while the second keeps waiting. When the
 * holder's server (a follower) is killed, its session moves to another server: it is told SUSPENDED then HELD,
 * and the waiters keep waiting. In every case the history shows at no point more than 2 connected, unpaused
 * clients that believe they hold a lease ({@link Checkers#atMostHolders}), and lease tokens that only increase
 * (one lease frees at a time here, so leases are granted in queue order).
 */
@Timeout(180)
@Tag("fault")
class SemaphoreFaultsTest {
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Duration TAKEOVER_BOUND = SESSION.plusSeconds(2);
    private static final int MAX_LEASES = 2;
    private static final String SEMAPHORE = "semaphore";

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

    private final History history = new History();
    private final FaultHolders holders = new FaultHolders(zk, SESSION, history);

    private FaultHolders.Holder<Lease> client(String name, String path) throws InterruptedException {
        return holders.open(name, SEMAPHORE,
                c -> FaultHolders.Recipe.of(new InterProcessSemaphoreV2(c, path, MAX_LEASES)));
    }

    /** Opens {@code names.length} clients of the semaphore at {@code path}. */
    private List<FaultHolders.Holder<Lease>> clients(String path, String... names) throws InterruptedException {
        List<FaultHolders.Holder<Lease>> out = new ArrayList<>();
        for (String name : names) {
            out.add(client(name, path));
        }
        return out;
    }

    /**
     * Starts an acquisition by each of {@code acquirers} in turn, each queued (its node created) before the
     * next starts, so that they wait in this order.
     */
    private List<CompletableFuture<Lease>> queue(String path, List<FaultHolders.Holder<Lease>> acquirers)
            throws KeeperException, InterruptedException {
        List<CompletableFuture<Lease>> out = new ArrayList<>();
        for (FaultHolders.Holder<Lease> h : acquirers) {
            int before = leaseNodes(h, path);
            out.add(h.acquire());
            await().atMost(Duration.ofSeconds(20)).until(() -> leaseNodes(h, path) == before + 1);
        }
        return out;
    }

    private static int leaseNodes(FaultHolders.Holder<?> h, String path)
            throws KeeperException, InterruptedException {
        return h.client.checkExists().forPath(path + "/leases") == null ? 0
                : h.client.getChildren().forPath(path + "/leases").size();
    }

    @AfterEach
    void checkHistory() {
        holders.close();
        Checkers.assertValid(history, Checkers.atMostHolders(MAX_LEASES), Checkers.fencingTokensIncrease());
    }

    @Test
    void holderSessionExpiredOnTheServer() throws Exception {
        String path = "/faults/semaphore-expiry";
        List<FaultHolders.Holder<Lease>> c = clients(path, "a", "b", "c", "d");
        FaultHolders.Holder<Lease> holder = c.get(0);
        List<CompletableFuture<Lease>> acquired = queue(path, c);
        Lease lease = acquired.get(0).get(20, TimeUnit.SECONDS);
        acquired.get(1).get(20, TimeUnit.SECONDS);

        // A real expiry follows a session timeout of silence, by which time the holder has been suspended.
        holder.recorder.disconnected("session expired on the server (forced)");
        zk.ensemble().expireSession(holder.client.getZooKeeper());

        Lease taken = acquired.get(2).get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(taken.fencingToken().getAsLong()).isGreaterThan(acquired.get(1).join().fencingToken()
                .getAsLong());
        assertThat(acquired.get(3)).as("one lease freed: the second waiter keeps waiting").isNotDone();
        await().atMost(Duration.ofSeconds(20)).until(() -> holder.holdStates.contains(HoldState.LOST));
        assertThat(lease.state()).isEqualTo(HoldState.LOST);
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.fencingToken()).isEmpty();
        assertThat(lease.safeFor()).isZero();
        assertThat(holder.recipe.heldInThisProcess()).isFalse();

        c.get(1).release();
        assertThat(acquired.get(3).get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS).fencingToken()
                .getAsLong()).isGreaterThan(taken.fencingToken().getAsLong());
    }

    @Test
    void holdersServerKilled() throws Exception {
        String path = "/faults/semaphore-kill";
        List<FaultHolders.Holder<Lease>> c = clients(path, "a", "b", "c", "d");
        FaultHolders.Holder<Lease> holder = c.get(0);
        holder.avoidLeader();
        List<CompletableFuture<Lease>> acquired = queue(path, c);
        Lease lease = acquired.get(0).get(20, TimeUnit.SECONDS);
        acquired.get(1).get(20, TimeUnit.SECONDS);

        int server = holder.serverId();
        zk.ensemble().kill(server);
        await().atMost(Duration.ofSeconds(20)).until(() -> holder.holdStates.contains(HoldState.SUSPENDED));
        // The session lives on the other servers: the lease is confirmed again, and the waiters keep waiting.
        await().atMost(Duration.ofSeconds(30)).until(() -> lease.state() != HoldState.SUSPENDED);
        zk.ensemble().start(server);
        assertThat(lease.state()).isEqualTo(HoldState.HELD);
        // The state is set before the listeners hear of it: wait for them.
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(holder.holdStates)
                        .containsExactly(HoldState.SUSPENDED, HoldState.HELD));
        assertThat(acquired.get(2)).isNotDone();
        assertThat(acquired.get(3)).isNotDone();

        holder.release();
        Lease taken = acquired.get(2).get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(taken.fencingToken().getAsLong()).isGreaterThan(acquired.get(1).join().fencingToken()
                .getAsLong());
        assertThat(acquired.get(3)).isNotDone();
    }

    @Test
    void holderPartitionedBeyondItsSession() throws Exception {
        String path = "/faults/semaphore-partition";
        List<FaultHolders.Holder<Lease>> c = clients(path, "a", "b", "c", "d");
        FaultHolders.Holder<Lease> holder = c.get(0);
        List<CompletableFuture<Lease>> acquired = queue(path, c);
        Lease lease = acquired.get(0).get(20, TimeUnit.SECONDS);
        acquired.get(1).get(20, TimeUnit.SECONDS);

        long cutAt = System.nanoTime();
        holder.link.partition(TcpProxy.Mode.BLACKHOLE);
        await().atMost(SESSION).until(() -> lease.state() != HoldState.HELD); // told before the session can end
        Lease taken = acquired.get(2).get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - cutAt)).isLessThan(TAKEOVER_BOUND);
        assertThat(taken.fencingToken().getAsLong()).isGreaterThan(acquired.get(1).join().fencingToken()
                .getAsLong());
        assertThat(acquired.get(3)).as("one lease freed: the second waiter keeps waiting").isNotDone();

        holder.link.heal();
        await().atMost(Duration.ofSeconds(30)).until(() -> lease.state() == HoldState.LOST);
        // The state is set before the listeners hear of it: wait for them.
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(holder.holdStates)
                        .containsExactly(HoldState.SUSPENDED, HoldState.LOST));
        assertThat(lease.fencingToken()).isEmpty();
        assertThat(holder.recipe.heldInThisProcess()).isFalse();
    }

    @Test
    void holderJvmPausedPastItsSession() throws Exception {
        String path = "/faults/semaphore-pause";
        FaultHolders.Driven jvm = holders.driven("jvm", SEMAPHORE, "semaphore:" + MAX_LEASES, path);
        long token = jvm.acquire();
        List<FaultHolders.Holder<Lease>> c = clients(path, "b", "c", "d");
        List<CompletableFuture<Lease>> acquired = queue(path, c);
        acquired.get(0).get(20, TimeUnit.SECONDS);

        long pausedAt = System.nanoTime();
        jvm.pause();
        Lease taken = acquired.get(1).get(TAKEOVER_BOUND.toMillis() + 2000, TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - pausedAt)).isLessThan(TAKEOVER_BOUND);
        assertThat(taken.fencingToken().getAsLong()).isGreaterThan(token);
        assertThat(acquired.get(2)).as("one lease freed: the second waiter keeps waiting").isNotDone();

        jvm.resume();
        // Right after the pause the process may still think it holds its lease; its deadline says otherwise.
        assertThat(jvm.call("safe")).isEqualTo("0");
        jvm.awaitLost(Duration.ofSeconds(20));
        assertThat(jvm.call("held")).isEqualTo("false");
        assertThat(jvm.call("token")).isEqualTo("-1");
    }
}
