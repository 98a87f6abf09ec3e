package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.BatonClient;
import dev.baton.recipes.nodes.PersistentNode;
import dev.baton.state.ConnectionState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.Stat;

/**
 * {@code baton demo persistent-node}: a service keeps its ephemeral registration with a {@link PersistentNode}.
 * A viewer prints every change to it: an operator deletes it by mistake and it comes back; its data changes; the
 * service's session expires, the ephemeral node goes with it, and it comes back under the new session; on close
 * it goes for good.
 */
final class PersistentNodeDemo implements Demo {

    static final String ROOT = "/demo-persistent-node";
    static final String NODE = ROOT + "/services/api/host-1";
    private static final Duration STEP = Duration.ofMillis(600);

    @Override
    public String name() {
        return "persistent-node";
    }

    @Override
    public List<String> aliases() {
        return List.of("PersistentNode");
    }

    @Override
    public String description() {
        return "an ephemeral registration that comes back after a deletion and after its session expires";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        BatonClient viewer = ctx.connect();
        ctx.claim(viewer, ROOT);
        BatonClient service = ctx.connect();
        service.getConnectionStateListenable().addListener((c, state) -> ctx.log("state", "the service's client: %s",
                state));
        Recorder<WatchedEvent> events = TreeWatch.on(ctx, viewer, NODE, e -> ctx.log("event", "%s %s", e.getType(),
                e.getPath()));

        PersistentNode node = ctx.closeOnExit(new PersistentNode(service, CreateMode.EPHEMERAL, false, NODE,
                "10.0.0.1:8080".getBytes(UTF_8)));
        ctx.log("start", "the service starts a PersistentNode: ephemeral %s = \"10.0.0.1:8080\"", NODE);
        int mark = events.mark();
        node.start();
        if (!node.waitForInitialCreate(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            throw new DemoException("the node was not created");
        }
        long firstSession = created(ctx, viewer, events, mark);
        ctx.pause(STEP);

        mark = events.mark();
        ctx.log("delete", "an operator deletes %s by mistake", NODE);
        viewer.delete().forPath(NODE);
        events.await(mark, e -> e.getType() == EventType.NodeDeleted, DemoContext.AWAIT_TIMEOUT, "the deletion");
        created(ctx, viewer, events, mark);
        ctx.pause(STEP);

        mark = events.mark();
        ctx.log("set", "the service moves to port 8081: setData(\"10.0.0.1:8081\")");
        node.setData("10.0.0.1:8081".getBytes(UTF_8));
        events.await(mark, e -> e.getType() == EventType.NodeDataChanged, DemoContext.AWAIT_TIMEOUT, "the change");
        ctx.log("data", "%s = %s", NODE, DataFormat.describe(viewer.getData().forPath(NODE)));
        ctx.pause(STEP);

        mark = events.mark();
        ctx.log("expire", "the service's session expires (a long pause, say): its ephemeral node goes with it");
        ctx.expireSession(service);
        events.await(mark, e -> e.getType() == EventType.NodeDeleted, DemoContext.AWAIT_TIMEOUT, "the deletion");
        long newSession = created(ctx, viewer, events, mark);
        ctx.log("data", "%s = %s, under a new session (0x%x before)", NODE,
                DataFormat.describe(viewer.getData().forPath(NODE)), firstSession);
        if (newSession == firstSession || service.getConnectionState() == ConnectionState.LOST) {
            throw new DemoException("the node did not come back under a new session");
        }
        ctx.pause(STEP);

        mark = events.mark();
        ctx.log("close", "the service closes the PersistentNode: the node goes for good");
        node.close();
        events.await(mark, e -> e.getType() == EventType.NodeDeleted, DemoContext.AWAIT_TIMEOUT, "the deletion");
        ctx.log("check", "%s exists: %s", NODE, viewer.checkExists().forPath(NODE) != null);
    }

    /** Waits for the node to be (re-)created and prints its owner; returns the owning session. */
    private static long created(DemoContext ctx, BatonClient viewer, Recorder<WatchedEvent> events, int mark)
            throws Exception {
        events.await(mark, e -> e.getType() == EventType.NodeCreated, DemoContext.AWAIT_TIMEOUT,
                "the node's creation");
        Stat stat = new Stat();
        byte[] data = viewer.getData().storingStatIn(stat).forPath(NODE);
        ctx.log("node", "%s = %s, ephemeral, owned by session 0x%x", NODE, DataFormat.describe(data),
                stat.getEphemeralOwner());
        return stat.getEphemeralOwner();
    }
}
