package dev.baton.recipes.barriers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.zookeeper.KeeperException;

/**
 * The seed program, for the double-barrier tests: {@value #HORSES} horses, each with its own client,
 * enter an outer barrier ({@code /race/gate}), race round by round through a fresh barrier per round
 * ({@code /race/round-N}: random steps, first to {@value #FINISH} wins), then leave the outer barrier. A horse
 * runs with the blocking forms on a thread of its own, or with the asynchronous forms alone. {@link #check}
 * asserts what every round must show.
 */
final class HorseRace {
    static final int HORSES = 5;
    static final int FINISH = 100;
    private static final int MAX_ROUNDS = 40;
    private static final long WAIT_SECONDS = 30;

    /** What one horse saw in one round, on the shared monotonic clock. */
    private static final class Times {
        volatile long enterCalled;
        volatile long enterReturned;
        volatile long leaveCalled;
        volatile long leaveReturned;
        volatile boolean readySeen;
    }

    private final Times[][] times = new Times[MAX_ROUNDS + 1][HORSES];
    private final AtomicIntegerArray positions = new AtomicIntegerArray(HORSES);
    /** Every barrier instance of the race, the gate's included. */
    final List<DistributedDoubleBarrier> all = new ArrayList<>();

    /** A horse on the calling thread, with the blocking forms (as in the seed program); returns its rounds. */
    int blockingHorse(int horse, BatonClient client) throws KeeperException, InterruptedException {
        Random random = new Random(horse);
        DistributedDoubleBarrier gate = barrier(client, "/race/gate");
        gate.enter();
        int round = 0;
        do {
            round++;
            Times t = times(round, horse);
            String path = "/race/round-" + round;
            DistributedDoubleBarrier barrier = barrier(client, path);
            t.enterCalled = System.nanoTime();
            barrier.enter();
            t.enterReturned = System.nanoTime();
            t.readySeen = client.checkExists().forPath(path + "/ready") != null;
            positions.addAndGet(horse, 1 + random.nextInt(10));
            t.leaveCalled = System.nanoTime();
            barrier.leave();
            t.leaveReturned = System.nanoTime();
        } while (!finished());
        gate.leave();
        return round;
    }

    /** A horse driven by futures only: no thread waits for it. Timed forms when asked to. */
    CompletableFuture<Integer> asyncHorse(int horse, BatonClient client, boolean timed) {
        Random random = new Random(horse);
        DistributedDoubleBarrier gate = barrier(client, "/race/gate");
        return enter(gate, timed)
                .thenCompose(v -> asyncRound(horse, client, 1, random, timed))
                .thenCompose(rounds -> leave(gate, timed).thenApply(v -> rounds));
    }

    /**
     * Asserts, for every round: each {@code enter} returned after the last horse called {@code enter}, each
     * {@code leave} after the last horse called {@code leave}, every horse saw {@code ready} while the round ran,
     * and nothing is left under the round's path; nothing under the gate; no failed member or {@code ready}
     * write, and at most two failed path writes per member (see the class comment of the barrier).
     *
     * @param rounds the rounds every horse ran
     * @param observer a client to look with
     */
    void check(int rounds, BatonClient observer) throws Exception {
        assertThat(rounds).isGreaterThanOrEqualTo(10);
        for (int round = 1; round <= rounds; round++) {
            long lastEnterCalled = 0;
            long lastLeaveCalled = 0;
            for (Times t : times[round]) {
                lastEnterCalled = Math.max(lastEnterCalled, t.enterCalled);
                lastLeaveCalled = Math.max(lastLeaveCalled, t.leaveCalled);
            }
            for (int horse = 0; horse < HORSES; horse++) {
                Times t = times[round][horse];
                assertThat(t.enterReturned).as("round %d horse %d enter", round, horse)
                        .isGreaterThanOrEqualTo(lastEnterCalled);
                assertThat(t.leaveReturned).as("round %d horse %d leave", round, horse)
                        .isGreaterThanOrEqualTo(lastLeaveCalled);
                assertThat(t.readySeen).as("round %d horse %d saw ready", round, horse).isTrue();
            }
            assertThat(children(observer, "/race/round-" + round)).as("round %d", round).isEmpty();
        }
        assertThat(children(observer, "/race/gate")).isEmpty();
        assertThat(failedWrites()).as("failed member/ready writes").isZero();
        // A new path costs each member at most the create that finds it missing and the path's create that
        // finds it made by another member; never more, and nothing else fails.
        for (DistributedDoubleBarrier b : all) {
            assertThat(b.failedPathCreates.get()).as("failed path writes of a member of %s", b.getPath())
                    .isLessThanOrEqualTo(2);
        }
    }

    int failedWrites() {
        return all.stream().mapToInt(b -> b.failedWrites.get()).sum();
    }

    int failedPathWrites() {
        return all.stream().mapToInt(b -> b.failedPathCreates.get()).sum();
    }

    static List<String> children(BatonClient client, String path) throws Exception {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of(); // the empty container was swept
        }
    }

    private CompletableFuture<Integer> asyncRound(int horse, BatonClient client, int round, Random random,
            boolean timed) {
        Times t = times(round, horse);
        String path = "/race/round-" + round;
        DistributedDoubleBarrier barrier = barrier(client, path);
        t.enterCalled = System.nanoTime();
        return enter(barrier, timed).thenCompose(v -> {
            t.enterReturned = System.nanoTime();
            return client.checkExists().forPathAsync(path + "/ready");
        }).thenCompose(ready -> {
            t.readySeen = ready != null;
            positions.addAndGet(horse, 1 + random.nextInt(10));
            t.leaveCalled = System.nanoTime();
            return leave(barrier, timed);
        }).thenCompose(v -> {
            t.leaveReturned = System.nanoTime();
            return finished() ? CompletableFuture.completedFuture(round)
                    : asyncRound(horse, client, round + 1, random, timed);
        });
    }

    private DistributedDoubleBarrier barrier(BatonClient client, String path) {
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, path, HORSES);
        synchronized (all) {
            all.add(barrier);
        }
        return barrier;
    }

    private Times times(int round, int horse) {
        Times t = new Times();
        times[round][horse] = t;
        return t;
    }

    private boolean finished() {
        for (int i = 0; i < HORSES; i++) {
            if (positions.get(i) >= FINISH) {
                return true;
            }
        }
        return false;
    }

    private static CompletableFuture<Void> enter(DistributedDoubleBarrier barrier, boolean timed) {
        return timed ? barrier.enterAsync(WAIT_SECONDS, TimeUnit.SECONDS).thenAccept(HorseRace::passed)
                : barrier.enterAsync();
    }

    private static CompletableFuture<Void> leave(DistributedDoubleBarrier barrier, boolean timed) {
        return timed ? barrier.leaveAsync(WAIT_SECONDS, TimeUnit.SECONDS).thenAccept(HorseRace::passed)
                : barrier.leaveAsync();
    }

    private static void passed(boolean through) {
        if (!through) {
            throw new AssertionError("a timed call ran out of time");
        }
    }
}
