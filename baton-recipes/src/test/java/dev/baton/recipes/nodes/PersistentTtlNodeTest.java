package dev.baton.recipes.nodes;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
@Tag("slow")
class PersistentTtlNodeTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /** Checks for empty containers and expired TTL nodes every millisecond, as Curator's TTL node test does. */
    @RegisterExtension
    static EmbeddedZooKeeperExtension fastReaper = new EmbeddedZooKeeperExtension(
            EmbeddedZooKeeper.builder().containerCheckInterval(Duration.ofMillis(1)));

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    private PersistentTtlNode ttlNode(BatonClient client, String path, long ttlMs, String data) {
        PersistentTtlNode node = new PersistentTtlNode(client, path, ttlMs, data.getBytes(UTF_8));
        return resources.open(node);
    }

    @Test
    void aContainerWithATtlChildThatKeepsBeingTouched() throws Exception {
        BatonClient client = resources.client();
        PersistentTtlNode node = ttlNode(client, "/ttl/alive", 1000, "hello");
        node.start();
        assertThat(node.waitForInitialCreate(10, TimeUnit.SECONDS)).isTrue();
        await().until(() -> client.checkExists().forPath("/ttl/alive/touch") != null);
        assertThat(client.getData().forPath("/ttl/alive")).isEqualTo("hello".getBytes(UTF_8));
        // A stat tells neither container nor TTL; whenItsOwnerStopsTouchingTheServerRemovesIt shows both.
        Stat touch = client.checkExists().forPath("/ttl/alive/touch");

        // Touched every 500 ms, it outlives its TTL many times over.
        int version = touch.getVersion();
        await().atMost(Duration.ofSeconds(10)).until(() -> client.checkExists().forPath("/ttl/alive/touch")
                .getVersion() >= version + 6);
        assertThat(client.checkExists().forPath("/ttl/alive")).isNotNull();

        node.setData("bye".getBytes(UTF_8));
        assertThat(client.getData().forPath("/ttl/alive")).isEqualTo("bye".getBytes(UTF_8));
        assertThat(node.getData()).isEqualTo("bye".getBytes(UTF_8));
        node.close();
        assertThat(client.checkExists().forPath("/ttl/alive")).isNull();
        assertThat(client.checkExists().forPath("/ttl/alive/touch")).isNull();
    }

    @Test
    void expiredByTheServerItIsCreatedAgain() throws Exception {
        BatonClient client = resources.client();
        PersistentTtlNode node = ttlNode(client, "/ttl/expiring", 1000, "x");
        node.start();
        await().until(() -> client.checkExists().forPath("/ttl/expiring/touch") != null);
        long firstCzxid = client.checkExists().forPath("/ttl/expiring").getCzxid();

        // What the server does once the child has gone untouched for its TTL: the child goes, then the empty
        // container at the next container check (whenItsOwnerStopsTouchingTheServerRemovesIt shows it does).
        BatonClient other = resources.client();
        other.delete().deletingChildrenIfNeeded().forPath("/ttl/expiring");
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            Stat now = other.checkExists().forPath("/ttl/expiring");
            return now != null && now.getCzxid() != firstCzxid
                    && other.checkExists().forPath("/ttl/expiring/touch") != null;
        });
        assertThat(other.getData().forPath("/ttl/expiring")).isEqualTo("x".getBytes(UTF_8));
    }

    @Test
    void whenItsOwnerStopsTouchingTheServerRemovesIt() throws Exception {
        BatonClient owner = resources.client();
        BatonClient watcher = resources.client();
        // The owner's client stays connected; only its touches stop (as in a process that is stuck).
        PersistentTtlNode node = new PersistentTtlNode(owner, "/ttl/abandoned", 1000, new byte[0], "touch", 2);
        node.start();
        await().until(() -> watcher.checkExists().forPath("/ttl/abandoned/touch") != null);
        owner.close(); // stops every touch; the container is not ephemeral, so it stays for now
        assertThat(watcher.checkExists().forPath("/ttl/abandoned")).isNotNull();
        await().atMost(Duration.ofSeconds(15)).until(() -> watcher.checkExists().forPath("/ttl/abandoned") == null);
        node.close();
    }

    @Test
    void curatorReadsTheSameLayout() throws Exception {
        BatonClient client = resources.client();
        CuratorFramework curator = resources.curator();
        // Curator's own PersistentTtlNode on one path, Baton's on another: same shapes.
        try (org.apache.curator.framework.recipes.nodes.PersistentTtlNode theirs =
                new org.apache.curator.framework.recipes.nodes.PersistentTtlNode(curator, "/ttl/theirs", 1000,
                        new byte[] {1})) {
            theirs.start();
            assertThat(theirs.waitForInitialCreate(10, TimeUnit.SECONDS)).isTrue();
            PersistentTtlNode ours = ttlNode(client, "/ttl/ours", 1000, "y");
            ours.start();
            await().until(() -> client.checkExists().forPath("/ttl/theirs/touch") != null
                    && client.checkExists().forPath("/ttl/ours/touch") != null);
            for (String path : List.of("/ttl/theirs", "/ttl/ours")) {
                assertThat(client.getChildren().forPath(path)).containsExactly("touch");
            }
            // Curator's touch node holds its client's default data (the local address); Baton's holds none.
            assertThat(client.getData().forPath("/ttl/ours/touch")).isEmpty();
        }
    }

    @Test
    void lifecycleAndBadArguments() throws Exception {
        BatonClient client = resources.client();
        assertThatThrownBy(() -> new PersistentTtlNode(null, "/t", 1, new byte[0]))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("client");
        assertThatThrownBy(() -> new PersistentTtlNode(client, "/t", 0, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttlMs").hasMessageContaining("0");
        assertThatThrownBy(() -> new PersistentTtlNode(client, "/t", 1000, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("initData");
        assertThatThrownBy(() -> new PersistentTtlNode(client, "t", 1000, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PersistentTtlNode(client, "/t", 1000, new byte[0], "a/b", 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a/b");
        assertThatThrownBy(() -> new PersistentTtlNode(client, "/t", 1000, new byte[0], "touch", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("touchScheduleFactor");
        PersistentTtlNode node = ttlNode(client, "/ttl/life", 1000, "");
        node.start();
        assertThatThrownBy(node::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("STARTED");
        node.close();
        node.close();
        assertThatThrownBy(node::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("CLOSED");
        assertThat(client.checkExists().forPath("/ttl/life")).isNull();
    }
    @Test
    void theNodeIsThereFromTheInitialCreateUntilCloseThenGoesWithinTheTtl() throws Exception {
        long ttlMs = 1000;
        String path = "/ttl/open";
        try (BatonClient client = Baton.newClient(fastReaper.connectString(), new RetryOneTime(1))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            // The first touch races with the initial wait: try it a few times.
            for (int i = 0; i < 20; i++) {
                try (PersistentTtlNode node = new PersistentTtlNode(client, path + "-" + i, ttlMs, new byte[0])) {
                    node.start();
                    assertThat(node.waitForInitialCreate(10, TimeUnit.SECONDS)).isTrue();
                    assertThat(client.checkExists().forPath(node.getChildPath())).as("TTL child, round %d", i)
                            .isNotNull();
                }
            }
            try (PersistentTtlNode node = new PersistentTtlNode(client, path, ttlMs, new byte[0])) {
                node.start();
                assertThat(node.waitForInitialCreate(10, TimeUnit.SECONDS)).isTrue();
                assertThat(client.checkExists().forPath(path)).as("right after the initial create").isNotNull();
                assertThat(client.checkExists().forPath(node.getChildPath())).as("its TTL child, as early")
                        .isNotNull();
                // Many TTLs and container checks while open: never missing, not even for a moment.
                await().during(Duration.ofMillis(ttlMs * 8)).atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(5))
                        .until(() -> client.checkExists().forPath(path) != null);
            }
            await().atMost(Duration.ofMillis(ttlMs)).pollInterval(Duration.ofMillis(5))
                    .until(() -> client.checkExists().forPath(path) == null);
        }
    }
    @Test
    void anOwnerThatDiesRightAfterTheInitialCreateLeavesNothingBehind() throws Exception {
        long ttlMs = 500;
        String path = "/ttl/short-lived";
        BatonClient owner = Baton.newClient(fastReaper.connectString(), new RetryOneTime(1));
        owner.start();
        assertThat(owner.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        PersistentTtlNode node = new PersistentTtlNode(owner, path, ttlMs, new byte[0]);
        node.start();
        assertThat(node.waitForInitialCreate(10, TimeUnit.SECONDS)).isTrue();
        owner.close(); // dies without closing the node: no touch, no delete
        try (BatonClient other = Baton.newClient(fastReaper.connectString(), new RetryOneTime(1))) {
            other.start();
            assertThat(other.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            // A container that never had a child is kept for good; one whose TTL child expired goes.
            await().atMost(Duration.ofSeconds(10)).until(() -> other.checkExists().forPath(path) == null);
        }
        node.close();
    }
}
