package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Checkers;
import dev.baton.testing.GuardedResource;
import dev.baton.testing.History;
import dev.baton.testing.ServerSecurity;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.TlsCertificates;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * InterProcessMutex on a 3-server ensemble whose clients all connect over TLS with x509 certificates (through
 * their own proxies, which forward the TLS bytes): the ensemble's leader killed while a holder holds, and a
 * holder partitioned beyond its session. The lock behaves as in {@link MutexFaultsTest} on plaintext: the holder
 * is told, a waiter takes over with a higher fencing token, and the history checkers find no two believed holders
 * and only increasing tokens.
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("fault")
class TlsMutexFaultsTest {
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Duration TAKEOVER_BOUND = SESSION.plusSeconds(2);
    private static final String LOCK = "lock";
    private static final TlsCertificates CERTS = TlsCertificates.create();

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true)
            .resetAfterEach(false) // the partition heals itself; the killed leader is the last test's, left down
            .ensemble(b -> b.security(ServerSecurity.builder().tls(CERTS).build())).build();

    private final History history = new History();
    private final GuardedResource resource = new GuardedResource("resource", history);
    private final FaultHolders holders = new FaultHolders(zk, SESSION, history, resource,
            () -> CERTS.clientConfig("holder"));

    @AfterAll
    static void deleteCertificates() {
        CERTS.close();
    }

    @AfterEach
    void checkHistory() {
        holders.close();
        Checkers.assertValid(history, Checkers.mutualExclusion(), Checkers.fencingTokensIncrease(),
                Checkers.noStaleTokenAccepted());
    }

    @Test
    @Order(2)
    void leaderKilledWhileHeld() throws Exception {
        FaultHolders.Holder<Hold> holder = holders.mutex("h", LOCK, "/faults/tls-mutex-leader");
        FaultHolders.Holder<Hold> waiter = holders.mutex("w", LOCK, "/faults/tls-mutex-leader");
        Hold hold = holder.acquire().get(20, TimeUnit.SECONDS);
        assertThat(holder.use()).isTrue();
        CompletableFuture<Hold> waiting = waiter.acquire();

        int leader = zk.ensemble().leaderId();
        zk.ensemble().kill(leader);
        // Without a leader every server drops its clients: the holder is told, then confirmed or lost once the
        // other two have elected a new leader.
        await().atMost(Duration.ofSeconds(20)).until(() -> holder.holdStates.contains(HoldState.SUSPENDED));
        await().atMost(Duration.ofSeconds(30)).until(() -> hold.state() != HoldState.SUSPENDED);
        if (hold.state() == HoldState.HELD) {
            assertThat(waiting).isNotDone();
            assertThat(holder.use()).isTrue();
            holder.release();
        }
        assertThat(waiting.get(TAKEOVER_BOUND.toMillis() + 10_000, TimeUnit.MILLISECONDS).fencingToken())
                .isGreaterThan(hold.fencingToken());
        assertThat(waiter.use()).isTrue();
        waiter.release();
    }

    @Test
    @Order(1)
    void holderPartitionedBeyondItsSession() throws Exception {
        FaultHolders.Holder<Hold> holder = holders.mutex("h", LOCK, "/faults/tls-mutex-partition");
        FaultHolders.Holder<Hold> waiter = holders.mutex("w", LOCK, "/faults/tls-mutex-partition");
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
        assertThat(holder.use()).as("the old holder's token is refused").isFalse();
    }
}
