package dev.baton.recipes.cache;

import static dev.baton.recipes.cache.CacheTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
@Tag("slow")
class PersistentWatcherTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void recursiveWatchSurvivesReconnectAndSessionLossAndSaysSo() throws Exception {
        try (BatonClient client = CacheTesting.newClient(zk.connectString());
                BatonClient writer = CacheTesting.newClient(zk.connectString());
                PersistentWatcher watcher = new PersistentWatcher(client, "/pw", true)) {
            List<String> events = new CopyOnWriteArrayList<>();
            AtomicInteger resets = new AtomicInteger();
            watcher.getListenable().addListener(e -> {
                if (e.getType() != EventType.None) {
                    events.add(e.getType() + " " + e.getPath());
                }
            });
            watcher.getResetListenable().addListener(resets::incrementAndGet);
            watcher.start();
            assertThatThrownBy(watcher::start).isInstanceOf(IllegalStateException.class);
            await().until(() -> resets.get() == 1);
            writer.create().creatingParentsIfNeeded().forPath("/pw/a/b", bytes("b"));
            writer.setData().forPath("/pw/a/b", bytes("b2"));
            await().until(() -> events.size() == 4);
            assertThat(events).containsExactly("NodeCreated /pw", "NodeCreated /pw/a", "NodeCreated /pw/a/b",
                    "NodeDataChanged /pw/a/b");

            zk.server().stop();
            zk.server().restart();
            await().atMost(Duration.ofSeconds(20)).until(() -> resets.get() == 2);
            zk.server().expireSession(client.getZooKeeper());
            await().atMost(Duration.ofSeconds(20)).until(() -> resets.get() == 3);
            writer.delete().forPath("/pw/a/b");
            await().until(() -> events.contains("NodeDeleted /pw/a/b"));
            assertThat(events).hasSize(5);
            assertThat(CacheTesting.watchesByPath(zk.port())).contains("/pw");

            watcher.close();
            assertThat(CacheTesting.watchesByPath(zk.port())).doesNotContain("/pw");
            writer.delete().forPath("/pw/a");
            // The same client still gets events from a watch of its own: the closed watcher would have too.
            try (PersistentWatcher probe = new PersistentWatcher(client, "/pw", false)) {
                AtomicInteger probeResets = new AtomicInteger();
                probe.getResetListenable().addListener(probeResets::incrementAndGet);
                List<String> probeEvents = new CopyOnWriteArrayList<>();
                probe.getListenable().addListener(e -> probeEvents.add(e.getType() + " " + e.getPath()));
                probe.start();
                await().until(() -> probeResets.get() == 1);
                writer.setData().forPath("/pw", bytes("x"));
                await().until(() -> probeEvents.contains("NodeDataChanged /pw"));
            }
            assertThat(events).hasSize(5);
        }
    }

    @Test
    void listenersHearOfAClientThatClosesUnderARunningWatcher() throws Exception {
        BatonClient client = CacheTesting.newClient(zk.connectString());
        PersistentWatcher watcher = new PersistentWatcher(client, "/pw-closing", true);
        List<WatchedEvent> events = new CopyOnWriteArrayList<>();
        AtomicInteger resets = new AtomicInteger();
        watcher.getListenable().addListener(events::add);
        watcher.getResetListenable().addListener(resets::incrementAndGet);
        watcher.start();
        await().until(() -> resets.get() == 1);

        client.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> events.stream().anyMatch(PersistentWatcherTest::closed));
        assertThat(events).filteredOn(PersistentWatcherTest::closed).hasSize(1);
        watcher.close(); // nothing left to do, and no failure
    }

    @Test
    void startOnAClosedClientDeliversTheClosedEvent() throws Exception {
        BatonClient client = CacheTesting.newClient(zk.connectString());
        client.close();
        try (PersistentWatcher watcher = new PersistentWatcher(client, "/pw-closed", false)) {
            List<WatchedEvent> events = new CopyOnWriteArrayList<>();
            watcher.getListenable().addListener(events::add);
            watcher.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 1);
            assertThat(events).singleElement().matches(PersistentWatcherTest::closed);
        }
    }

    @Test
    void aClientThatClosesWhileTheWatcherWaitsToRegisterIsReported() throws Exception {
        BatonClient client = CacheTesting.newClient(zk.connectString());
        PersistentWatcher watcher = new PersistentWatcher(client, "/pw-starting", true);
        List<WatchedEvent> events = new CopyOnWriteArrayList<>();
        watcher.getListenable().addListener(events::add);
        zk.server().stop();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> !client.isConnected());
            watcher.start(); // the registration waits for a connection: no watch in ZooKeeper's client yet
            client.close();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> events.stream().anyMatch(PersistentWatcherTest::closed));
            assertThat(events).filteredOn(PersistentWatcherTest::closed).hasSize(1);
            watcher.close();
        } finally {
            zk.server().restart();
        }
    }

    private static boolean closed(WatchedEvent event) {
        return event.getType() == EventType.None && event.getState() == KeeperState.Closed && event.getPath() == null;
    }
    @Test
    void aWatcherThroughANamespaceSeesACreationMadeRightAfterStart() throws Exception {
        try (BatonClient client = CacheTesting.newClient(zk.connectString());
                PersistentWatcher watcher = new PersistentWatcher(client.usingNamespace("top"), "/main", true)) {
            List<String> events = new CopyOnWriteArrayList<>();
            watcher.getListenable().addListener(e -> {
                if (e.getType() != EventType.None) {
                    events.add(e.getType() + " " + e.getPath());
                }
            });
            watcher.start();
            // No wait for the registration: the watch is sent before anything the start makes sure of, and one
            // session's requests are handled in order, so these creations come after it.
            client.create().forPath("/top/main");
            client.create().forPath("/top/main/a");
            await().until(() -> events.size() >= 2);
            assertThat(events).containsExactly("NodeCreated /main", "NodeCreated /main/a");
            watcher.close();
            client.delete().deletingChildrenIfNeeded().forPath("/top");
        }
    }
}
