package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.faults.FaultClients;
import dev.baton.testing.Checkers;
import dev.baton.testing.ClientLink;
import dev.baton.testing.DriverProcess;
import dev.baton.testing.GuardedResource;
import dev.baton.testing.History;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
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
class MutexFaultsTest {
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Duration TAKEOVER_BOUND = SESSION.plusSeconds(2);
    private static final String LOCK = "lock";

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

    private final History history = new History();
    private final GuardedResource resource = new GuardedResource("resource", history);
    private final List<Locker> lockers = new ArrayList<>();

    /** One in-process client with a mutex, recording what it believes. */
    private final class Locker implements AutoCloseable {
        final String name;
        final ClientLink link;
        final BatonClient client;
        final InterProcessMutex mutex;
        final History.Recorder recorder;
        final List<HoldState> holdStates = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile Hold hold;

        Locker(String name, String path) throws InterruptedException {
            this.name = name;
            this.link = zk.newClientLink();
            this.recorder = history.recorder(name);
            this.client = FaultClients.open(link, SESSION, recorder);
            this.mutex = new InterProcessMutex(client, path);
            mutex.getHoldListenable().addListener((h, state) -> {
                holdStates.add(state);
                if (state == HoldState.LOST) {
                    recorder.lost(LOCK, h.fencingToken(), "hold lost");
                }
            });
        }

        /** Acquires without a thread; the future completes once held and recorded. */
        CompletableFuture<Hold> acquire() {
            return mutex.acquireAsync().thenApply(h -> {
                hold = h;
                recorder.acquired(LOCK, h.fencingToken());
                return h;
            });
        }

        boolean use() {
            Hold h = hold;
            return h != null && resource.use(name, h.fencingToken());
        }

        int serverId() {
            return FaultClients.serverId(client, link);
        }

        @Override
        public void close() {
            Hold h = hold;
            if (h != null && h.isHeld()) {
                recorder.released(LOCK, h.fencingToken());
                h.release();
            }
            client.close();
            link.close();
        }
    }

    private Locker locker(String name, String path) throws InterruptedException {
        Locker l = new Locker(name, path);
        lockers.add(l);
        return l;
    }

    @AfterEach
    void checkHistory() {
        lockers.forEach(Locker::close);
        Checkers.assertValid(history, Checkers.mutualExclusion(), Checkers.fencingTokensIncrease(),
                Checkers.noStaleTokenAccepted());
    }

    @Test
    void holderSessionExpiredOnTheServer() throws Exception {
        Locker holder = locker("h", "/faults/mutex-expiry");
        Locker waiter = locker("w", "/faults/mutex-expiry");
        holder.acquire().get(20, TimeUnit.SECONDS);
        assertThat(holder.use()).isTrue();
        CompletableFuture<Hold> waiting = waiter.acquire();

        // A real expiry follows a session timeout of silence, by which time the holder has been suspended.
        holder.recorder.disconnected("session expired on the server (forced)");
        zk.ensemble().expireSession(holder.client.getZooKeeper());

        Hold taken = waiting.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(taken.fencingToken()).isGreaterThan(holder.hold.fencingToken());
        assertThat(waiter.use()).isTrue();
        await().atMost(Duration.ofSeconds(20)).until(() -> holder.holdStates.contains(HoldState.LOST));
        assertThat(holder.mutex.isAcquiredInThisProcess()).isFalse();
        assertThat(holder.hold.isHeld()).isFalse();
        assertThat(holder.use()).as("the old holder's token is refused").isFalse();
    }

    @Test
    void holdersServerKilled() throws Exception {
        Locker holder = locker("h", "/faults/mutex-kill");
        Locker waiter = locker("w", "/faults/mutex-kill");
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
            holder.recorder.released(LOCK, hold.fencingToken());
            hold.release();
        }
        assertThat(waiting.get(TAKEOVER_BOUND.toMillis(), TimeUnit.MILLISECONDS).fencingToken())
                .isGreaterThan(hold.fencingToken());
        assertThat(waiter.use()).isTrue();
    }

    @Test
    void holderPartitionedBeyondItsSession() throws Exception {
        Locker holder = locker("h", "/faults/mutex-partition");
        Locker waiter = locker("w", "/faults/mutex-partition");
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
        assertThat(holder.mutex.isAcquiredInThisProcess()).isFalse();
        assertThat(holder.use()).as("the old holder's token is refused").isFalse();
    }

    @Test
    void holderJvmPausedPastItsSession() throws Exception {
        DriverProcess driver = zk.startDriver(DriverProcess.builder(MutexDriver.class).name("paused-holder"));
        ClientLink link = zk.register(zk.newClientLink());
        driver.call("start", link.connectString(), "/faults/mutex-pause", Long.toString(SESSION.toMillis()));
        long token = Long.parseLong(driver.call("acquire"));
        History.Recorder jvm = history.recorder("jvm");
        jvm.acquired(LOCK, token);
        assertThat(resource.use("jvm", token)).isTrue();
        Locker waiter = locker("w", "/faults/mutex-pause");
        CompletableFuture<Hold> waiting = waiter.acquire();

        jvm.paused();
        long pausedAt = System.nanoTime();
        driver.pause();
        Hold taken = waiting.get(TAKEOVER_BOUND.toMillis() + 2000, TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - pausedAt)).isLessThan(TAKEOVER_BOUND);
        assertThat(waiter.use()).isTrue();

        driver.resume();
        jvm.resumed();
        // Right after the pause the process may still think it holds the lock; its deadline says otherwise.
        assertThat(driver.call("safe")).isEqualTo("0");
        driver.awaitEvent(e -> e.equals("hold LOST"), Duration.ofSeconds(20));
        jvm.lost(LOCK, token, "hold LOST after resume");
        assertThat(driver.call("held")).isEqualTo("false");
        assertThat(resource.use("jvm", token)).as("the paused holder's token is refused").isFalse();
        assertThat(taken.fencingToken()).isGreaterThan(token);
    }
}
