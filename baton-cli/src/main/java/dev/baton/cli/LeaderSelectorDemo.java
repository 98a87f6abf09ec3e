package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.recipes.leader.LeaderSelector;
import dev.baton.recipes.leader.LeaderSelectorListenerAdapter;
import dev.baton.recipes.leader.Participant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * {@code baton demo leader-selector}: three participants, {@code #0 #1 #2}, each with its own client, run a
 * {@link LeaderSelector} with {@code autoRequeue()}; each turn's {@code takeLeadership} does about two seconds of
 * "work" and returns, and the selector queues again behind the others, so leadership rotates fairly.
 *
 * <p>Steps: connect the three clients; start the selectors and wait until all three have a node in the queue
 * (the first leader holds its turn until then, so the rotation is fair from the first turn); print each turn as
 * it starts (id, fencing token, how many selectors lead, who waits) and ends; after {@link #TURNS} turns close
 * the selectors (a selector that leads again meanwhile is interrupted) and delete the election path.
 */
final class LeaderSelectorDemo implements Demo {

    static final String LEADER_PATH = "/demo-leader-selector";
    static final int PARTICIPANTS = 3;
    static final int TURNS = 10;
    private static final String NODE_NAME = "lock-";
    /** The "work" of one turn at speed 1. */
    private static final Duration WORK = Duration.ofSeconds(2);

    @Override
    public String name() {
        return "leader-selector";
    }

    @Override
    public List<String> aliases() {
        return List.of("LeaderSelector");
    }

    @Override
    public String description() {
        return "3 auto-requeueing LeaderSelectors take turns leading, in fair rotation";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        List<BatonClient> clients = new ArrayList<>();
        for (int i = 0; i < PARTICIPANTS; i++) {
            clients.add(ctx.connect());
        }
        BatonClient viewer = clients.get(0);
        ctx.log("client", "#0, #1, #2 connected, each with its own session");
        // The path goes after the selectors have closed (resources close newest first), before the clients do.
        ctx.claim(viewer, LEADER_PATH);

        Recorder<String> created = new Recorder<>();
        TreeWatch.on(ctx, viewer, LEADER_PATH, e -> {
            if (e.getType() == EventType.NodeCreated && e.getPath().contains(NODE_NAME)) {
                created.record(e.getPath());
            }
        });

        CountDownLatch allQueued = new CountDownLatch(1);
        Recorder<String> turnsDone = new Recorder<>();
        AtomicInteger turns = new AtomicInteger();
        List<LeaderSelector> selectors = new ArrayList<>();
        for (int i = 0; i < PARTICIPANTS; i++) {
            LeaderSelector selector = new LeaderSelector(clients.get(i), LEADER_PATH,
                    new Turns(ctx, "#" + i, selectors, allQueued, turns, turnsDone));
            selector.setId("#" + i);
            selector.autoRequeue();
            selectors.add(ctx.closeOnExit(selector));
        }
        ctx.log("start", "three LeaderSelectors with autoRequeue() on %s; each turn works %.1fs, then returns",
                LEADER_PATH, WORK.toMillis() / 1000.0);
        int mark = created.mark();
        selectors.forEach(LeaderSelector::start);
        created.await(mark + PARTICIPANTS - 1, p -> true, DemoContext.AWAIT_TIMEOUT, "three queued selectors");
        List<String> queue = new ArrayList<>();
        for (String node : BatonPaths.sortBySequence(viewer.getChildren().forPath(LEADER_PATH), NODE_NAME)) {
            byte[] id = viewer.getData().forPath(BatonPaths.makePath(LEADER_PATH, node));
            queue.add(BatonPaths.stripProtection(node) + " " + new String(id, UTF_8));
        }
        ctx.log("queue", "all three queued, in this order: %s", String.join(", ", queue));
        allQueued.countDown();

        turnsDone.await(TURNS - 1, t -> true, DemoContext.AWAIT_TIMEOUT.multipliedBy(2), TURNS + " turns");
        ctx.log("close", "%d turns done; closing the three selectors", TURNS);
        for (int i = PARTICIPANTS - 1; i >= 0; i--) {
            selectors.get(i).close();
        }
        // close() returns once the selector's node is gone, the leader's too (its takeLeadership is interrupted).
        List<Participant> left = new ArrayList<>(selectors.get(0).getParticipants());
        if (!left.isEmpty()) {
            throw new DemoException("selectors still in " + LEADER_PATH + " after closing: " + left);
        }
        viewer.delete().quietly().deletingChildrenIfNeeded().forPath(LEADER_PATH);
        ctx.log("clean", "%d participants left; %s deleted", left.size(), LEADER_PATH);
    }

    /** One participant's turns: prints each, works, returns. After the last turn it just holds until closed. */
    private static final class Turns extends LeaderSelectorListenerAdapter {
        private final DemoContext ctx;
        private final String id;
        private final List<LeaderSelector> selectors;
        private final CountDownLatch allQueued;
        private final AtomicInteger turns;
        private final Recorder<String> turnsDone;

        Turns(DemoContext ctx, String id, List<LeaderSelector> selectors, CountDownLatch allQueued,
                AtomicInteger turns, Recorder<String> turnsDone) {
            this.ctx = ctx;
            this.id = id;
            this.selectors = selectors;
            this.allQueued = allQueued;
            this.turns = turns;
            this.turnsDone = turnsDone;
        }

        @Override
        public void takeLeadership(BatonClient client) throws Exception {
            allQueued.await();
            if (turns.get() >= TURNS) {
                new CountDownLatch(1).await(); // the show is over: lead quietly until close() interrupts
            }
            int turn = turns.incrementAndGet();
            LeaderSelector me = selectors.get(Integer.parseInt(id.substring(1)));
            long leading = selectors.stream().filter(LeaderSelector::hasLeadership).count();
            ctx.log("turn", "%s leads   turn %2d, fencing token %s, %d of %d selectors lead", id, turn,
                    token(me.fencingToken()), leading, selectors.size());
            long start = System.nanoTime();
            ctx.pause(WORK);
            ctx.log("turn", "%s done    after %.2fs of work; requeues behind the others", id,
                    (System.nanoTime() - start) / 1e9);
            turnsDone.record(id);
        }
    }

    private static String token(OptionalLong token) {
        return token.isPresent() ? "0x" + Long.toHexString(token.getAsLong()) : "none";
    }
}
