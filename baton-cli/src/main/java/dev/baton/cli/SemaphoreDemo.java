package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.recipes.locks.InterProcessSemaphoreV2;
import dev.baton.recipes.locks.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code baton demo semaphore}: five workers share two leases of an {@link InterProcessSemaphoreV2}; each
 * waits its turn without a thread (async acquire), works, and returns the lease; never more than two at once.
 * Then a timed acquire gives up while both leases are out.
 */
final class SemaphoreDemo implements Demo {

    static final String PATH = "/demo-semaphore";
    private static final int LEASES = 2;
    private static final String[] WORKERS = {"alice", "bob", "carol", "dave", "erin"};
    private static final Duration WORK = Duration.ofMillis(400);

    @Override
    public String name() {
        return "semaphore";
    }

    @Override
    public List<String> aliases() {
        return List.of("InterProcessSemaphoreV2");
    }

    @Override
    public String description() {
        return "five workers share two leases, waiting without threads; a timed acquire gives up";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        BatonClient client = ctx.connect();
        ctx.claim(client, PATH);
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, PATH, LEASES);
        ctx.log("sem", "%d leases at %s, %d workers", LEASES, PATH, WORKERS.length);
        AtomicInteger out = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (String worker : WORKERS) {
            ctx.log("wait", "%s asks for a lease", worker);
            done.add(semaphore.acquireAsync().thenCompose(lease -> {
                int now = out.incrementAndGet();
                most.accumulateAndGet(now, Math::max);
                ctx.log("lease", "%s got %s (token %d): %d of %d out", worker, lease.getNodeName(),
                        lease.fencingToken().getAsLong(), now, LEASES);
                return CompletableFuture.runAsync(() -> {
                    try {
                        ctx.pause(WORK);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    out.decrementAndGet();
                    ctx.log("return", "%s returns its lease", worker);
                    lease.close();
                });
            }));
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        List<Lease> both = new ArrayList<>(semaphore.acquire(LEASES, 30, TimeUnit.SECONDS));
        ctx.log("lease", "main takes both leases at once");
        Lease late = semaphore.acquire(500, TimeUnit.MILLISECONDS);
        ctx.log("timeout", "a timed acquire of 500ms while both are out: %s; nodes now: %d",
                late == null ? "gave up, nothing left behind" : "got one?!", semaphore.getParticipantNodes().size());
        semaphore.returnAll(both);
        ctx.log("sem", "at most %d leases were out at once", most.get());
        if (late != null || most.get() > LEASES) {
            throw new DemoException("the semaphore let too many in");
        }
    }
}
