package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.BatonClient;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.ThrowingRunnable;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.recipes.barriers.DistributedBarrier;
import dev.baton.recipes.barriers.DistributedDoubleBarrier;
import dev.baton.testing.History;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The barrier workloads of a chaos client, on either library's barriers: double-barrier rounds, and gates (a
 * barrier raised by one client and waited on by the others). See {@link ChaosWorkloads}.
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

    /**
     * A gate: one barrier node, raised and lowered by one client, waited on by others.
     *
     * @param raise makes the barrier stand
     * @param lower removes it (nothing to do if it is gone)
     * @param waitPast waits until the barrier is gone, within the given milliseconds; false if that time passed
     */
    record Gate(ThrowingRunnable raise, ThrowingRunnable lower, Step waitPast) {
    }

    /** Makes the gate at a path, of either library. */
    @FunctionalInterface
    interface Gates {
        Gate at(String path);
    }

    /** Baton's {@link DistributedBarrier}. */
    static Gates batonGates(BatonClient client) {
        return path -> {
            DistributedBarrier barrier = new DistributedBarrier(client, path);
            return new Gate(barrier::setBarrier, barrier::removeBarrier,
                    ms -> barrier.waitOnBarrier(ms, TimeUnit.MILLISECONDS));
        };
    }

    /**
     * A gate whose wait does not wait: it passes after 50 milliseconds, standing barrier or not. The
     * {@code barrier-blocks} checker must catch it.
     */
    static Gates brokenGates(Gates real) {
        return path -> {
            Gate gate = real.at(path);
            return new Gate(gate.raise(), gate.lower(), ms -> {
                Thread.sleep(50);
                return true;
            });
        };
    }

    /**
     * A double barrier whose leave returns at once (the real leave runs on behind it): the {@code barrier} checker
     * must see it return before every member called leave.
     */
    static RoundBarriers brokenRounds(RoundBarriers real) {
        return (path, members) -> {
            RoundBarrier barrier = real.at(path, members);
            return new RoundBarrier(barrier.enter(), ms -> {
                Thread leaving = new Thread(() -> releaseQuietly(() -> barrier.leave().within(ms)), "broken-leave");
                leaving.setDaemon(true);
                leaving.start();
                return true;
            });
        };
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

    /**
     * {@code barrier}: each client raises gates of its own, one at a time ({@code <client>-<n>} under the recipe's
     * path), holds each a while and lowers it; meanwhile it waits on others' gates, picked from the parent's
     * children. The history names each gate {@code barrier-<client>-<n>}: raised ({@code ACQUIRED}) once it
     * stands, lowered ({@code RELEASED}) before the removal is sent, and each wait's call and pass.
     */
    static final class GateWorkload<C> extends Workload<C> {
        private final Gates gates;
        private int raised;

        GateWorkload(Context<C> ctx, String name, Gates gates) {
            super(ctx, name);
            this.gates = gates;
        }

        @Override
        void start() {
            String own = ctx.recorder().client() + "-";
            spawn("raiser", () -> {
                String leaf = own + ++raised;
                Gate gate = gates.at(path(name) + "/" + leaf);
                String gateName = name + "-" + leaf;
                try {
                    gate.raise().run();
                    ctx.recorder().acquired(gateName, History.NO_TOKEN);
                    pause(200, 1_500);
                    ctx.recorder().released(gateName, History.NO_TOKEN);
                } catch (InterruptedException e) {
                    running = false;
                } catch (Exception e) {
                    ctx.recorder().note(gateName + ": " + e); // raised or not: lowered below all the same
                }
                lowerForSure(gate);
                pause(50, 300);
            });
            long waitMs = ctx.session().toMillis() * 2 + 2_000;
            spawn("waiter", () -> {
                String leaf;
                try {
                    List<String> others = ctx.nodes().children(path(name)).stream()
                            .filter(child -> !child.startsWith(own)).toList();
                    if (others.isEmpty()) {
                        pause(50, 150);
                        return;
                    }
                    leaf = others.get(ctx.random().nextInt(others.size()));
                } catch (InterruptedException e) {
                    running = false;
                    return;
                } catch (Exception e) {
                    pause(100, 300); // none raised yet, or not connected
                    return;
                }
                String gateName = name + "-" + leaf;
                try {
                    ctx.recorder().enterCalled(gateName);
                    if (gates.at(path(name) + "/" + leaf).waitPast().within(waitMs)) {
                        ctx.recorder().enterReturned(gateName);
                    } else {
                        ctx.recorder().note(gateName + ": wait timed out");
                    }
                } catch (InterruptedException e) {
                    running = false;
                } catch (Exception e) {
                    ctx.recorder().note(gateName + ": " + e);
                    pause(100, 300);
                }
            });
        }

        /** Lowers a gate, retrying through faults, so that no gate outlives its round; gives up when stopping. */
        private void lowerForSure(Gate gate) {
            while (running) {
                try {
                    gate.lower().run();
                    return;
                } catch (InterruptedException e) {
                    running = false;
                } catch (Exception e) {
                    pause(100, 300);
                }
            }
        }

        @Override
        void stop() throws InterruptedException {
            super.stop();
            releaseQuietly(gates.at(path(name) + "/" + ctx.recorder().client() + "-" + raised).lower());
        }
    }
}
