package dev.baton.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.SentRequests;
import dev.baton.recipes.TestResources;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hand-over rule: a waiter that saw only its predecessor ahead of it holds on that node's deletion notice,
 * without listing again; a waiter further back watches the node two ahead and lists when it goes, so it is second
 * in line by the time its turn comes. Shown with request counts, in a longer queue, with Curator's mutex on the
 * same path, with a waiter that gives up in the middle of the queue, and across a session expiry.
 */
@Timeout(120)
@Tag("slow")
class HandOverTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    private static void awaitNodes(dev.baton.recipes.locks.InterProcessMutex lock, int count) {
        await().atMost(WAIT).until(() -> lock.getParticipantNodes().size() == count);
    }

    @Test
    void theSecondInLineHoldsOnTheDeletionNoticeWithoutListingAgain() throws Exception {
        var holder = new dev.baton.recipes.locks.InterProcessMutex(resources.client(), "/handover/count");
        var waiter = new dev.baton.recipes.locks.InterProcessMutex(resources.client(), "/handover/count");
        holder.acquire();
        CompletableFuture<Hold> waiting = waiter.acquireAsync();
        awaitNodes(holder, 2);

        zk.server().resetStatistics();
        holder.release();
        Hold held = waiting.get(10, TimeUnit.SECONDS);
        Map<String, Long> requests = zk.server().requestCounts();
        assertThat(requests).as("requests from the release to the hand-over").containsEntry("delete", 1L)
                .doesNotContainKey("getChildren").doesNotContainKey("getChildren2");
        assertThat(waiter.wakeUps()).isEqualTo(1);
        assertThat(held.fencingToken()).isPositive();
        held.release();
    }

    @Test
    void mixedWithCuratorWaitersTheQueueIsServedInOrderAndAlone() throws Exception {
        String path = "/handover/mixed";
        List<String> order = new CopyOnWriteArrayList<>();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        var first = new dev.baton.recipes.locks.InterProcessMutex(resources.client(), path);
        first.acquire();
        List<CompletableFuture<Void>> turns = new CopyOnWriteArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(6);
        try {
            for (int i = 0; i < 6; i++) {
                String name = (i % 2 == 0 ? "curator-" : "baton-") + i;
                Acquirer acquirer = i % 2 == 0 ? curator(path) : baton(path);
                turns.add(CompletableFuture.runAsync(() -> acquirer.turn(() -> {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    order.add(name);
                    inside.decrementAndGet();
                }), threads));
                awaitNodes(first, i + 2); // queued in this order
            }
            first.release();
            for (CompletableFuture<Void> turn : turns) {
                turn.get(30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(order).containsExactly("curator-0", "baton-1", "curator-2", "baton-3", "curator-4", "baton-5");
        assertThat(overlaps).hasValue(0);
    }

    /** Takes one turn of a lock: acquire, run, release. */
    private interface Acquirer {
        void turn(Runnable body);
    }

    private Acquirer baton(String path) throws org.apache.zookeeper.KeeperException, InterruptedException {
        var lock = new dev.baton.recipes.locks.InterProcessMutex(resources.client(), path);
        return body -> {
            try {
                lock.acquire();
                try {
                    body.run();
                } finally {
                    lock.release();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }

    private Acquirer curator(String path) throws InterruptedException {
        InterProcessMutex lock = new InterProcessMutex(resources.curator(), path);
        return body -> {
            try {
                lock.acquire();
                try {
                    body.run();
                } finally {
                    lock.release();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }

    @Test
    void aWaiterFurtherBackHoldsAfterTheOneAheadOfItWithoutListingOnTheHandOver() throws Exception {
        String path = "/handover/further-back";
        List<dev.baton.recipes.locks.InterProcessMutex> four = new ArrayList<>();
        List<SentRequests> sent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            BatonClient client = resources.client(); // one client each, to tell who sends what
            sent.add(new SentRequests(client));
            four.add(new dev.baton.recipes.locks.InterProcessMutex(client, path));
        }
        four.get(0).acquire();
        List<CompletableFuture<Hold>> waiting = new ArrayList<>();
        for (int i = 1; i < 4; i++) {
            waiting.add(four.get(i).acquireAsync());
            awaitNodes(four.get(0), i + 1); // queued in this order
        }
        Hold held = null;
        for (int turn = 1; turn < 4; turn++) {
            String holdersNode = four.get(0).getParticipantNodes().iterator().next();
            SentRequests byNext = sent.get(turn);
            // The next in line has read (and so watches) the holder's node: the second and third to join once the
            // node ahead of the holder went (the second after its listing, the third with no listing since), the
            // fourth just before the listing that the deletion of the node two ahead of it prompted.
            boolean listsAgain = turn == 3;
            await().atMost(WAIT).until(() -> listsAgain ? byNext.listedAfterReading(holdersNode)
                    : byNext.hasRead(holdersNode));
            long listingsBefore = byNext.listings();
            if (held == null) {
                four.get(0).release();
            } else {
                held.release();
            }
            held = waiting.get(turn - 1).get(10, TimeUnit.SECONDS);
            String what = "listings by the new holder " + turn;
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(byNext.listings()).as(what).isEqualTo(listingsBefore));
        }
        held.release();
        // The second and third to join listed once, when they joined; the fourth once more, when the node two
        // ahead of it went.
        assertThat(sent.get(1).listings()).isEqualTo(1);
        assertThat(sent.get(2).listings()).isEqualTo(1);
        assertThat(sent.get(3).listings()).isEqualTo(2);
        // Woken by their predecessor's deletion; the third and fourth first by the node two ahead.
        assertThat(four.get(1).wakeUps()).isEqualTo(1);
        assertThat(four.get(2).wakeUps()).isEqualTo(2);
        assertThat(four.get(3).wakeUps()).isEqualTo(2);
    }

    @Test
    void aWaiterThatGivesUpInTheMiddleNeitherHurriesNorStrandsTheOneBehindIt() throws Exception {
        var holder = new dev.baton.recipes.locks.InterProcessMutex(resources.client(), "/handover/gives-up");
        var quitter = new dev.baton.recipes.locks.InterProcessMutex(resources.client(), "/handover/gives-up");
        BatonClient lastClient = resources.client();
        SentRequests byLast = new SentRequests(lastClient);
        var last = new dev.baton.recipes.locks.InterProcessMutex(lastClient, "/handover/gives-up");
        holder.acquire();
        CompletableFuture<Hold> quitting = quitter.acquireAsync(2, TimeUnit.SECONDS);
        awaitNodes(holder, 2);
        CompletableFuture<Hold> lastWaiting = last.acquireAsync();
        awaitNodes(holder, 3);

        assertThat(quitting.get(10, TimeUnit.SECONDS)).as("the timed waiter gave up").isNull();
        assertThat(holder.getParticipantNodes()).hasSize(2);
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> !lastWaiting.isDone());

        holder.release();
        lastWaiting.get(10, TimeUnit.SECONDS).release();
        // It watched the holder, two ahead, not the one that gave up: woken once, it read the node that had been
        // between them, found it gone and held, without listing again.
        assertThat(last.wakeUps()).isEqualTo(1);
        assertThat(byLast.listings()).isEqualTo(1);
    }

    @Test
    void aWaiterWhoseSessionExpiredQueuesAgainBehindTheOneThatWasBehindIt() throws Exception {
        String path = "/handover/expiry";
        var holder = new dev.baton.recipes.locks.InterProcessMutex(resources.client(), path);
        BatonClient expiring = resources.client();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        expiring.getConnectionStateListenable().addListener((c, s) -> states.add(s));
        var second = new dev.baton.recipes.locks.InterProcessMutex(expiring, path);
        var third = new dev.baton.recipes.locks.InterProcessMutex(resources.client(), path);
        holder.acquire();
        List<String> order = new CopyOnWriteArrayList<>();
        CompletableFuture<Hold> secondWaiting = second.acquireAsync();
        awaitNodes(holder, 2);
        CompletableFuture<Hold> thirdWaiting = third.acquireAsync();
        awaitNodes(holder, 3);
        secondWaiting.thenRun(() -> order.add("second"));
        thirdWaiting.thenRun(() -> order.add("third"));

        zk.server().expireSession(expiring.getZooKeeper());
        await().atMost(WAIT).until(() -> states.contains(ConnectionState.RECONNECTED));
        awaitNodes(holder, 3); // the second queued again, now last
        assertThat(secondWaiting).isNotDone();
        assertThat(thirdWaiting).isNotDone();

        holder.release();
        Hold thirdHold = thirdWaiting.get(10, TimeUnit.SECONDS);
        assertThat(secondWaiting).as("the re-queued waiter behind the third").isNotDone();
        // get() may return before the completing thread has run the thenRun stages: wait for them.
        await().atMost(WAIT).untilAsserted(() -> assertThat(order).containsExactly("third"));
        thirdHold.release();
        secondWaiting.get(10, TimeUnit.SECONDS).release();
        await().atMost(WAIT).untilAsserted(() -> assertThat(order).containsExactly("third", "second"));
    }
}
