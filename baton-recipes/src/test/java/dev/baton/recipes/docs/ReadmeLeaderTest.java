package dev.baton.recipes.docs;

// README.md begin leader-latch
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.leader.LeaderLatchListener;

// README.md end leader-latch
// README.md begin leader-selector
import dev.baton.recipes.leader.LeaderSelector;
import dev.baton.recipes.leader.LeaderSelectorListenerAdapter;

// README.md end leader-selector
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.recipes.leader.Participant;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * README.md's leader-election examples, line for line (checked by {@link DocsMirrorTest}), run against an embedded
 * server: the latch starts and stops the scheduler with its leadership, and the selector leads again and again.
 */
@Timeout(120)
class ReadmeLeaderTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    /** The client the examples use. */
    private BatonClient client;

    /** The README's scheduler: records being started and stopped. */
    private final Scheduler scheduler = new Scheduler();
    private final AtomicInteger batches = new AtomicInteger();

    @BeforeEach
    void startClient() throws InterruptedException {
        client = resources.client();
    }

    @Test
    void theLatchRunsTheSchedulerWhileLeading() throws Exception {
        try (StdOut out = StdOut.capture()) {
            // README.md begin leader-latch
            try (LeaderLatch latch = new LeaderLatch(client, "/services/scheduler/leader", "host-1",
                    LeaderLatch.CloseMode.NOTIFY_LEADER)) {           // notLeader() on close() too (the default is SILENT)
                latch.addListener(new LeaderLatchListener() {
                    public void isLeader() { scheduler.start(); }     // on a ZooKeeper thread: return quickly
                    public void notLeader() { scheduler.stop(); }     // connection trouble (SUSPENDED/LOST) or close
                });
                latch.start();                                        // returns at once
                if (latch.await(10, TimeUnit.SECONDS)) {              // or await(), or just the listener
                    OptionalLong token = latch.fencingToken();        // grows with every new leader; empty when not leading
                    Duration safe = latch.safeFor();                  // how long to trust leadership without the server
                    System.out.println("leading with token " + token.getAsLong() + " for " + safe);
                }
                Participant leader = latch.getLeader();               // ("", false) when nobody takes part
                Collection<Participant> queue = latch.getParticipants();   // queue order, the leader first
            }                                                         // close(): the next in the queue takes over
            // README.md end leader-latch
            assertThat(out.lines()).singleElement().asString().matches("leading with token \\d+ for PT.*S");
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> scheduler.events.size() == 2);
        assertThat(scheduler.events).containsExactly("start", "stop");
        assertThat(client.getChildren().forPath("/services/scheduler/leader")).isEmpty();
    }

    @Test
    void theSelectorLeadsInTurnsWhileItRuns() throws Exception {
        // README.md begin leader-selector
        LeaderSelector selector = new LeaderSelector(client, "/jobs/batch/leader", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(BatonClient c) throws Exception {
                runOneBatch();              // leadership ends when this returns; interrupted on SUSPENDED/LOST or close()
            }
        });
        selector.setId("host-1");
        selector.autoRequeue();
        selector.start();                   // no thread waits for leadership; takeLeadership runs on a shared pool
        awaitShutdown();                    // meanwhile this instance leads in turn with the others
        selector.close();                   // returns once this instance's node is gone (see below)
        // README.md end leader-selector
        assertThat(batches.get()).isGreaterThanOrEqualTo(2);
    }

    void runOneBatch() {
        batches.incrementAndGet();
    }

    /** Until this instance, alone on the path, has led twice: with autoRequeue() it queues again after each turn. */
    void awaitShutdown() {
        await().atMost(Duration.ofSeconds(30)).until(() -> batches.get() >= 2);
    }

    /** Records its starts and stops. */
    static final class Scheduler {
        final List<String> events = new CopyOnWriteArrayList<>();

        void start() {
            events.add("start");
        }

        void stop() {
            events.add("stop");
        }
    }
}
