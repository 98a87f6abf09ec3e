package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.recipes.locks.InterProcessMultiLock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * {@code baton demo multi-lock}: money moves between accounts, each transfer under an
 * {@link InterProcessMultiLock} of its two accounts' locks (taken in one global order, so two transfers never
 * each hold half of what they need). A transfer whose second account is busy past its deadline gives back the
 * first: all or nothing. The total never changes.
 */
final class MultiLockDemo implements Demo {

    static final String PATH = "/demo-multi-lock";
    private static final Duration STEP = Duration.ofMillis(600);

    /** One transfer's locks: its two accounts, in name order (the global order). */
    private static List<String> locksFor(String from, String to) {
        return from.compareTo(to) < 0 ? List.of(lockPath(from), lockPath(to)) : List.of(lockPath(to), lockPath(from));
    }

    private static String lockPath(String account) {
        return PATH + "/" + account;
    }

    @Override
    public String name() {
        return "multi-lock";
    }

    @Override
    public List<String> aliases() {
        return List.of("InterProcessMultiLock");
    }

    @Override
    public String description() {
        return "transfers lock both accounts at once, all or nothing, and the total never changes";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        BatonClient alice = ctx.connect();
        BatonClient bob = ctx.connect();
        BatonClient carol = ctx.connect();
        BatonClient viewer = ctx.connect();
        ctx.claim(viewer, PATH);
        Recorder<WatchedEvent> nodes = TreeWatch.on(ctx, viewer, PATH, e -> { });
        Map<String, Integer> balances = new ConcurrentHashMap<>(Map.of("brokerage", 500, "checking", 300,
                "savings", 200));
        ctx.log("bank", "accounts %s, total %d; a transfer locks both its accounts under %s/<account>",
                new TreeMap<>(balances), total(balances), PATH);

        // alice: checking -> savings, holds both while she works.
        CompletableFuture<Void> aliceHolds = new CompletableFuture<>();
        CompletableFuture<Void> aliceGoes = new CompletableFuture<>();
        CompletableFuture<Void> aliceDone = DemoContext.background("alice", () -> transfer(ctx, alice, "alice",
                "checking", "savings", 100, balances, -1, () -> {
                    aliceHolds.complete(null);
                    aliceGoes.get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                }));
        aliceHolds.get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        ctx.pause(STEP);

        // carol: brokerage -> checking within 500ms: gets brokerage, cannot get checking, gives brokerage back.
        boolean carolMoved = DemoContext.background("carol", () -> transfer(ctx, carol, "carol", "brokerage",
                "checking", 50, balances, 500, () -> { })).handle((ok, error) -> error == null)
                .get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        int brokerageNodes = lockNodes(viewer, "brokerage") + lockNodes(viewer, "checking");
        ctx.log("check", "carol's nodes left under brokerage and checking: %d", brokerageNodes - 1);
        if (carolMoved || brokerageNodes != 1) { // alice's node under checking
            throw new DemoException("carol's timed transfer should have given up and left nothing");
        }
        ctx.pause(STEP);

        // bob: savings -> brokerage: takes brokerage, waits for savings (held by alice).
        int mark = nodes.mark();
        CompletableFuture<Void> bobDone = DemoContext.background("bob", () -> transfer(ctx, bob, "bob", "savings",
                "brokerage", 70, balances, -1, () -> { }));
        nodes.await(mark, e -> e.getType() == EventType.NodeCreated && e.getPath().startsWith(lockPath("savings")),
                DemoContext.AWAIT_TIMEOUT, "bob's node under savings");
        ctx.log("queue", "bob holds brokerage and waits for savings; what `baton inspect %s -r` shows:", PATH);
        InspectView.read(viewer, PATH, Integer.MAX_VALUE, InspectOptions.NONE).forEach(ctx::detail);
        ctx.pause(STEP);

        aliceGoes.complete(null);
        aliceDone.get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        bobDone.get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        ctx.pause(STEP);
        DemoContext.background("carol", () -> transfer(ctx, carol, "carol", "brokerage", "checking", 50, balances,
                -1, () -> { })).get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        ctx.log("bank", "accounts %s, total %d: unchanged", new TreeMap<>(balances), total(balances));
        if (total(balances) != 1000) {
            throw new DemoException("money was lost or made: total " + total(balances));
        }
    }

    /**
     * Moves money under both accounts' locks.
     *
     * @param timeoutMs the deadline for both locks, or -1 to wait as long as it takes
     * @param whileHolding runs while both locks are held, before the money moves
     * @throws DemoException if the locks were not had in time
     */
    private static void transfer(DemoContext ctx, BatonClient client, String who, String from, String to, int amount,
            Map<String, Integer> balances, long timeoutMs, DemoContext.Step whileHolding) throws Exception {
        List<String> paths = locksFor(from, to);
        InterProcessMultiLock both = new InterProcessMultiLock(client, paths);
        ctx.log("wait", "%s moves %d from %s to %s: locks %s%s", who, amount, from, to,
                String.join(" + ", paths.stream().map(BatonPaths::nodeName).toList()),
                timeoutMs < 0 ? "" : " within " + timeoutMs + "ms");
        if (timeoutMs < 0) {
            both.acquire();
        } else if (!both.acquire(timeoutMs, TimeUnit.MILLISECONDS)) {
            ctx.log("timeout", "%s could not have both within %dms: gives back what she had, moves nothing", who,
                    timeoutMs);
            throw new DemoException(who + " timed out");
        }
        try {
            ctx.log("acquire", "%s holds both (fencing tokens %s)", who, both.fencingTokens());
            whileHolding.run();
            balances.merge(from, -amount, Integer::sum);
            balances.merge(to, amount, Integer::sum);
            ctx.log("move", "%s moved %d: %s %d, %s %d", who, amount, from, balances.get(from), to, balances.get(to));
        } finally {
            ctx.log("release", "%s releases both, in reverse order", who);
            both.release();
        }
    }

    /** The lock nodes under an account's lock (its container may be gone once empty). */
    private static int lockNodes(BatonClient viewer, String account) throws Exception {
        try {
            return viewer.getChildren().forPath(lockPath(account)).size();
        } catch (KeeperException.NoNodeException e) {
            return 0;
        }
    }

    private static int total(Map<String, Integer> balances) {
        return balances.values().stream().mapToInt(Integer::intValue).sum();
    }
}
