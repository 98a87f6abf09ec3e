package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.cache.BatonCacheListener;
import dev.baton.recipes.cache.ChildData;
import dev.baton.recipes.nodes.GroupMember;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code baton demo group-member}: three service instances join a group with {@link GroupMember}; a dashboard
 * (a {@link BatonCache} of the group) prints who joins, changes and leaves: an instance changes its payload, one
 * loses its session and comes back by itself, one leaves.
 */
final class GroupMemberDemo implements Demo {

    static final String PATH = "/demo-group";
    private static final String[] MEMBERS = {"alice", "bob", "carol"};
    private static final Duration STEP = Duration.ofMillis(600);

    @Override
    public String name() {
        return "group-member";
    }

    @Override
    public List<String> aliases() {
        return List.of("group", "GroupMember", "group-membership");
    }

    @Override
    public String description() {
        return "instances join a group; a dashboard sees a payload change, a member come back after expiry, one leave";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        BatonClient dashboardClient = ctx.connect();
        ctx.claim(dashboardClient, PATH);
        Recorder<String> seen = new Recorder<>();
        BatonCache dashboard = ctx.closeOnExit(BatonCache.build(dashboardClient, PATH));
        dashboard.listenable().addListener(BatonCacheListener.builder()
                .forCreates(node -> seen(ctx, dashboard, seen, "joined", node))
                .forChanges((old, node) -> seen(ctx, dashboard, seen, "changed", node))
                .forDeletes(old -> seen(ctx, dashboard, seen, "left", old))
                .build());
        dashboard.start();
        ctx.log("group", "the dashboard caches %s: each member is an ephemeral child named by its id", PATH);

        GroupMember[] members = new GroupMember[MEMBERS.length];
        BatonClient[] clients = new BatonClient[MEMBERS.length];
        for (int i = 0; i < MEMBERS.length; i++) {
            clients[i] = ctx.connect();
            members[i] = ctx.closeOnExit(new GroupMember(clients[i], PATH, MEMBERS[i],
                    ("10.0.0." + (i + 1) + ":8080").getBytes(UTF_8)));
            int mark = seen.mark();
            ctx.log("join", "%s joins with payload \"10.0.0.%d:8080\"", MEMBERS[i], i + 1);
            members[i].start();
            seen.await(mark, ("joined " + MEMBERS[i])::equals, DemoContext.AWAIT_TIMEOUT, MEMBERS[i] + " joining");
            ctx.pause(STEP);
        }

        int mark = seen.mark();
        ctx.log("set", "bob moves to port 9090: setThisData(\"10.0.0.2:9090\")");
        members[1].setThisData("10.0.0.2:9090".getBytes(UTF_8));
        seen.await(mark, "changed bob"::equals, DemoContext.AWAIT_TIMEOUT, "bob's change");
        ctx.log("members", "bob's getCurrentMembers(): %s", text(members[1].getCurrentMembers()));
        ctx.pause(STEP);

        mark = seen.mark();
        ctx.log("expire", "carol's session expires: her node goes with it, and her GroupMember makes it again");
        ctx.expireSession(clients[2]);
        seen.await(mark, "left carol"::equals, DemoContext.AWAIT_TIMEOUT, "carol leaving");
        seen.await(mark, "joined carol"::equals, DemoContext.AWAIT_TIMEOUT, "carol coming back");
        ctx.pause(STEP);

        mark = seen.mark();
        ctx.log("close", "alice closes her GroupMember: she leaves the group");
        members[0].close();
        seen.await(mark, "left alice"::equals, DemoContext.AWAIT_TIMEOUT, "alice leaving");
        ctx.log("group", "what `baton inspect %s` shows now:", PATH);
        ctx.inspect(dashboardClient, PATH, InspectOptions.NONE);
    }

    private static void seen(DemoContext ctx, BatonCache dashboard, Recorder<String> seen, String what,
            ChildData node) {
        if (node.path().equals(PATH)) {
            return;
        }
        String id = BatonPaths.nodeName(node.path());
        List<String> members = dashboard.stream().filter(c -> !c.path().equals(PATH))
                .map(c -> BatonPaths.nodeName(c.path())).sorted().toList();
        ctx.log("dashbd", "%-7s %-5s = %s   members now: %s", what, id, DataFormat.describe(node.data()), members);
        seen.record(what + " " + id);
    }

    private static String text(Map<String, byte[]> members) {
        Map<String, String> text = new TreeMap<>();
        members.forEach((id, payload) -> text.put(id, new String(payload, UTF_8)));
        return text.toString();
    }
}
