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
import java.util.OptionalLong;

/**
 * The leader workloads of a chaos client: a leader latch and a leader selector of either library, recording each
 * leadership. See {@link ChaosWorkloads}.
 */
final class ChaosLeaderWorkloads {
    private ChaosLeaderWorkloads() {
    }

    /** A leader latch or selector of either library: started once, closed once. */
    interface Election {
        void start() throws Exception;

        void close() throws Exception;
    }

    /** What a latch or a selector tells its workload. */
    interface Leadership {
        /**
         * This participant leads. For a selector the call is the leadership: it leads until the call returns.
         *
         * @param token the fencing token of the leadership while the recipe says it is safe; empty when it no
         *     longer is, so that nothing is believed
         */
        void lead(OptionalLong token) throws InterruptedException;

        /** The leadership ended (or is in doubt), for {@code why}. */
        void ended(String why);
    }

    /** Makes a latch or a selector at a path, with an id, telling {@code leadership}. */
    @FunctionalInterface
    interface Elections {
        Election create(String path, String id, Leadership leadership);
    }

    /** Baton's {@link LeaderLatch}. */
    static Elections batonLatches(BatonClient client) {
        return (path, id, leadership) -> {
            LeaderLatch latch = new LeaderLatch(client, path, id);
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    try {
                        leadership.lead(latch.safeFor().toMillis() > 0 ? latch.fencingToken() : OptionalLong.empty());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }

                @Override
                public void notLeader() {
                    leadership.ended("notLeader");
                }
            });
            return election(latch::start, latch::close);
        };
    }

    /** Baton's {@link LeaderSelector}, requeued; cancelled at SUSPENDED or LOST. */
    static Elections batonSelectors(BatonClient client) {
        return (path, id, leadership) -> new BatonSelector(client, path, id, leadership).election();
    }

    private static final class BatonSelector {
        private final LeaderSelector selector;

        BatonSelector(BatonClient client, String path, String id, Leadership leadership) {
            selector = new LeaderSelector(client, path, new LeaderSelectorListener() {
                @Override
                public void takeLeadership(BatonClient c) throws Exception {
                    leadership.lead(selector.safeFor().toMillis() > 0 ? selector.fencingToken()
                            : OptionalLong.empty());
                }

                @Override
                public void stateChanged(BatonClient c, ConnectionState newState) {
                    if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST) {
                        leadership.ended(newState.name());
                        throw new CancelLeadershipException();
                    }
                }
            });
            selector.setId(id);
            selector.autoRequeue();
        }

        Election election() {
            return ChaosLeaderWorkloads.election(selector::start, selector::close);
        }
    }

    /** An election of a start and a close. */
    static Election election(ChaosWorkloads.ThrowingRunnable start, ChaosWorkloads.ThrowingRunnable close) {
        return new Election() {
            @Override
            public void start() throws Exception {
                start.run();
            }

            @Override
            public void close() throws Exception {
                close.run();
            }
        };
    }

    /** {@code latch}: a leader latch, joined, led or waited on a while, then closed; again and again. */
    static final class LatchWorkload<C> extends Workload<C> {
        private final Elections latches;
        private Object latch; // guarded by monitor, as the two below: the current latch's leadership
        private boolean leading;
        private long token;

        LatchWorkload(Context<C> ctx, String name, Elections latches) {
            super(ctx, name);
            this.latches = latches;
        }

        @Override
        void start() {
            spawn("worker", () -> {
                Object mine = new Object();
                synchronized (monitor) {
                    latch = mine;
                }
                Election election = latches.create(path(name), ctx.recorder().client(), new Leadership() {
                    @Override
                    public void lead(OptionalLong safeToken) {
                        synchronized (monitor) {
                            if (latch == mine && !leading && safeToken.isPresent()) {
                                leading = true;
                                token = safeToken.getAsLong();
                                ctx.recorder().becameLeader(name, token);
                            }
                        }
                    }

                    @Override
                    public void ended(String why) {
                        stepDown(mine, why);
                    }
                });
                try {
                    election.start();
                    // Lead (or wait) a while, then leave: leadership must move on without a double leader.
                    pause(500, 4_000);
                } catch (Exception e) {
                    ctx.recorder().note(name + ": " + e);
                } finally {
                    stepDown(mine, "closing");
                    releaseQuietly(election::close);
                }
            });
        }

        private void stepDown(Object which, String why) {
            synchronized (monitor) {
                if (latch == which && leading) {
                    ctx.recorder().lostLeadership(name, token, why);
                    leading = false;
                }
            }
        }
    }

    /** {@code selector}: a leader selector that requeues; a leader leads a while, then returns. */
    static final class SelectorWorkload<C> extends Workload<C> {
        private final Election selector;
        private boolean leading; // guarded by monitor, as token
        private long token;

        SelectorWorkload(Context<C> ctx, String name, Elections selectors) {
            super(ctx, name);
            this.selector = selectors.create(path(name), ctx.recorder().client(), new Leadership() {
                @Override
                public void lead(OptionalLong safeToken) throws InterruptedException {
                    synchronized (monitor) {
                        if (safeToken.isEmpty()) {
                            return;
                        }
                        leading = true;
                        token = safeToken.getAsLong();
                        ctx.recorder().becameLeader(name, token);
                    }
                    try {
                        Thread.sleep(50 + ctx.random().nextInt(500));
                    } finally {
                        end("returned");
                    }
                }

                @Override
                public void ended(String why) {
                    end(why);
                }
            });
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
        void start() throws Exception {
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
