package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.BatonClient;
import dev.baton.UnsupportedServerFeatureException;
import dev.baton.recipes.cache.PersistentWatcher;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * {@code baton demo persistent-watcher}: two {@link PersistentWatcher}s, one on a whole tree (recursive) and one on
 * a single node, print every change another client makes; each is one watch that stays registered, event after
 * event. Then the watching client's session expires, which takes its watches away on the server: the watchers
 * register again by themselves and say so (the moment to re-read what matters), and the next change is seen as
 * before.
 */
final class PersistentWatcherDemo implements Demo {

    static final String ROOT = "/demo-watcher";
    static final String CONFIG = ROOT + "/config";
    private static final Duration STEP = Duration.ofMillis(500);

    @Override
    public String name() {
        return "persistent-watcher";
    }

    @Override
    public List<String> aliases() {
        return List.of("watcher", "PersistentWatcher");
    }

    @Override
    public String description() {
        return "a recursive and a single-node persistent watch see every change, and come back after session expiry";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        BatonClient editor = ctx.connect();
        ctx.claim(editor, ROOT);
        BatonClient watching = ctx.connect();
        watching.getConnectionStateListenable().addListener((c, state) -> ctx.log("state", "the watching client: %s",
                state));
        Recorder<String> seen = new Recorder<>();
        watcher(ctx, watching, ROOT, true, "tree", seen);
        watcher(ctx, watching, CONFIG, false, "node", seen);
        seen.await(0, "tree registered"::equals, DemoContext.AWAIT_TIMEOUT, "the tree watch");
        seen.await(0, "node registered"::equals, DemoContext.AWAIT_TIMEOUT, "the node watch");
        ctx.pause(STEP);

        change(ctx, seen, "create " + CONFIG + " = \"v1\"", List.of("tree NodeCreated " + CONFIG,
                "node NodeCreated " + CONFIG), () -> editor.create().creatingParentsIfNeeded()
                        .forPath(CONFIG, "v1".getBytes(UTF_8)));
        change(ctx, seen, "create " + CONFIG + "/flags", List.of("tree NodeCreated " + CONFIG + "/flags",
                "node NodeChildrenChanged " + CONFIG), () -> editor.create().forPath(CONFIG + "/flags"));
        change(ctx, seen, "set " + CONFIG + " = \"v2\"", List.of("tree NodeDataChanged " + CONFIG,
                "node NodeDataChanged " + CONFIG), () -> editor.setData().forPath(CONFIG, "v2".getBytes(UTF_8)));
        change(ctx, seen, "delete " + CONFIG + "/flags", List.of("tree NodeDeleted " + CONFIG + "/flags",
                "node NodeChildrenChanged " + CONFIG), () -> editor.delete().forPath(CONFIG + "/flags"));

        int mark = seen.mark();
        ctx.log("expire", "the watching client's session expires: the server drops its watches with it");
        ctx.expireSession(watching);
        seen.await(mark, "tree registered"::equals, DemoContext.AWAIT_TIMEOUT, "the tree watch again");
        seen.await(mark, "node registered"::equals, DemoContext.AWAIT_TIMEOUT, "the node watch again");
        ctx.log("read", "re-read after the reset: %s = %s", CONFIG, DataFormat.describe(watching.getData()
                .forPath(CONFIG)));
        ctx.pause(STEP);
        change(ctx, seen, "set " + CONFIG + " = \"v3\"", List.of("tree NodeDataChanged " + CONFIG,
                "node NodeDataChanged " + CONFIG), () -> editor.setData().forPath(CONFIG, "v3".getBytes(UTF_8)));
        ctx.log("watch", "closing the watchers removes their watches from the server");
    }

    private static void watcher(DemoContext ctx, BatonClient client, String path, boolean recursive, String name,
            Recorder<String> seen) throws DemoException {
        PersistentWatcher watcher = ctx.closeOnExit(new PersistentWatcher(client, path, recursive));
        watcher.getListenable().addListener(event -> {
            if (event.getType() != EventType.None) {
                ctx.log(name, "%-19s %s", event.getType(), event.getPath());
                seen.record(name + " " + event.getType() + " " + event.getPath());
            }
        });
        watcher.getResetListenable().addListener(() -> {
            ctx.log(name, "watch on %s registered%s: re-read what matters now", path,
                    recursive ? " (recursive)" : " (this node only)");
            seen.record(name + " registered");
        });
        try {
            watcher.start();
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof UnsupportedServerFeatureException refused) {
                // A recursive watch cannot be made of one-shot watches: this demo needs ZooKeeper 3.6 or newer.
                throw new DemoException("this demo watches recursively: " + refused.getMessage());
            }
            throw e;
        }
    }

    private static void change(DemoContext ctx, Recorder<String> seen, String what, List<String> expected,
            DemoContext.Step step) throws Exception {
        int mark = seen.mark();
        ctx.log("edit", "%s", what);
        step.run();
        for (String event : expected) {
            seen.await(mark, event::equals, DemoContext.AWAIT_TIMEOUT, event);
        }
        ctx.pause(STEP);
    }
}
