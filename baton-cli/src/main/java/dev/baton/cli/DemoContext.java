package dev.baton.cli;

import dev.baton.testing.EmbeddedZooKeeper;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * What a {@link Demo} runs against: the server (an embedded one it may stop and restart, or one given with
 * {@code --connect}), the output with timestamps relative to the start, the pacing, and the resources to close
 * at the end.
 *
 * <p>Output lines look like {@code "  1.25s  event   NodeDataChanged /demo/config/db"}: seconds since the start,
 * a short tag, the message. {@link #log} may be called from any thread (listeners, watchers); each line is
 * printed whole. The other methods are for the demo's own thread.
 */
final class DemoContext implements AutoCloseable {

    /** How long a demo waits for something it expects (a connection, an event) before giving up. */
    static final Duration AWAIT_TIMEOUT = Duration.ofSeconds(30);

    private static final int TAG_WIDTH = 7;
    /** Column where messages start: the timestamp ({@code "%7.2fs"}), two spaces, the tag and a space. */
    private static final String DETAIL_INDENT = " ".repeat(8 + 2 + TAG_WIDTH + 1);

    private final PrintStream out;
    private final double speed;
    private final long startNanos;
    private final EmbeddedZooKeeper server;
    private final String connectString;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    private DemoContext(PrintStream out, double speed, long startNanos, EmbeddedZooKeeper server,
            String connectString) {
        this.out = out;
        this.speed = speed;
        this.startNanos = startNanos;
        this.server = server;
        this.connectString = connectString;
    }

    /**
     * Makes a context. Without a connect string it starts an embedded ZooKeeper, which {@link #close()} closes.
     *
     * @param out where the demo prints
     * @param connectString the server to use, or null to start an embedded one
     * @param speed pacing factor, positive: 2 makes every {@link #pause} half as long
     * @return the context, its clock started
     * @throws IllegalArgumentException if {@code speed} is not positive
     */
    static DemoContext open(PrintStream out, String connectString, double speed) {
        Objects.requireNonNull(out, "out");
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("speed must be a positive number: " + speed);
        }
        long start = System.nanoTime();
        if (connectString != null) {
            DemoContext ctx = new DemoContext(out, speed, start, null, connectString);
            ctx.log("server", "using %s (--connect): no outage in this run", connectString);
            return ctx;
        }
        EmbeddedZooKeeper zk = new EmbeddedZooKeeper();
        try {
            zk.start();
        } catch (RuntimeException e) {
            zk.close();
            throw e;
        }
        DemoContext ctx = new DemoContext(out, speed, start, zk, zk.connectString());
        ctx.log("server", "embedded ZooKeeper listening on %s", zk.connectString());
        return ctx;
    }

    /** @return the connect string of the server the demo uses */
    String connectString() {
        return connectString;
    }

    /** @return true if the demo runs on an embedded server it may {@link #stopServer() stop} and restart */
    boolean ownsServer() {
        return server != null;
    }

    /**
     * Stops the embedded server; its data and sessions are kept for {@link #restartServer()}.
     *
     * @throws IllegalStateException if the server is not embedded
     */
    void stopServer() {
        requireOwnServer().stop();
    }

    /**
     * Starts the embedded server again on the same port, with the same data and sessions.
     *
     * @throws IllegalStateException if the server is not embedded
     */
    void restartServer() {
        requireOwnServer().restart();
    }

    private EmbeddedZooKeeper requireOwnServer() {
        if (server == null) {
            throw new IllegalStateException("the demo does not own the server " + connectString);
        }
        return server;
    }

    /**
     * Prints one timestamped line. Safe to call from any thread.
     *
     * @param tag a short word saying what kind of line it is ({@code "state"}, {@code "event"}, ...)
     * @param format the message, a {@link String#format} pattern
     * @param args the pattern's arguments
     */
    void log(String tag, String format, Object... args) {
        String message = args.length == 0 ? format : String.format(Locale.ROOT, format, args);
        out.println(String.format(Locale.ROOT, "%7.2fs  %-" + TAG_WIDTH + "s %s", elapsedSeconds(), tag, message));
    }

    /**
     * Prints a line without timestamp, indented to line up under the messages of {@link #log}.
     *
     * @param line the text
     */
    void detail(String line) {
        out.println(DETAIL_INDENT + line);
    }

    /**
     * Waits to let the audience follow; never used to wait for something to happen.
     *
     * @param nominal the pause at speed 1
     * @throws InterruptedException if interrupted
     */
    void pause(Duration nominal) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep((long) (nominal.toNanos() / speed));
    }

    /** @return seconds since the context was opened */
    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /**
     * Registers something to close when the demo ends, before the server stops. Resources are closed in the
     * reverse order of registration.
     *
     * @param resource a client, a recipe, ...
     * @param <T> its type
     * @return {@code resource}
     */
    <T extends AutoCloseable> T closeOnExit(T resource) {
        resources.push(Objects.requireNonNull(resource, "resource"));
        return resource;
    }

    /**
     * Closes the registered resources, newest first, then the embedded server if there is one. Failures to
     * close are printed and do not stop the rest from closing.
     */
    @Override
    public void close() {
        while (!resources.isEmpty()) {
            AutoCloseable resource = resources.pop();
            try {
                resource.close();
            } catch (Exception e) {
                log("error", "closing %s failed: %s", resource, e);
            }
        }
        if (server != null) {
            server.close();
        }
    }
}
