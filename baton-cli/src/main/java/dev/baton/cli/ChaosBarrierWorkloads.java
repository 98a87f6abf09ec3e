package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.recipes.barriers.DistributedDoubleBarrier;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * The barrier workload of a chaos client: double-barrier rounds. See {@link ChaosWorkloads}.
 */
final class ChaosBarrierWorkloads {
    private ChaosBarrierWorkloads() {
    }

    /**
     * {@code double-barrier}: every client enters and leaves a {@link DistributedDoubleBarrier} of all clients,
     * round after round, one barrier path per round; a member that timed out joins the highest round it sees.
     */
    static final class DoubleBarrierWorkload extends Workload<BatonClient> {
        private int round;
        private volatile boolean finishing;

        DoubleBarrierWorkload(Context<BatonClient> ctx, String name) {
            super(ctx, name);
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
                DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(ctx.client(),
                        path(name) + "/round-" + round, ctx.clients());
                try {
                    ctx.recorder().enterCalled(barrierName);
                    if (!barrier.enter(waitMs, TimeUnit.MILLISECONDS)) {
                        ctx.recorder().note(barrierName + ": enter timed out");
                        return;
                    }
                    ctx.recorder().enterReturned(barrierName);
                    pause(0, 50);
                    ctx.recorder().leaveCalled(barrierName);
                    if (barrier.leave(waitMs, TimeUnit.MILLISECONDS)) {
                        ctx.recorder().leaveReturned(barrierName);
                    } else {
                        ctx.recorder().note(barrierName + ": leave timed out");
                    }
                } catch (KeeperException e) {
                    ctx.recorder().note(barrierName + ": " + e);
                    pause(100, 300);
                } catch (InterruptedException e) {
                    running = false;
                }
            });
        }

        /** Ends the rounds: the one in progress runs to its end (the others are finishing too), no new one. */
        @Override
        void finish() throws InterruptedException {
            finishing = true;
            joinThreads(Duration.ofMillis(ctx.session().toMillis() * 4 + 10_000));
        }

        private int highestRound() {
            try {
                return ChaosBarrierWorkloads.highestRound(ctx.client().getChildren().forPath(path(name)));
            } catch (KeeperException e) {
                return 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
        }
    }

    /** Returns the highest round among a barrier parent's {@code round-N} children, 0 if none. */
    static int highestRound(List<String> children) {
        int max = 0;
        for (String child : children) {
            if (child.startsWith("round-")) {
                try {
                    max = Math.max(max, Integer.parseInt(child.substring("round-".length())));
                } catch (NumberFormatException notARound) {
                    // someone else's node
                }
            }
        }
        return max;
    }
}
