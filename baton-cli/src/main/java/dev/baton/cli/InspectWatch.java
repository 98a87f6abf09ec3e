package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.cache.BatonCacheListener;
import dev.baton.recipes.cache.ChildData;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.io.PrintStream;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code baton inspect --watch}: shows the state under a path again each time it changes, until the thread is
 * interrupted. Driven by one {@link BatonCache} of the subtree (a single persistent recursive watch), not by
 * polling: each change the cache reports is applied to its copy, the copy is rendered with {@link InspectView},
 * and a new view is printed only if it differs from the last one. Changes that come faster than they can be
 * printed are coalesced into the latest state.
 *
 * <p>On a terminal each view replaces the previous one on screen; otherwise the views follow one another, each
 * after a header line {@code "--- 12:00:01.250  /path"} (with {@code --json}: one JSON document per line).
 *
 * <p>Not thread-safe: {@link #run} is called once, by the command's thread.
 */
final class InspectWatch {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
    private static final String CLEAR_SCREEN = "\033[H\033[2J";

    private final BatonClient client;
    private final String path;
    private final int depth;
    private final InspectView view;
    private final boolean json;
    private final boolean terminal;

    /** The latest state seen: the cache's nodes at the moment of a change, or null before the initial load. */
    private final AtomicReference<List<ChildData>> latest = new AtomicReference<>();
    private final AtomicReference<ConnectionState> connection = new AtomicReference<>(ConnectionState.CONNECTED);
    private final Object changed = new Object();
    private boolean dirty;

    /**
     * @param client a connected client
     * @param path the top node; it need not exist yet
     * @param depth levels of children to show
     * @param view renders the state
     * @param json print JSON lines instead of text views
     * @param terminal replace each view on screen rather than print them one after another
     */
    InspectWatch(BatonClient client, String path, int depth, InspectView view, boolean json, boolean terminal) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = Objects.requireNonNull(path, "path");
        this.depth = depth;
        this.view = Objects.requireNonNull(view, "view");
        this.json = json;
        this.terminal = terminal;
    }

    /**
     * Prints a view now and after every change, until interrupted.
     *
     * @param out where to print
     * @throws InterruptedException when interrupted: the way the watch ends; the cache and its watch are removed
     */
    void run(PrintStream out) throws InterruptedException {
        ConnectionStateListener states = (c, state) -> {
            connection.set(state);
            signal();
        };
        try (BatonCache cache = BatonCache.build(client, path)) {
            cache.listenable().addListener(new BatonCacheListener() {
                private boolean initialized;

                @Override
                public void event(Type type, ChildData oldData, ChildData data) {
                    if (initialized) {
                        snapshot(cache);
                    }
                }

                @Override
                public void initialized() {
                    initialized = true;
                    snapshot(cache);
                }
            });
            client.getConnectionStateListenable().addListener(states);
            cache.start();
            String last = null;
            while (true) {
                awaitChange();
                List<ChildData> nodes = latest.get();
                if (nodes == null) {
                    continue; // a connection change before the initial load
                }
                String shown = render(nodes);
                if (!shown.equals(last)) {
                    print(out, shown);
                    last = shown;
                }
            }
        } finally {
            client.getConnectionStateListenable().removeListener(states);
        }
    }

    /** Called by the cache's listener, on the thread that applied the change: the copy is consistent there. */
    private void snapshot(BatonCache cache) {
        latest.set(cache.stream().toList());
        signal();
    }

    private void signal() {
        synchronized (changed) {
            dirty = true;
            changed.notifyAll();
        }
    }

    private void awaitChange() throws InterruptedException {
        synchronized (changed) {
            while (!dirty) {
                changed.wait();
            }
            dirty = false;
        }
    }

    private String render(List<ChildData> nodes) {
        Optional<Znode> root = Znode.fromCache(nodes, path);
        ConnectionState state = connection.get();
        String stale = state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED ? null
                : "connection " + state + ": this view may be stale";
        if (json) {
            Map<String, Object> document = new LinkedHashMap<>();
            document.put("exists", root.isPresent());
            document.put("connection", state.name());
            root.ifPresentOrElse(r -> document.putAll(view.json(r, depth)), () -> document.put("path", path));
            return Json.writeLine(document);
        }
        StringBuilder text = new StringBuilder();
        if (stale != null) {
            text.append('(').append(stale).append(')').append(System.lineSeparator());
        }
        root.ifPresentOrElse(r -> view.lines(r, depth).forEach(l -> text.append(l).append(System.lineSeparator())),
                () -> text.append(path).append("  (no such node yet)").append(System.lineSeparator()));
        return text.toString();
    }

    private void print(PrintStream out, String shown) {
        if (json) {
            out.println(shown);
        } else {
            out.print((terminal ? CLEAR_SCREEN : "") + "--- " + LocalTime.now(ZoneId.systemDefault()).format(TIME) + "  " + path
                    + System.lineSeparator() + shown);
        }
        out.flush();
    }
}
