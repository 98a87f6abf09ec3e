package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.recipes.barriers.DistributedBarrier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code baton demo barrier}: a coordinator holds three workers at a {@link DistributedBarrier} until the
 * night's data is loaded. Two workers wait without a thread ({@code waitOnBarrierAsync}), one with a timed
 * blocking wait that runs out once while the gate is still shut; when the coordinator removes the barrier, all
 * three go through at once.
 */
final class BarrierDemo implements Demo {

    static final String PATH = "/demo-barrier";
    private static final String[] WORKERS = {"alice", "bob", "carol"};
    private static final Duration STEP = Duration.ofMillis(600);

    @Override
    public String name() {
        return "barrier";
    }

    @Override
    public List<String> aliases() {
        return List.of("DistributedBarrier");
    }

    @Override
    public String description() {
        return "workers wait at a barrier the coordinator holds shut, then all go through when it is removed";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        BatonClient coordinatorClient = ctx.connect();
        ctx.claim(coordinatorClient, PATH);
        DistributedBarrier coordinator = new DistributedBarrier(coordinatorClient, PATH);
        coordinator.setBarrier();
        ctx.log("set", "the coordinator sets the barrier: %s exists, the gate is shut", PATH);

        Recorder<String> through = new Recorder<>();
        List<CompletableFuture<Void>> passed = new ArrayList<>();
        for (int i = 0; i < WORKERS.length; i++) {
            String who = WORKERS[i];
            DistributedBarrier barrier = new DistributedBarrier(ctx.connect(), PATH);
            if (i < WORKERS.length - 1) {
                ctx.log("wait", "%s waits at the barrier (waitOnBarrierAsync: a watch, no thread)", who);
                passed.add(barrier.waitOnBarrierAsync().thenRun(() -> goThrough(ctx, who, through)));
            } else {
                passed.add(DemoContext.background(who, () -> {
                    ctx.log("wait", "%s waits at the barrier for 300ms (waitOnBarrier with a timeout)", who);
                    if (!barrier.waitOnBarrier(300, TimeUnit.MILLISECONDS)) {
                        ctx.log("timeout", "%s: still shut after 300ms; %s waits again, this time for as long as it "
                                + "takes", who, who);
                        through.record("timeout");
                        barrier.waitOnBarrier();
                    }
                    goThrough(ctx, who, through);
                }));
            }
        }
        through.await(0, "timeout"::equals, DemoContext.AWAIT_TIMEOUT, "carol's timed wait to run out");
        ctx.pause(STEP);
        ctx.log("work", "the coordinator loads the night's data while everyone waits");
        ctx.pause(STEP);
        if (through.items().size() != 1) {
            throw new DemoException("a worker went through the shut barrier: " + through.items());
        }
        long opened = System.nanoTime();
        ctx.log("remove", "the coordinator removes the barrier: every waiter's watch fires");
        coordinator.removeBarrier();
        CompletableFuture.allOf(passed.toArray(CompletableFuture[]::new))
                .get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        ctx.log("barrier", "all %d went through within %.1f ms of the removal; %s is gone", WORKERS.length,
                (System.nanoTime() - opened) / 1e6, PATH);
    }

    private static void goThrough(DemoContext ctx, String who, Recorder<String> through) {
        through.record(who);
        ctx.log("through", "%s goes through the open gate", who);
    }
}
