package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.BatonClient;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.recipes.leader.CancelLeadershipException;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.leader.LeaderLatchListener;
import dev.baton.recipes.leader.LeaderSelector;
import dev.baton.recipes.leader.LeaderSelectorListener;
import dev.baton.state.ConnectionState;
import dev.baton.testing.History;

/**
 * The leader workloads of a chaos client: a leader latch and a leader selector, recording each leadership. See
 * {@link ChaosWorkloads}.
 */
final class ChaosLeaderWorkloads {
    private ChaosLeaderWorkloads() {
    }

    static final class LatchWorkload extends Workload<BatonClient> {
        private LeaderLatch latch; // guarded by monitor, as the two below
        private boolean leading;
        private long token;

        LatchWorkload(Context<BatonClient> ctx, String name) {
            super(ctx, name);
        }

        @Override
        void start() {
            spawn("worker", () -> {
                LeaderLatch mine = new LeaderLatch(ctx.client(), path(name), ctx.recorder().client());
                synchronized (monitor) {
                    latch = mine;
                }
                mine.addListener(new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        synchronized (monitor) {
                            if (latch == mine && !leading && mine.safeFor().toMillis() > 0) {
                                leading = true;
                                token = mine.fencingToken().orElse(History.NO_TOKEN);
                                ctx.recorder().becameLeader(name, token);
                            }
                        }
                    }

                    @Override
                    public void notLeader() {
                        stepDown(mine, "notLeader");
                    }
                });
                mine.start();
                try {
                    // Lead (or wait) a while, then leave: leadership must move on without a double leader.
                    pause(500, 4_000);
                } finally {
                    stepDown(mine, "closing");
                    releaseQuietly(mine::close);
                }
            });
        }

        private void stepDown(LeaderLatch which, String why) {
            synchronized (monitor) {
                if (latch == which && leading) {
                    ctx.recorder().lostLeadership(name, token, why);
                    leading = false;
                }
            }
        }
    }

    /** {@code selector}: a {@link LeaderSelector} that requeues; a leader leads a while, then returns. */
    static final class SelectorWorkload extends Workload<BatonClient> {
        private final LeaderSelector selector;
        private boolean leading; // guarded by monitor, as token
        private long token;

        SelectorWorkload(Context<BatonClient> ctx, String name) {
            super(ctx, name);
            this.selector = new LeaderSelector(ctx.client(), path(name), new LeaderSelectorListener() {
                @Override
                public void takeLeadership(BatonClient client) throws Exception {
                    synchronized (monitor) {
                        if (selector.safeFor().toMillis() <= 0) {
                            return;
                        }
                        leading = true;
                        token = selector.fencingToken().orElse(History.NO_TOKEN);
                        ctx.recorder().becameLeader(name, token);
                    }
                    try {
                        Thread.sleep(50 + ctx.random().nextInt(500));
                    } finally {
                        end("returned");
                    }
                }

                @Override
                public void stateChanged(BatonClient client, ConnectionState newState) {
                    if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST) {
                        end(newState.name());
                        throw new CancelLeadershipException();
                    }
                }
            });
            selector.setId(ctx.recorder().client());
            selector.autoRequeue();
        }

        private void end(String why) {
            synchronized (monitor) {
                if (leading) {
                    ctx.recorder().lostLeadership(name, token, why);
                    leading = false;
                }
            }
        }

        @Override
        void start() {
            selector.start();
        }

        @Override
        void stop() throws InterruptedException {
            super.stop();
            end("closing");
            releaseQuietly(selector::close);
        }
    }
}
