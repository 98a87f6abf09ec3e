package dev.baton.recipes;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.recipes.queue.SimpleDistributedQueue;
import dev.baton.retry.RetryNTimes;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.ServerSecurity;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SPEC §8 for recipes, on a server that requires every session to authenticate with {@code digest} before its
 * first request: the ACL provider's ACL on every node a recipe makes (containers and parents included), a second
 * identity refused with {@code NoAuthException} on a lock, latch, cache and queue path without leaving anything
 * behind, and recipes carrying on after a session expiry because the new session authenticates first.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SecuredRecipesTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static EmbeddedZooKeeper zk;

    @BeforeAll
    static void startServer() {
        zk = EmbeddedZooKeeper.builder().security(ServerSecurity.builder().requireAuthentication("digest").build())
                .build().start();
    }

    @AfterAll
    static void stopServer() {
        if (zk != null) {
            zk.close();
        }
    }

    /** Only {@code user} may do anything with the nodes its client makes. */
    private static List<ACL> only(String user) {
        try {
            String digest = DigestAuthenticationProvider.generateDigest(user + ":" + user + "-secret");
            return List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static BatonClient client(String user) throws InterruptedException {
        BatonClient client = Baton.builder().connectString(zk.connectString())
                .authorization("digest", (user + ":" + user + "-secret").getBytes(UTF_8))
                .aclProvider(() -> only(user))
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(5))
                .retryPolicy(new RetryNTimes(3, 50)).build();
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    /** Every node under {@code root}, depth first. */
    private static Set<String> tree(BatonClient client, String root) throws Exception {
        Set<String> paths = new TreeSet<>();
        paths.add(root);
        for (String child : client.getChildren().forPath(root)) {
            paths.addAll(tree(client, root + "/" + child));
        }
        return paths;
    }

    @Test
    void aSecondIdentityIsRefusedOnEveryRecipePathAndLeavesNothingBehind() throws Exception {
        try (BatonClient alice = client("alice");
                BatonClient bob = client("bob");
                LeaderLatch aliceLatch = new LeaderLatch(alice, "/secured/latch", "alice");
                BatonCache aliceCache = BatonCache.build(alice, "/secured/cache")) {
            InterProcessMutex aliceLock = new InterProcessMutex(alice, "/secured/lock");
            assertThat(aliceLock.acquire(10, TimeUnit.SECONDS)).isTrue();
            aliceLatch.start();
            assertThat(aliceLatch.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(new SimpleDistributedQueue(alice, "/secured/queue").offer("item".getBytes(UTF_8))).isTrue();
            alice.create().creatingParentContainersIfNeeded().forPath("/secured/cache/node", "x".getBytes(UTF_8));
            aliceCache.start();
            await().atMost(WAIT).until(() -> aliceCache.get("/secured/cache/node").isPresent());

            Set<String> before = tree(alice, "/secured");
            assertThat(before).hasSizeGreaterThanOrEqualTo(8);
            for (String path : before) { // parents, containers, lock and latch nodes, the queue item
                assertThat(alice.getACL().forPath(path)).as(path).isEqualTo(only("alice"));
            }

            List<Throwable> unhandled = new CopyOnWriteArrayList<>();
            bob.getUnhandledErrorListenable().addListener((message, e) -> unhandled.add(e));
            InterProcessMutex bobLock = new InterProcessMutex(bob, "/secured/lock");
            assertThatThrownBy(() -> bobLock.acquire(5, TimeUnit.SECONDS))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(bobLock.acquireAsync(5, TimeUnit.SECONDS)).failsWithin(WAIT)
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(KeeperException.NoAuthException.class);
            assertThat(bobLock.isAcquiredInThisProcess()).isFalse();
            SimpleDistributedQueue bobQueue = new SimpleDistributedQueue(bob, "/secured/queue");
            assertThatThrownBy(() -> bobQueue.offer("bob".getBytes(UTF_8)))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(bobQueue::poll).isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(bobQueue.takeAsync()).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(KeeperException.NoAuthException.class);
            try (LeaderLatch bobLatch = new LeaderLatch(bob, "/secured/latch", "bob")) {
                bobLatch.start();
                await().atMost(WAIT).until(() -> unhandled.size() == 1);
                assertThat(unhandled.get(0)).isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(bobLatch::getParticipants).isInstanceOf(KeeperException.NoAuthException.class);
                assertThat(bobLatch.hasLeadership()).isFalse();
            }
            try (BatonCache bobCache = BatonCache.build(bob, "/secured/cache")) {
                bobCache.start();
                await().atMost(WAIT).until(() -> unhandled.size() >= 2);
                assertThat(unhandled.get(1)).isInstanceOf(KeeperException.NoAuthException.class);
                assertThat(bobCache.size()).isZero();
            }

            assertThat(tree(alice, "/secured")).isEqualTo(before);
            assertThat(aliceLatch.hasLeadership()).isTrue();
            aliceLock.release();
        }
    }

    @Test
    void recipesCarryOnAfterASessionExpiryBecauseTheNewSessionAuthenticatesFirst() throws Exception {
        try (BatonClient alice = client("alice");
                LeaderLatch latch = new LeaderLatch(alice, "/expiry/latch", "alice")) {
            List<ConnectionState> states = new CopyOnWriteArrayList<>();
            alice.getConnectionStateListenable().addListener((c, s) -> states.add(s));
            InterProcessMutex lock = new InterProcessMutex(alice, "/expiry/lock");
            latch.start();
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
            String before = latch.getOurPath();

            long old = alice.getZooKeeper().getSessionId();
            zk.expireSession(old);
            await().atMost(WAIT).until(() -> states.contains(ConnectionState.RECONNECTED));
            assertThat(states).contains(ConnectionState.LOST);

            // A request before the digest authentication would make the server close the new session.
            await().atMost(WAIT).until(() -> latch.hasLeadership() && !before.equals(latch.getOurPath()));
            assertThat(lock.acquire(10, TimeUnit.SECONDS)).isTrue();
            assertThat(alice.getACL().forPath(latch.getOurPath())).isEqualTo(only("alice"));
            assertThat(alice.getACL().forPath("/expiry/lock")).isEqualTo(only("alice"));
            lock.release();
            assertThat(zk.liveSessions()).containsExactly(alice.getZooKeeper().getSessionId());
            assertThat(alice.getZooKeeper().getSessionId()).isNotEqualTo(old);
            assertThat(states).doesNotContainSequence(ConnectionState.RECONNECTED, ConnectionState.LOST);
        }
    }
}
