package dev.baton.recipes.docs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.cache.BatonCacheListener;
import dev.baton.recipes.cache.ChildData;
import dev.baton.recipes.cache.NodeCache;
import dev.baton.recipes.cache.PathChildrenCache;
import dev.baton.recipes.cache.PersistentWatcher;
import dev.baton.recipes.cache.TreeCache;
import dev.baton.recipes.nodes.GroupMember;
import dev.baton.recipes.nodes.PersistentNode;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * README.md's examples of caches, watches and nodes, line for line (checked by {@link DocsMirrorTest}), run against
 * an embedded server: each test checks what its example shows.
 */
@Timeout(120)
class ReadmeCachesTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /** The client the fragments use. */
    private BatonClient client;

    @BeforeEach
    void startClient() throws InterruptedException {
        client = Baton.newClient(zk.connectString(), new RetryOneTime(10));
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void closeClient() throws Exception {
        for (String path : List.of("/app", "/services")) {
            if (client.checkExists().forPath(path) != null) {
                client.delete().deletingChildrenIfNeeded().forPath(path);
            }
        }
        client.close();
    }

    static void cacheExample(String connectString) throws Exception {
        // README.md begin cache
        try (BatonClient client = Baton.newClient(connectString, new ExponentialBackoffRetry(1000, 3));
                BatonCache cache = BatonCache.build(client, "/app/config")) {
            client.start();
            cache.listenable().addListener(BatonCacheListener.builder()
                    .forCreates(node -> System.out.println("created " + node.path()))
                    .forChanges((old, node) -> System.out.println("changed " + node.path()))
                    .forDeletes(old -> System.out.println("deleted " + old.path()))
                    .forPathChildrenCache("/app/config", client, (c, event) -> System.out.println(event))
                    .build());
            cache.startAsync().get(10, TimeUnit.SECONDS);         // completes once the initial load is done
            Optional<ChildData> db = cache.get("/app/config/db");   // (or start(), then awaitInitialized(10, SECONDS))
            db.ifPresent(node -> System.out.println("db: " + new String(node.data(), UTF_8)));
        }
        // README.md end cache
    }

    @Test
    void theCacheReportsTheTreeAndReadsANode() throws Exception {
        client.create().creatingParentsIfNeeded().forPath("/app/config/db", "jdbc:h2:mem".getBytes(UTF_8));
        try (StdOut out = StdOut.capture()) {
            cacheExample(zk.connectString());
            assertThat(out.lines()).containsSubsequence("created /app/config", "created /app/config/db",
                    "db: jdbc:h2:mem");
            assertThat(out.lines()).anyMatch(l -> l.contains("CHILD_ADDED") && l.contains("/app/config/db"));
        }
    }

    @Test
    void theClassicCachesLoadWhatIsThere() throws Exception {
        client.create().creatingParentsIfNeeded().forPath("/app/workers/w1");
        client.create().forPath("/app/workers/w2");
        client.create().creatingParentsIfNeeded().forPath("/app/config/db");
        client.create().forPath("/app/flag");
        try (StdOut out = StdOut.capture()) {
            // README.md begin classic-caches
            try (PathChildrenCache workers = new PathChildrenCache(client, "/app/workers", true);
                    TreeCache tree = TreeCache.newBuilder(client, "/app/config").setMaxDepth(2).build();
                    NodeCache flag = new NodeCache(client, "/app/flag")) {
                workers.getListenable().addListener((c, event) -> System.out.println(event.getType() + " " + event.getData()));
                workers.start(PathChildrenCache.StartMode.BUILD_INITIAL_CACHE);   // loaded when this returns
                tree.start();
                flag.start(true);
                List<ChildData> now = workers.getCurrentData();
                System.out.println(now.size() + " workers; flag set: " + (flag.getCurrentData() != null));
            }
            // README.md end classic-caches
            assertThat(out.lines()).contains("2 workers; flag set: true");
        }
    }

    @Test
    void thePersistentWatcherSeesEveryChangeBelow() throws Exception {
        client.create().creatingParentsIfNeeded().forPath("/app/config");
        try (StdOut out = StdOut.capture()) {
            // README.md begin persistent-watcher
            PersistentWatcher watcher = new PersistentWatcher(client, "/app/config", true);
            watcher.getListenable().addListener(event -> System.out.println(event.getType() + " " + event.getPath()));
            watcher.getResetListenable().addListener(() -> System.out.println("(re-)registered: re-read what matters"));
            watcher.start();                                      // close() removes the watch from the server
            // README.md end persistent-watcher
            try {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> out.lines().contains("(re-)registered: re-read what matters"));
                client.create().forPath("/app/config/db");
                client.setData().forPath("/app/config/db", "v2".getBytes(UTF_8));
                await().atMost(Duration.ofSeconds(30)).until(() -> out.lines().contains("NodeDataChanged /app/config/db"));
                assertThat(out.lines()).containsSubsequence("NodeCreated /app/config/db", "NodeDataChanged /app/config/db");
            } finally {
                watcher.close();
            }
        }
    }

    @Test
    void thePersistentNodeAndTheGroupMemberComeAndGo() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        client.getZooKeeper().addWatch("/", e -> seen.add(e.getType() + " " + e.getPath()),
                AddWatchMode.PERSISTENT_RECURSIVE);
        try (StdOut out = StdOut.capture()) {
            // README.md begin group-member
            try (PersistentNode node = new PersistentNode(client, CreateMode.EPHEMERAL, false, "/services/api/host-1",
                    "10.0.0.1:8080".getBytes(UTF_8))) {
                node.start();
                node.waitForInitialCreate(10, TimeUnit.SECONDS);
            }
            try (GroupMember member = new GroupMember(client, "/services/api/members", "host-1", "10.0.0.1".getBytes(UTF_8))) {
                member.start();
                Map<String, byte[]> members = member.getCurrentMembers();   // id -> payload, this member included
                System.out.println(members.keySet());                       // [host-1]
            }
            // README.md end group-member
            assertThat(out.lines()).containsExactly("[host-1]");
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains("NodeDeleted /services/api/members/host-1"));
        List<String> nodes = new ArrayList<>(seen);
        nodes.removeIf(e -> !e.endsWith("/host-1"));
        assertThat(nodes).containsExactly("NodeCreated /services/api/host-1", "NodeDeleted /services/api/host-1",
                "NodeCreated /services/api/members/host-1", "NodeDeleted /services/api/members/host-1");
    }
}
