package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.testing.EmbeddedZooKeeper;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.StaticHostProvider;
import org.apache.zookeeper.client.ZKClientConfig;

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
    /** The session timeout of {@link #connect()}'s clients: longer than the embedded server's outages. */
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
    /** The connection timeout of {@link #connect()}'s clients. */
    static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(5);

    private static final int TAG_WIDTH = 7;
    /** Column where messages start: the timestamp ({@code "%7.2fs"}), two spaces, the tag and a space. */
    private static final String DETAIL_INDENT = " ".repeat(8 + 2 + TAG_WIDTH + 1);

    private final PrintStream out;
    private final double speed;
    private final long startNanos;
    private final EmbeddedZooKeeper server;
    private final String connectString;
    private final ClientSettings settings;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    private DemoContext(PrintStream out, double speed, long startNanos, EmbeddedZooKeeper server,
            String connectString, ClientSettings settings) {
        this.out = out;
        this.speed = speed;
        this.startNanos = startNanos;
        this.server = server;
        this.connectString = connectString;
        this.settings = settings;
    }

    /**
     * Makes a context. Without a connect string it starts an embedded ZooKeeper, which {@link #close()} closes.
     *
     * @param out where the demo prints
     * @param connectString the server to use, or null to start an embedded one
     * @param settings namespace, authentication and TLS of the demo's clients
     * @param speed pacing factor, positive: 2 makes every {@link #pause} half as long
     * @return the context, its clock started
     * @throws IllegalArgumentException if {@code speed} is not positive
     */
    static DemoContext open(PrintStream out, String connectString, ClientSettings settings, double speed) {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(settings, "settings");
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("speed must be a positive number: " + speed);
        }
        long start = System.nanoTime();
        if (connectString != null) {
            DemoContext ctx = new DemoContext(out, speed, start, null, connectString, settings);
            ctx.log("server", "using %s%s (--connect): no outage in this run; %s", connectString,
                    settings.describe(), serverVersion(connectString, settings));
            return ctx;
        }
        EmbeddedZooKeeper zk = new EmbeddedZooKeeper();
        try {
            zk.start();
        } catch (RuntimeException e) {
            zk.close();
            throw e;
        }
        DemoContext ctx = new DemoContext(out, speed, start, zk, zk.connectString(), settings);
        ctx.log("server", "embedded ZooKeeper listening on %s%s (ZooKeeper %s)", zk.connectString(),
                settings.describe(), EmbeddedZooKeeper.zooKeeperVersion());
        return ctx;
    }

    /** {@code ZooKeeper 3.8.6}, as the server tells it to a client of the command's settings, or why not. */
    private static String serverVersion(String connectString, ClientSettings settings) {
        try (BatonClient client = settings.builder(connectString, SESSION_TIMEOUT, Duration.ofSeconds(10)).build()) {
            client.start();
            if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
                return "server version unknown: not connected within 10 s";
            }
            return client.serverVersion().map(v -> "ZooKeeper " + v).orElse("the server did not tell its version");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "server version unknown: interrupted";
        }
    }

    /**
     * Makes a client with the command's settings ({@code --namespace}, {@code --auth}, TLS) and a
     * {@link #SESSION_TIMEOUT} session, registered to {@link #closeOnExit close} at the end; not started.
     *
     * @return the client
     */
    BatonClient newClient() {
        return closeOnExit(settings.builder(connectString, SESSION_TIMEOUT, CONNECTION_TIMEOUT).build());
    }

    /**
     * {@link #newClient()}, started, once connected.
     *
     * @return the started, connected client
     * @throws DemoException if it does not connect within {@link #AWAIT_TIMEOUT}
     * @throws InterruptedException if interrupted
     */
    BatonClient connect() throws DemoException, InterruptedException {
        BatonClient client = newClient();
        client.start();
        if (!client.blockUntilConnected(AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            throw new DemoException("could not connect to " + connectString + " within " + AWAIT_TIMEOUT.toSeconds()
                    + "s" + settings.whyNotConnected(connectString));
        }
        return client;
    }

    /**
     * Makes sure the demo's path is not in use, and deletes it with everything below when the demo ends (before
     * the clients opened so far close, after everything registered later).
     *
     * @param client a connected client
     * @param root the demo's top node
     * @throws DemoException if the node exists (left from an earlier run, or someone else's)
     * @throws KeeperException if the check fails
     * @throws InterruptedException if interrupted
     */
    void claim(BatonClient client, String root) throws DemoException, KeeperException, InterruptedException {
        if (client.checkExists().forPath(root) != null) {
            throw new DemoException(root + " already exists on " + connectString
                    + " (left from an earlier run?); delete it and try again");
        }
        closeOnExit(() -> client.delete().quietly().deletingChildrenIfNeeded().forPath(root));
    }

    /** A step of a demo that may fail. */
    @FunctionalInterface
    interface Step {
        /**
         * Runs the step.
         *
         * @throws Exception if it fails
         */
        void run() throws Exception;
    }

    /**
     * Runs a participant's steps on a thread of its own (a daemon thread named {@code demo-<name>}), for the
     * blocking forms of the recipes.
     *
     * @param name the participant, for the thread's name
     * @param step what it does
     * @return completes when the steps are done, or with their failure
     */
    static CompletableFuture<Void> background(String name, Step step) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                step.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "demo-" + name);
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    /**
     * Prints what {@code baton inspect} would show for a path right now, under the last log line.
     *
     * @param client a connected client
     * @param path the node
     * @param options facts the server does not store, such as a semaphore's {@code maxLeases}
     * @throws KeeperException if the read fails
     * @throws InterruptedException if interrupted
     */
    void inspect(BatonClient client, String path, InspectOptions options) throws KeeperException,
            InterruptedException {
        InspectView.read(client, path, 1, options).forEach(this::detail);
    }

    /**
     * Ends a client's session on the server, as a long pause would: a second handle joins the session and closes
     * it. Works on any server, embedded or not. The client learns of it ({@code LOST}) when it next hears from the
     * server, and opens a new session.
     *
     * @param client the client whose session to end
     * @throws DemoException if the second handle cannot join the session
     * @throws InterruptedException if interrupted
     */
    void expireSession(BatonClient client) throws DemoException, InterruptedException {
        ZooKeeper zk = client.getZooKeeper();
        CountDownLatch joined = new CountDownLatch(1);
        ZooKeeper twin;
        try {
            Watcher watcher = event -> {
                if (event.getState() == KeeperState.SyncConnected) {
                    joined.countDown();
                }
            };
            int timeout = (int) SESSION_TIMEOUT.toMillis();
            ZKClientConfig tls = settings.zkClientConfig();
            twin = tls == null
                    ? new ZooKeeper(connectString, timeout, watcher, zk.getSessionId(), zk.getSessionPasswd())
                    : new ZooKeeper(connectString, timeout, watcher, zk.getSessionId(), zk.getSessionPasswd(), false,
                            new StaticHostProvider(new ConnectStringParser(connectString).getServerAddresses()), tls);
        } catch (IOException e) {
            throw new DemoException("could not open a second handle on " + connectString + ": " + e.getMessage());
        }
        try {
            if (!joined.await(AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new DemoException("a second handle could not join session 0x"
                        + Long.toHexString(zk.getSessionId()));
            }
        } finally {
            twin.close();
        }
    }

    /** {@return the connect string of the server the demo uses} */
    String connectString() {
        return connectString;
    }

    /** {@return true if the demo runs on an embedded server it may {@link #stopServer() stop} and restart} */
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

    /** {@return seconds since the context was opened} */
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
