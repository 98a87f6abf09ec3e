package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.recipes.barriers.DistributedDoubleBarrier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * {@code baton demo double-barrier}: the horse race. Five horses, each with its own client, wait at the gate (a
 * double barrier of 5), then race round by round: every round each horse enters a fresh barrier
 * {@code /demo-race/round-N}, runs a random number of steps and leaves; nobody starts a round before all five are
 * in, nobody goes on before all five are out. The first to 100 steps wins; then all leave the gate.
 */
final class DoubleBarrierDemo implements Demo {

    static final String ROOT = "/demo-race";
    private static final int HORSES = 5;
    private static final int FINISH = 100;
    private static final String[] NAMES = {"Arkle", "Bolt", "Comet", "Dancer", "Eclipse"};
    private static final Duration STEP = Duration.ofMillis(300);

    @Override
    public String name() {
        return "double-barrier";
    }

    @Override
    public List<String> aliases() {
        return List.of("DistributedDoubleBarrier", "horse-race");
    }

    @Override
    public String description() {
        return "a horse race: 5 clients enter and leave a double barrier together, round after round";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        List<BatonClient> clients = new ArrayList<>();
        for (int i = 0; i < HORSES; i++) {
            clients.add(ctx.connect());
        }
        ctx.claim(clients.get(0), ROOT);
        ctx.log("race", "%d horses, first to %d steps; the gate is %s/gate, round N is %s/round-N", HORSES,
                FINISH, ROOT, ROOT);
        AtomicIntegerArray positions = new AtomicIntegerArray(HORSES);
        ExecutorService pool = Executors.newFixedThreadPool(HORSES, r -> {
            Thread t = new Thread(r, "demo-horse");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Integer>> horses = new ArrayList<>();
            for (int h = 0; h < HORSES; h++) {
                int horse = h;
                horses.add(pool.submit(() -> race(ctx, clients.get(horse), horse, positions)));
            }
            int rounds = 0;
            for (Future<Integer> f : horses) {
                rounds = Math.max(rounds, f.get(2, TimeUnit.MINUTES));
            }
            int winner = 0;
            for (int i = 1; i < HORSES; i++) {
                if (positions.get(i) > positions.get(winner)) {
                    winner = i;
                }
            }
            ctx.log("race", "%s wins after %d rounds with %d steps; everyone has left the gate", NAMES[winner],
                    rounds, positions.get(winner));
        } finally {
            pool.shutdownNow();
        }
    }

    /** One horse's race; returns the number of rounds it ran. */
    private static int race(DemoContext ctx, BatonClient client, int horse, AtomicIntegerArray positions)
            throws Exception {
        Random random = new Random();
        DistributedDoubleBarrier gate = new DistributedDoubleBarrier(client, ROOT + "/gate", HORSES);
        ctx.log("gate", "%s is at the gate", NAMES[horse]);
        gate.enter();
        if (horse == 0) {
            ctx.log("gate", "all %d are in: they're off!", HORSES);
        }
        int round = 0;
        while (true) {
            round++;
            DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, ROOT + "/round-" + round, HORSES);
            barrier.enter();
            int steps = 1 + random.nextInt(10);
            int at = positions.addAndGet(horse, steps);
            ctx.pause(STEP);
            ctx.log("round", "%2d  %-8s +%2d -> %3d %s", round, NAMES[horse], steps, at, bar(at));
            barrier.leave();
            if (horse == 0) {
                ctx.log("round", "%2d  all %d out of %s/round-%d", round, HORSES, ROOT, round);
            }
            boolean finished = false;
            for (int i = 0; i < HORSES; i++) {
                finished |= positions.get(i) >= FINISH;
            }
            if (finished) {
                break;
            }
        }
        gate.leave();
        return round;
    }

    private static String bar(int steps) {
        return "#".repeat(Math.min(steps, FINISH) / 5);
    }
}
