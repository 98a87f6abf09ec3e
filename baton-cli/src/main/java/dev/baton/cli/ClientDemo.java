package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.BatonClient;
import dev.baton.state.ConnectionState;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * {@code baton demo client}: one client, its connection states, a tree under a persistent recursive watch, and
 * (on the embedded server) an outage the session survives.
 *
 * <p>Steps: connect and print every connection state; create {@code /demo/config/{db,cache}} and two
 * ephemeral-sequential members; watch {@code /demo} recursively and change the tree, printing each event as it
 * arrives; stop the server (SUSPENDED), start it again two seconds later (RECONNECTED, same session); show that
 * the tree and the ephemeral members survived and that the watch still fires; delete everything.
 */
final class ClientDemo implements Demo {

    static final String ROOT = "/demo";
    private static final String DB = ROOT + "/config/db";
    private static final String CACHE = ROOT + "/config/cache";
    private static final String MEMBERS = ROOT + "/members";

    private static final Duration STEP = Duration.ofSeconds(1);
    private static final Duration OUTAGE = Duration.ofSeconds(2);

    @Override
    public String name() {
        return "client";
    }

    @Override
    public String description() {
        return "one client: connection states, a watched tree, and a server outage its session survives";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        Recorder<ConnectionState> states = new Recorder<>();

        BatonClient client = ctx.newClient();
        AtomicLong firstSession = new AtomicLong();
        client.getConnectionStateListenable().addListener((c, state) -> {
            ctx.log("state", "%s", describe(c, state, firstSession));
            states.record(state);
        });

        ctx.log("client", "connecting to %s (session timeout %ds)", ctx.connectString(),
                DemoContext.SESSION_TIMEOUT.toSeconds());
        client.start();
        states.await(0, s -> s == ConnectionState.CONNECTED, DemoContext.AWAIT_TIMEOUT,
                "a connection to " + ctx.connectString());

        ctx.claim(client, ROOT);
        createTree(ctx, client);

        ctx.log("watch", "persistent recursive watch on %s: every change below it arrives as an event", ROOT);
        Recorder<WatchedEvent> events = TreeWatch.on(ctx, client, ROOT,
                event -> ctx.log("event", "%s %s", event.getType(), event.getPath()));

        ctx.pause(STEP);
        change(events, EventType.NodeDataChanged, DB, "set", () -> {
            ctx.log("set", "%s = \"postgres://db-2:5432\"", DB);
            client.setData().forPath(DB, "postgres://db-2:5432".getBytes(UTF_8));
            return DB;
        });
        ctx.pause(STEP);
        change(events, EventType.NodeCreated, null, "create", () -> {
            ctx.log("create", "%s/member-... (ephemeral sequential) = \"carol\"", MEMBERS);
            return client.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath(MEMBERS + "/member-", "carol".getBytes(UTF_8));
        });
        ctx.pause(STEP);
        String firstMember = MEMBERS + "/" + client.getChildren().forPath(MEMBERS).stream().sorted()
                .findFirst().orElseThrow();
        change(events, EventType.NodeDeleted, firstMember, "delete", () -> {
            ctx.log("delete", "%s", firstMember);
            client.delete().forPath(firstMember);
            return firstMember;
        });
        ctx.pause(STEP);

        if (ctx.ownsServer()) {
            outage(ctx, states);
            ctx.log("tree", "%s after the outage: same session, so the ephemeral members are still there", ROOT);
            InspectView.read(client, ROOT, Integer.MAX_VALUE, InspectOptions.NONE).forEach(ctx::detail);
            ctx.pause(STEP);
            change(events, EventType.NodeDataChanged, CACHE, "set", () -> {
                ctx.log("set", "%s = \"redis://cache-2:6379\" (the watch was re-set on reconnect)", CACHE);
                client.setData().forPath(CACHE, "redis://cache-2:6379".getBytes(UTF_8));
                return CACHE;
            });
        } else {
            ctx.log("server", "not stopping a server this demo did not start; run without --connect to see "
                    + "SUSPENDED and RECONNECTED");
            ctx.log("tree", "%s now:", ROOT);
            InspectView.read(client, ROOT, Integer.MAX_VALUE, InspectOptions.NONE).forEach(ctx::detail);
        }
        ctx.pause(STEP);

        change(events, EventType.NodeDeleted, ROOT, "delete", () -> {
            ctx.log("delete", "%s and everything below it", ROOT);
            client.delete().deletingChildrenIfNeeded().forPath(ROOT);
            return ROOT;
        });
        ctx.log("client", "closing (ends the session and its watch)");
    }

    private static void createTree(DemoContext ctx, BatonClient client) throws Exception {
        create(ctx, client, DB, "postgres://db-1:5432");
        create(ctx, client, CACHE, "redis://cache-1:6379");
        for (String member : new String[] {"alice", "bob"}) {
            String path = client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath(MEMBERS + "/member-", member.getBytes(UTF_8));
            ctx.log("create", "%s (ephemeral sequential) = \"%s\"", path, member);
        }
    }

    private static void create(DemoContext ctx, BatonClient client, String path, String data) throws Exception {
        client.create().creatingParentsIfNeeded().forPath(path, data.getBytes(UTF_8));
        ctx.log("create", "%s = \"%s\"", path, data);
    }

    /**
     * Makes a change and waits for its watched event. The action prints its line before it acts, so the
     * event (printed by ZooKeeper's event thread) always comes after it.
     *
     * @param path the path the event must name, or null for the path the action returns
     */
    private static void change(Recorder<WatchedEvent> events, EventType type, String path, String what,
            Action action) throws Exception {
        int mark = events.mark();
        String actual = action.run();
        String expected = path != null ? path : actual;
        events.await(mark, e -> e.getType() == type && expected.equals(e.getPath()), DemoContext.AWAIT_TIMEOUT,
                type + " for " + expected + " after " + what);
    }

    private static void outage(DemoContext ctx, Recorder<ConnectionState> states) throws Exception {
        int mark = states.mark();
        ctx.log("server", "stopping the server; the session lives on for up to %ds without it",
                DemoContext.SESSION_TIMEOUT.toSeconds());
        ctx.stopServer();
        states.await(mark, s -> s == ConnectionState.SUSPENDED, DemoContext.AWAIT_TIMEOUT, "SUSPENDED");
        ctx.pause(OUTAGE);
        ctx.log("server", "starting it again on the same port, with the same data and sessions");
        ctx.restartServer();
        ConnectionState back = states.await(mark, s -> s == ConnectionState.RECONNECTED
                || s == ConnectionState.LOST, DemoContext.AWAIT_TIMEOUT, "RECONNECTED");
        if (back == ConnectionState.LOST) {
            throw new DemoException("the session was lost during the outage");
        }
    }

    private static String describe(BatonClient client, ConnectionState state, AtomicLong firstSession) {
        return switch (state) {
            case CONNECTED -> {
                long session = sessionId(client);
                firstSession.set(session);
                yield String.format("CONNECTED    session 0x%x, timeout %ds", session,
                        client.getSessionTimeout().toSeconds());
            }
            case RECONNECTED -> {
                long session = sessionId(client);
                yield String.format("RECONNECTED  %s session 0x%x", session == firstSession.get() ? "same" : "new",
                        session);
            }
            case SUSPENDED -> "SUSPENDED    connection lost; the session may still be alive";
            case LOST -> "LOST         the session expired; its ephemeral nodes and watches are gone";
            default -> state.toString();
        };
    }

    private static long sessionId(BatonClient client) {
        try {
            return client.getZooKeeper().getSessionId();
        } catch (IllegalStateException e) { // closed meanwhile
            return 0;
        }
    }

    /** A tree change; returns the path it changed. */
    @FunctionalInterface
    private interface Action {
        String run() throws Exception;
    }
}
