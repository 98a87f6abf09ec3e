package dev.baton.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Baton and Apache Curator LeaderSelectors on one path share turns and never lead at once. */
@Timeout(120)
class LeaderSelectorInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void batonAndCuratorSelectorsTakeTurnsOneAtATime() throws Exception {
        List<String> turns = new CopyOnWriteArrayList<>();
        AtomicInteger leading = new AtomicInteger();
        AtomicInteger maxLeading = new AtomicInteger();
        BatonClient baton = resources.client();
        CuratorFramework curator = resources.curator();

        LeaderSelector batonSelector = new LeaderSelector(baton, "/interop/selector",
                new dev.baton.recipes.leader.LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(BatonClient client) {
                        take("baton", turns, leading, maxLeading);
                    }
                });
        batonSelector.setId("baton");
        batonSelector.autoRequeue();
        var curatorSelector = new org.apache.curator.framework.recipes.leader.LeaderSelector(curator,
                "/interop/selector", new LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(CuratorFramework client) {
                        take("curator", turns, leading, maxLeading);
                    }
                });
        curatorSelector.setId("curator");
        curatorSelector.autoRequeue();
        try {
            batonSelector.start();
            curatorSelector.start();
            // Baton may take a few turns before Curator's selector has even queued on a loaded machine.
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> turns.size() >= 12 && new HashSet<>(turns).size() == 2);
            assertThat(maxLeading.get()).isEqualTo(1);
            // Each library reads the other's participant ids from the shared queue.
            // Between a turn's release and its requeue a selector is briefly out of the queue.
            await().untilAsserted(() -> assertThat(batonSelector.getParticipants())
                    .extracting(Participant::id).containsExactlyInAnyOrder("baton", "curator"));
            await().untilAsserted(() -> assertThat(curatorSelector.getParticipants())
                    .extracting(p -> p.getId()).containsExactlyInAnyOrder("baton", "curator"));
        } finally {
            batonSelector.close();
            curatorSelector.close();
        }
    }

    private static void take(String who, List<String> turns, AtomicInteger leading, AtomicInteger maxLeading) {
        maxLeading.accumulateAndGet(leading.incrementAndGet(), Math::max);
        try {
            turns.add(who);
            Thread.sleep(20); // a little work, so overlapping leaders would be seen
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            leading.decrementAndGet();
        }
    }
}
