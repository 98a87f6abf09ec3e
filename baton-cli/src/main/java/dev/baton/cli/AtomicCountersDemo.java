package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.recipes.atomic.AtomicValue;
import dev.baton.recipes.atomic.DistributedAtomicInteger;
import dev.baton.recipes.atomic.DistributedAtomicLong;
import dev.baton.recipes.atomic.PromotedToLock;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.retry.RetryNTimes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * {@code baton demo atomic}: three clients change two counters at the same time. A {@link DistributedAtomicLong}
 * of page views is incremented optimistically (read, write only if unchanged, retry after losing a race); a
 * {@link DistributedAtomicInteger} of stock is decremented with one optimistic attempt and then, after losing,
 * under a {@link PromotedToLock} mutex. No change is lost or applied twice; a stale {@code compareAndSet} fails.
 */
final class AtomicCountersDemo implements Demo {

    static final String PATH = "/demo-atomic";
    static final String VIEWS = PATH + "/page-views";
    static final String STOCK = PATH + "/stock";
    static final String STOCK_LOCK = PATH + "/stock-lock";
    private static final String[] CLIENTS = {"alice", "bob", "carol"};
    private static final int CHANGES = 4;
    private static final int INITIAL_STOCK = 20;
    private static final Duration STEP = Duration.ofMillis(150);

    @Override
    public String name() {
        return "atomic";
    }

    @Override
    public List<String> aliases() {
        return List.of("atomic-long", "atomic-integer", "atomic-counter", "atomic-counters", "counter",
                "DistributedAtomicLong", "DistributedAtomicInteger");
    }

    @Override
    public String description() {
        return "clients race on atomic counters, optimistically and promoted to a lock; no change is lost";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        BatonClient viewer = ctx.connect();
        ctx.claim(viewer, PATH);
        List<BatonClient> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS.length; i++) {
            clients.add(ctx.connect());
        }

        ctx.log("long", "%s: a DistributedAtomicLong; %d clients add 1 each, %d times, at the same time", VIEWS,
                CLIENTS.length, CHANGES);
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int c = 0; c < CLIENTS.length; c++) {
            String who = CLIENTS[c];
            DistributedAtomicLong views = new DistributedAtomicLong(clients.get(c), VIEWS,
                    new ExponentialBackoffRetry(5, 20));
            runs.add(DemoContext.background(who, () -> {
                for (int i = 0; i < CHANGES; i++) {
                    AtomicValue<Long> result = views.increment();
                    require(result.succeeded(), who + "'s increment gave up");
                    ctx.log("add", "%-5s page views %d -> %d", who, result.preValue(), result.postValue());
                    ctx.pause(STEP);
                }
            }));
        }
        awaitAll(runs);
        long views = new DistributedAtomicLong(viewer, VIEWS, new RetryNTimes(0, 0)).get().postValue();
        ctx.log("long", "page views: %d = %d x %d: every increment counted once", views, CLIENTS.length, CHANGES);
        require(views == (long) CLIENTS.length * CHANGES, "page views " + views);

        Recorder<String> lockNodes = new Recorder<>();
        TreeWatch.on(ctx, viewer, STOCK_LOCK, e -> {
            if (e.getType() == EventType.NodeCreated && e.getPath().contains("lock-")) {
                lockNodes.record(e.getPath());
            }
        });
        DistributedAtomicInteger stock = new DistributedAtomicInteger(viewer, STOCK, new RetryNTimes(0, 0));
        stock.initialize(INITIAL_STOCK);
        ctx.log("int", "%s: a DistributedAtomicInteger, initialized to %d; each client takes 1, %d times: one "
                + "optimistic try, then under the lock %s", STOCK, INITIAL_STOCK, CHANGES, STOCK_LOCK);
        runs.clear();
        for (int c = 0; c < CLIENTS.length; c++) {
            String who = CLIENTS[c];
            DistributedAtomicInteger mine = new DistributedAtomicInteger(clients.get(c), STOCK, new RetryNTimes(0, 0),
                    PromotedToLock.builder().lockPath(STOCK_LOCK).retryPolicy(new RetryNTimes(10, 10))
                            .timeout(10, TimeUnit.SECONDS).build());
            runs.add(DemoContext.background(who, () -> {
                for (int i = 0; i < CHANGES; i++) {
                    AtomicValue<Integer> result = mine.decrement();
                    require(result.succeeded(), who + "'s decrement gave up");
                    ctx.log("take", "%-5s stock %d -> %d", who, result.preValue(), result.postValue());
                    ctx.pause(STEP);
                }
            }));
        }
        awaitAll(runs);
        int left = stock.get().postValue();
        ctx.log("int", "stock: %d = %d - %d x %d; %d lock nodes were made for writes that lost their optimistic "
                + "race", left, INITIAL_STOCK, CLIENTS.length, CHANGES, lockNodes.items().size());
        require(left == INITIAL_STOCK - CLIENTS.length * CHANGES, "stock " + left);

        AtomicValue<Integer> stale = stock.compareAndSet(INITIAL_STOCK, 99);
        ctx.log("cas", "compareAndSet(%d, 99) with a stale expectation: succeeded = %s, value stays %d",
                INITIAL_STOCK, stale.succeeded(), stock.get().postValue());
        require(!stale.succeeded(), "a stale compareAndSet succeeded");
        ctx.log("data", "what `baton inspect %s` shows (8 bytes for the long, 4 for the int, big-endian):", PATH);
        ctx.inspect(viewer, PATH, InspectOptions.NONE);
    }

    private static void awaitAll(List<CompletableFuture<Void>> runs) throws Exception {
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new))
                .get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    private static void require(boolean ok, String what) throws DemoException {
        if (!ok) {
            throw new DemoException(what);
        }
    }
}
