package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.BatonClient;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.cache.BatonCacheListener;
import java.time.Duration;
import java.util.List;

/**
 * {@code baton demo cache}: one client edits a small configuration tree while a {@link BatonCache} on another
 * client prints each event it reports.
 *
 * <p>Steps: create {@code /demo-cache/config/{db,cache}}; start the cache (the initial load reports each node,
 * then "initialized"); set, create, delete and re-create nodes, each edit followed by the event it causes;
 * delete the tree; close both clients.
 */
final class CacheDemo implements Demo {

    static final String ROOT = "/demo-cache";
    private static final String CONFIG = ROOT + "/config";
    private static final Duration STEP = Duration.ofMillis(800);

    @Override
    public String name() {
        return "cache";
    }

    @Override
    public List<String> aliases() {
        return List.of("BatonCache");
    }

    @Override
    public String description() {
        return "a BatonCache prints every change another client makes to a config tree";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        BatonClient editor = ctx.connect();
        BatonClient reader = ctx.connect();
        ctx.claim(editor, ROOT);
        set(ctx, editor, CONFIG + "/db", "postgres://db-1:5432", true);
        set(ctx, editor, CONFIG + "/cache", "redis://cache-1:6379", true);

        Recorder<String> events = new Recorder<>();
        BatonCache cache = ctx.closeOnExit(BatonCache.build(reader, CONFIG));
        cache.listenable().addListener(BatonCacheListener.builder()
                .forCreates(node -> log(ctx, events, "created", node.path(), node.data()))
                .forChanges((old, node) -> log(ctx, events, "changed", node.path(), node.data()))
                .forDeletes(old -> log(ctx, events, "deleted", old.path(), old.data()))
                .forAll(new BatonCacheListener() {
                    @Override
                    public void event(Type type, dev.baton.recipes.cache.ChildData oldData,
                            dev.baton.recipes.cache.ChildData data) {
                    }

                    @Override
                    public void initialized() {
                        ctx.log("cache", "initialized: %d nodes cached (the root included)", cache.size());
                        events.record("initialized");
                    }
                }).build());
        ctx.log("cache", "starting a cache of %s (one persistent recursive watch)", CONFIG);
        int mark = events.mark();
        cache.start();
        events.await(mark, "initialized"::equals, DemoContext.AWAIT_TIMEOUT, "the initial load");

        ctx.pause(STEP);
        edit(ctx, events, "changed " + CONFIG + "/db", () -> set(ctx, editor, CONFIG + "/db", "postgres://db-2:5432",
                false));
        edit(ctx, events, "created " + CONFIG + "/flags", () -> set(ctx, editor, CONFIG + "/flags", "dark-mode=on",
                true));
        edit(ctx, events, "created " + CONFIG + "/flags/beta", () -> set(ctx, editor, CONFIG + "/flags/beta",
                "off", true));
        edit(ctx, events, "deleted " + CONFIG + "/cache", () -> {
            ctx.log("delete", "%s", CONFIG + "/cache");
            editor.delete().forPath(CONFIG + "/cache");
        });
        edit(ctx, events, "created " + CONFIG + "/cache", () -> set(ctx, editor, CONFIG + "/cache",
                "redis://cache-2:6379", true));
        ctx.log("cache", "now %d nodes; %s = \"%s\"", cache.size(), CONFIG + "/db",
                new String(cache.get(CONFIG + "/db").orElseThrow().data(), UTF_8));
        edit(ctx, events, "deleted " + CONFIG, () -> {
            ctx.log("delete", "%s and everything below it", ROOT);
            editor.delete().deletingChildrenIfNeeded().forPath(ROOT);
        });
        ctx.log("cache", "closing (removes its watch); %d nodes left in it", cache.size());
    }

    private interface Step {
        void run() throws Exception;
    }

    private void edit(DemoContext ctx, Recorder<String> events, String expected, Step step) throws Exception {
        int mark = events.mark();
        step.run();
        events.await(mark, expected::equals, DemoContext.AWAIT_TIMEOUT, "the event \"" + expected + "\"");
        ctx.pause(STEP);
    }

    private static void log(DemoContext ctx, Recorder<String> events, String what, String path, byte[] data) {
        ctx.log("event", "%s %s = \"%s\"", what, path, data == null ? "" : new String(data, UTF_8));
        events.record(what + " " + path);
    }

    private static void set(DemoContext ctx, BatonClient editor, String path, String value, boolean create)
            throws Exception {
        if (create) {
            ctx.log("create", "%s = \"%s\"", path, value);
            editor.create().creatingParentsIfNeeded().forPath(path, value.getBytes(UTF_8));
        } else {
            ctx.log("set", "%s = \"%s\"", path, value);
            editor.setData().forPath(path, value.getBytes(UTF_8));
        }
    }
}
