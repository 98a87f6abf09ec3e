package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.leader.LeaderLatchListener;
import dev.baton.recipes.leader.Participant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * {@code baton demo leader-latch}: ten participants, {@code client1..client10}, each with its own client and
 * session, join one {@link LeaderLatch}; the leader is closed every couple of seconds and the next in the queue
 * takes over, until every participant has led.
 *
 * <p>Steps: connect the ten clients; start the latches one after the other, printing each one's znode as it
 * appears (a persistent recursive watch on the latch path, set by an eleventh "viewer" client, sees them); print
 * the queue with the leader marked; then, until all ten have led (or about fifteen seconds have passed), close the
 * leader and print the hand-over: old and new leader, the time from {@code close()} to the new leader's
 * {@code isLeader()}, the new fencing token, and the leader count; finally close the last latch and delete the
 * latch path.
 */
final class LeaderLatchDemo implements Demo {

    static final String LATCH_PATH = "/demo-leader-latch";
    static final int PARTICIPANTS = 10;
    private static final String NODE_NAME = "latch-";
    /** Time between hand-overs at speed 1: nine hand-overs fit in about fifteen seconds. */
    private static final Duration STEP = Duration.ofMillis(1500);
    /** The hand-overs stop after this long (not scaled by the speed), even if some participant has not led. */
    private static final Duration MAX_HAND_OVERS = Duration.ofSeconds(15);

    /** A participant's {@code isLeader()} call, with the time it arrived. */
    private record Lead(int index, long nanos) {
    }

    @Override
    public String name() {
        return "leader-latch";
    }

    @Override
    public List<String> aliases() {
        return List.of("LeaderLatch");
    }

    @Override
    public String description() {
        return "10 LeaderLatch participants; the leader is closed every few seconds and the next takes over";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        List<BatonClient> clients = new ArrayList<>();
        for (int i = 0; i < PARTICIPANTS; i++) {
            clients.add(ctx.connect());
        }
        BatonClient viewer = ctx.connect();
        ctx.log("client", "client1..client%d connected, each with its own session (timeout %ds)", PARTICIPANTS,
                DemoContext.SESSION_TIMEOUT.toSeconds());
        // Registered after the clients, so the path goes before they close and after the latches have closed.
        ctx.claim(viewer, LATCH_PATH);

        Recorder<String> created = new Recorder<>();
        TreeWatch.on(ctx, viewer, LATCH_PATH, e -> {
            if (e.getType() == EventType.NodeCreated && e.getPath().contains(NODE_NAME)) {
                created.record(e.getPath());
            }
        });

        Recorder<Lead> leads = new Recorder<>();
        List<LeaderLatch> latches = new ArrayList<>();
        for (int i = 0; i < PARTICIPANTS; i++) {
            latches.add(ctx.closeOnExit(newLatch(ctx, clients.get(i), i, leads)));
        }
        ctx.log("start", "each participant starts a LeaderLatch on %s: a protected ephemeral-sequential "
                + "\"%s\" node holding its id", LATCH_PATH, NODE_NAME);
        for (int i = 0; i < PARTICIPANTS; i++) {
            int mark = created.mark();
            latches.get(i).start();
            String path = created.await(mark, p -> true, DemoContext.AWAIT_TIMEOUT, "the node of " + id(i));
            ctx.log("join", "%-8s %s", id(i), BatonPaths.nodeName(path));
        }
        Lead first = leads.await(0, l -> true, DemoContext.AWAIT_TIMEOUT, "a first leader");
        printQueue(ctx, viewer);

        Set<Integer> haveLed = new LinkedHashSet<>();
        haveLed.add(first.index());
        int leader = first.index();
        long limit = System.nanoTime() + MAX_HAND_OVERS.toNanos();
        while (haveLed.size() < PARTICIPANTS && System.nanoTime() - limit < 0) {
            ctx.pause(STEP);
            leader = handOver(ctx, latches, leads, leader);
            haveLed.add(leader);
        }
        if (haveLed.size() < PARTICIPANTS) {
            ctx.log("stop", "%d of %d have led; stopping after %ds", haveLed.size(), PARTICIPANTS,
                    MAX_HAND_OVERS.toSeconds());
        } else {
            ctx.log("done", "all %d participants have led, one at a time, in queue order", PARTICIPANTS);
        }

        ctx.pause(STEP);
        ctx.log("close", "%s (the last leader) closes; its node is deleted with it", id(leader));
        latches.get(leader).close();
        List<String> left = viewer.getChildren().forPath(LATCH_PATH);
        viewer.delete().quietly().deletingChildrenIfNeeded().forPath(LATCH_PATH);
        ctx.log("clean", "%d latch nodes were left; %s deleted", left.size(), LATCH_PATH);
    }

    private static LeaderLatch newLatch(DemoContext ctx, BatonClient client, int index, Recorder<Lead> leads) {
        LeaderLatch latch = new LeaderLatch(client, LATCH_PATH, id(index));
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                long now = System.nanoTime();
                ctx.log("leader", "%s leads (fencing token %s)", id(index), token(latch.fencingToken()));
                leads.record(new Lead(index, now));
            }

            @Override
            public void notLeader() {
                ctx.log("leader", "%s no longer leads", id(index));
            }
        });
        return latch;
    }

    /**
     * Closes the leader and waits for the next one's {@code isLeader()}.
     *
     * @return the new leader's index
     */
    private static int handOver(DemoContext ctx, List<LeaderLatch> latches, Recorder<Lead> leads, int leader)
            throws Exception {
        LeaderLatch old = latches.get(leader);
        String oldToken = token(old.fencingToken());
        ctx.log("close", "%s (the leader) closes its latch", id(leader));
        int mark = leads.mark();
        long start = System.nanoTime();
        old.close();
        Lead next = leads.await(mark, l -> true, DemoContext.AWAIT_TIMEOUT, "a new leader after " + id(leader));
        LeaderLatch now = latches.get(next.index());
        List<Integer> leading = new ArrayList<>();
        for (int i = 0; i < latches.size(); i++) {
            if (latches.get(i).hasLeadership()) {
                leading.add(i);
            }
        }
        ctx.log("handoff", "%s → %s in %.1f ms; fencing token %s → %s; %d leader%s (%s)", id(leader),
                id(next.index()), (next.nanos() - start) / 1e6, oldToken, token(now.fencingToken()),
                leading.size(), leading.size() == 1 ? "" : "s",
                leading.stream().map(LeaderLatchDemo::id).collect(Collectors.joining(", ")));
        List<Participant> queue = new ArrayList<>(now.getParticipants());
        ctx.detail("queue: " + queue.stream().map(p -> p.isLeader() ? "[" + p.id() + "]" : p.id())
                .collect(Collectors.joining(" ")) + "   getLeader(): " + now.getLeader().id());
        return next.index();
    }

    /** Prints the latch's nodes in queue order, with their ids, the leader marked. */
    private static void printQueue(DemoContext ctx, BatonClient viewer) throws Exception {
        List<String> queue = BatonPaths.sortBySequence(viewer.getChildren().forPath(LATCH_PATH), NODE_NAME);
        ctx.log("queue", "%s in queue order (each waits on the node just before its own):", LATCH_PATH);
        for (int i = 0; i < queue.size(); i++) {
            String node = queue.get(i);
            String id;
            try {
                id = new String(viewer.getData().forPath(BatonPaths.makePath(LATCH_PATH, node)), UTF_8);
            } catch (KeeperException.NoNodeException e) {
                id = "(gone)";
            }
            ctx.detail(String.format(Locale.ROOT, "%s  %-8s %s", node, id,
                    i == 0 ? "← leader" : "watches " + BatonPaths.stripProtection(queue.get(i - 1))));
        }
    }

    static String id(int index) {
        return "client" + (index + 1);
    }

    private static String token(OptionalLong token) {
        return token.isPresent() ? "0x" + Long.toHexString(token.getAsLong()) : "none";
    }
}
