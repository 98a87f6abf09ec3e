package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.recipes.barriers.DistributedDoubleBarrier;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The barrier workload of a chaos client: double-barrier rounds, on either library's barrier. See
 * {@link ChaosWorkloads}.
 */
final class ChaosBarrierWorkloads {
    private ChaosBarrierWorkloads() {
    }

    /** Makes the double barrier of one round, of either library. */
    @FunctionalInterface
    interface RoundBarriers {
        /** Returns the barrier at {@code path} for {@code members}. */
        RoundBarrier at(String path, int members);
    }

    /**
     * One round's double barrier.
     *
     * @param enter enters within the given milliseconds; false if that time passed
     * @param leave leaves within the given milliseconds; false if that time passed
     */
    record RoundBarrier(Step enter, Step leave) {
    }

    /** A barrier step bounded in time. */
    @FunctionalInterface
    interface Step {
        /** Returns true once passed, false when {@code ms} passed first. */
        boolean within(long ms) throws Exception;
    }

    /** Baton's {@link DistributedDoubleBarrier}. */
    static RoundBarriers baton(BatonClient client) {
        return (path, members) -> {
            DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, path, members);
            return new RoundBarrier(ms -> barrier.enter(ms, TimeUnit.MILLISECONDS),
                    ms -> barrier.leave(ms, TimeUnit.MILLISECONDS));
        };
    }

    /**
     * {@code double-barrier}: every client enters and leaves a double barrier of all clients, round after round,
     * one barrier path per round; a member that timed out joins the highest round it sees.
     */
    static final class DoubleBarrierWorkload<C> extends Workload<C> {
        private final RoundBarriers barriers;
        private int round;
        private volatile boolean finishing;

        DoubleBarrierWorkload(Context<C> ctx, String name, RoundBarriers barriers) {
            super(ctx, name);
            this.barriers = barriers;
        }

        @Override
        void start() {
            long waitMs = ctx.session().toMillis() * 2 + 4_000;
            spawn("worker", () -> {
                if (finishing) {
                    running = false; // the round in progress is done; start no other
                    return;
                }
                round = Math.max(round + 1, highestRound());
                String barrierName = name + "-" + round;
                RoundBarrier barrier = barriers.at(path(name) + "/round-" + round, ctx.clients());
                try {
                    ctx.recorder().enterCalled(barrierName);
                    if (!barrier.enter().within(waitMs)) {
                        ctx.recorder().note(barrierName + ": enter timed out");
                        return;
                    }
                    ctx.recorder().enterReturned(barrierName);
                    pause(0, 50);
                    ctx.recorder().leaveCalled(barrierName);
                    if (barrier.leave().within(waitMs)) {
                        ctx.recorder().leaveReturned(barrierName);
                    } else {
                        ctx.recorder().note(barrierName + ": leave timed out");
                    }
                } catch (InterruptedException e) {
                    running = false;
                } catch (Exception e) {
                    ctx.recorder().note(barrierName + ": " + e);
                    pause(100, 300);
                }
            });
        }

        /** Ends the rounds: the one in progress runs to its end (the others are finishing too), no new one. */
        @Override
        void finish() throws InterruptedException {
            finishing = true;
            joinThreads(Duration.ofMillis(ctx.session().toMillis() * 4 + 10_000));
        }

        /** Returns the highest round among the barrier parent's {@code round-N} children, 0 if none. */
        private int highestRound() {
            int max = 0;
            try {
                for (String child : ctx.nodes().children(path(name))) {
                    if (child.startsWith("round-")) {
                        max = Math.max(max, Integer.parseInt(child.substring("round-".length())));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // none yet, or not a round: start from the next one
            }
            return max;
        }
    }
}
