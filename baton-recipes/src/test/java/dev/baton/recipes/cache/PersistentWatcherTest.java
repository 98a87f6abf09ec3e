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
import org.apache.zookeeper.Watcher.Event.EventType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
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
}
