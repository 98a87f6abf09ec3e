package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.leader.CancelLeadershipException;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;

/** Curator's leader latch, leader selector and double barrier workloads; see {@link CuratorWorkloads}. */
final class CuratorCoordinationWorkloads {
    private CuratorCoordinationWorkloads() {
    }

    /**
     * {@code latch}: Curator's {@link LeaderLatch}, joined, held a while and closed. Its listener runs on a thread
     * of its own: Curator calls it on the ZooKeeper event thread, where the token read would wait for itself.
     */
    static final class LatchWorkload extends Workload<CuratorFramework> {
        private final ExecutorService listenerThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "chaos-latch-listener");
            t.setDaemon(true);
            return t;
        });
        private LeaderLatch latch; // guarded by monitor, as the two below
        private boolean leading;
        private long token;

        LatchWorkload(Context<CuratorFramework> ctx, String name) {
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
                        long t;
                        try {
                            t = CuratorChaosClient.czxid(ctx.client(), mine.getOurPath());
                        } catch (Exception e) {
                            ctx.recorder().note(name + ": no token: " + e);
                            return;
                        }
                        synchronized (monitor) {
                            if (latch == mine && !leading && mine.hasLeadership() && CuratorWorkloads.connected(ctx)) {
                                leading = true;
                                token = t;
                                ctx.recorder().becameLeader(name, token);
                            }
                        }
                    }

                    @Override
                    public void notLeader() {
                        stepDown(mine, "notLeader");
                    }
                }, listenerThread);
                try {
                    mine.start();
                    pause(500, 4_000);
                } catch (Exception e) {
                    ctx.recorder().note(name + ": " + e);
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

        @Override
        void stop() throws InterruptedException {
            super.stop();
            listenerThread.shutdownNow();
        }
    }

    /** {@code selector}: Curator's {@link LeaderSelector}, requeued; cancelled at SUSPENDED or LOST. */
    static final class SelectorWorkload extends Workload<CuratorFramework> {
        private final LeaderSelector selector;
        private boolean leading; // guarded by monitor, as token
        private long token;

        SelectorWorkload(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
            this.selector = new LeaderSelector(ctx.client(), path(name), new LeaderSelectorListener() {
                @Override
                public void takeLeadership(CuratorFramework client) throws Exception {
                    long t = CuratorChaosClient.czxid(client, CuratorWorkloads.lockPath((InterProcessMutex) CuratorWorkloads.SELECTOR_MUTEX
                            .get(selector)));
                    synchronized (monitor) {
                        if (!CuratorWorkloads.connected(ctx)) {
                            return;
                        }
                        leading = true;
                        token = t;
                        ctx.recorder().becameLeader(name, token);
                    }
                    try {
                        Thread.sleep(50 + ctx.random().nextInt(500));
                    } finally {
                        end("returned");
                    }
                }

                @Override
                public void stateChanged(CuratorFramework client, ConnectionState newState) {
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

    /** {@code double-barrier}: Curator's {@link DistributedDoubleBarrier}, one barrier path per round. */
    static final class DoubleBarrierWorkload extends Workload<CuratorFramework> {
        private int round;
        private volatile boolean finishing;

        DoubleBarrierWorkload(Context<CuratorFramework> ctx, String name) {
            super(ctx, name);
        }

        @Override
        void start() {
            long waitMs = ctx.session().toMillis() * 2 + 4_000;
            spawn("worker", () -> {
                if (finishing) {
                    running = false;
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
                } catch (InterruptedException e) {
                    running = false;
                } catch (Exception e) {
                    ctx.recorder().note(barrierName + ": " + e);
                    pause(100, 300);
                }
            });
        }

        @Override
        void finish() throws InterruptedException {
            finishing = true;
            joinThreads(Duration.ofMillis(ctx.session().toMillis() * 4 + 10_000));
        }

        private int highestRound() {
            try {
                return ChaosBarrierWorkloads.highestRound(ctx.client().getChildren().forPath(path(name)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            } catch (Exception e) {
                return 0;
            }
        }
    }
}
