package dev.baton.recipes.nodes;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(90)
@Tag("slow")
class PersistentNodeTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private final List<AutoCloseable> resources = new ArrayList<>();
    private BatonClient client;
    private BatonClient other;

    @BeforeEach
    void clients() throws InterruptedException {
        client = open(newClient());
        other = open(newClient());
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T open(T resource) {
        resources.add(resource);
        return resource;
    }

    private static BatonClient newClient() throws InterruptedException {
        BatonClient c = Baton.builder().connectString(zk.connectString()).sessionTimeout(Duration.ofSeconds(10))
                .retryPolicy(new RetryOneTime(10)).build();
        c.start();
        assertThat(c.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return c;
    }

    private String dataAt(String path) throws Exception {
        return new String(other.getData().forPath(path), UTF_8);
    }

    @Test
    void ephemeralNodeComesBackAfterDeletionAndSessionExpiry() throws Exception {
        PersistentNode node = open(new PersistentNode(client, CreateMode.EPHEMERAL, false, "/pn/deep/me",
                "hello".getBytes(UTF_8)));
        node.start();
        assertThat(node.waitForInitialCreate(10, TimeUnit.SECONDS)).isTrue();
        assertThat(node.getActualPath()).isEqualTo("/pn/deep/me");
        assertThat(dataAt("/pn/deep/me")).isEqualTo("hello");

        other.delete().forPath("/pn/deep/me");
        await().until(() -> other.checkExists().forPath("/pn/deep/me") != null);
        assertThat(dataAt("/pn/deep/me")).isEqualTo("hello");

        node.setData("v2".getBytes(UTF_8));
        assertThat(new String(node.getData(), UTF_8)).isEqualTo("v2");
        assertThat(dataAt("/pn/deep/me")).isEqualTo("v2");

        long oldSession = client.getZooKeeper().getSessionId();
        zk.server().expireSession(client.getZooKeeper());
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            Stat stat = other.checkExists().forPath("/pn/deep/me");
            return stat != null && stat.getEphemeralOwner() != oldSession
                    && stat.getEphemeralOwner() == client.getZooKeeper().getSessionId();
        });
        assertThat(dataAt("/pn/deep/me")).isEqualTo("v2");

        node.close();
        assertThat(other.checkExists().forPath("/pn/deep/me")).isNull();
        assertThat(node.getActualPath()).isNull();
        assertThatThrownBy(() -> node.waitForInitialCreate(1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void protectedSequentialNodeGetsANewPathWhenRecreated() throws Exception {
        PersistentNode node = open(new PersistentNode(client, CreateMode.EPHEMERAL_SEQUENTIAL, true,
                "/pseq/member-", "m".getBytes(UTF_8)));
        node.start();
        assertThat(node.waitForInitialCreate(10, TimeUnit.SECONDS)).isTrue();
        String first = node.getActualPath();
        assertThat(BatonPaths.isProtected(BatonPaths.nodeName(first))).isTrue();
        assertThat(BatonPaths.stripProtection(BatonPaths.nodeName(first))).matches("member-\\d{10}");
        other.delete().forPath(first);
        await().until(() -> node.getActualPath() != null && !node.getActualPath().equals(first));
        assertThat(other.getChildren().forPath("/pseq")).containsExactly(BatonPaths.nodeName(node.getActualPath()));
        zk.server().expireSession(client.getZooKeeper());
        String second = node.getActualPath();
        await().atMost(Duration.ofSeconds(20)).until(() -> node.getActualPath() != null
                && !node.getActualPath().equals(second) && other.checkExists().forPath(node.getActualPath()) != null);
        assertThat(other.getChildren().forPath("/pseq")).hasSize(1);
    }

    @Test
    void takesOverAnExistingNodeAndRecreatesItWhenItsOwnerGoes() throws Exception {
        other.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath("/taken/id", "theirs".getBytes(UTF_8));
        PersistentNode node = open(new PersistentNode(client, CreateMode.EPHEMERAL, false, "/taken/id",
                "ours".getBytes(UTF_8)));
        node.start();
        assertThat(node.waitForInitialCreate(10, TimeUnit.SECONDS)).isTrue();
        assertThat(dataAt("/taken/id")).isEqualTo("ours");
        zk.server().expireSession(other.getZooKeeper()); // the owner goes: its ephemeral node with it
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            Stat stat = client.checkExists().forPath("/taken/id");
            return stat != null && stat.getEphemeralOwner() == client.getZooKeeper().getSessionId();
        });
    }

    @Test
    void closedRightAfterStartOverAnExistingNodeLeavesNoNode() throws Exception {
        for (int i = 0; i < 40; i++) {
            String path = "/pn/race/existing-" + i;
            other.create().creatingParentsIfNeeded().forPath(path, "theirs".getBytes(UTF_8));
            PersistentNode node = new PersistentNode(client, CreateMode.EPHEMERAL, false, path,
                    "ours".getBytes(UTF_8));
            node.start();
            node.close(); // the create's "node exists" answer may come before or after this
            assertThat(other.checkExists().forPath(path)).as("round %d: the taken-over node after close", i)
                    .isNull();
        }
    }

    @Test
    void closedRightAfterStartLeavesNoNodeOfItsOwn() throws Exception {
        for (int i = 0; i < 40; i++) {
            String path = "/pn/race/own-" + i;
            PersistentNode node = new PersistentNode(client, i % 2 == 0 ? CreateMode.EPHEMERAL
                    : CreateMode.PERSISTENT, i % 4 < 2, path, "ours".getBytes(UTF_8));
            node.start();
            node.close();
            String name = "own-" + i;
            assertThat(other.getChildren().forPath("/pn/race").stream().filter(n -> n.endsWith(name)))
                    .as("round %d: the node created after close", i).isEmpty();
        }
    }

    @Test
    void lifecycleAndArguments() throws Exception {
        PersistentNode node = open(new PersistentNode(client, CreateMode.PERSISTENT, false, "/plife", new byte[0]));
        assertThatThrownBy(() -> node.waitForInitialCreate(1, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> node.setData(new byte[0])).isInstanceOf(IllegalStateException.class);
        node.start();
        assertThatThrownBy(node::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> node.waitForInitialCreate(-1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(node.waitForInitialCreate(10, TimeUnit.SECONDS)).isTrue();
        node.close();
        node.close();
        assertThat(other.checkExists().forPath("/plife")).isNull();
        assertThatThrownBy(() -> new PersistentNode(client, null, false, "/x", new byte[0]))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("mode");
        assertThatThrownBy(() -> new PersistentNode(client, CreateMode.EPHEMERAL, false, "x", new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PersistentNode(client, CreateMode.EPHEMERAL, false, "/x", null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("initData");
    }

    @Test
    void groupMembersConvergeThroughChangesCloseAndSessionExpiry() throws Exception {
        GroupMember a = open(new GroupMember(client, "/group", "a", "A".getBytes(UTF_8)));
        GroupMember b = open(new GroupMember(other, "/group", "b"));
        a.start();
        b.start();
        await().until(() -> ids(a).equals(Map.of("a", "A", "b", "")) && ids(b).equals(Map.of("a", "A", "b", "")));
        b.setThisData("B".getBytes(UTF_8));
        await().until(() -> ids(a).equals(Map.of("a", "A", "b", "B")));
        zk.server().expireSession(client.getZooKeeper());
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            Stat stat = other.checkExists().forPath("/group/a");
            return stat != null && stat.getEphemeralOwner() == client.getZooKeeper().getSessionId();
        });
        await().until(() -> ids(a).equals(Map.of("a", "A", "b", "B")) && ids(b).equals(Map.of("a", "A", "b", "B")));
        a.close();
        await().until(() -> ids(b).equals(Map.of("b", "B")));
        assertThat(ids(a)).isEqualTo(Map.of("a", "A")); // closed: only itself
        assertThatThrownBy(() -> new GroupMember(client, "/group", "x/y")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GroupMember(client, "/group", "")).isInstanceOf(IllegalArgumentException.class);
    }

    private static Map<String, String> ids(GroupMember member) {
        Map<String, String> out = new java.util.TreeMap<>();
        member.getCurrentMembers().forEach((id, data) -> out.put(id, new String(data, UTF_8)));
        return out;
    }
}
