package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code baton inspect <path>}: prints a node and its children (or more levels) as recipes see them, with
 * {@link InspectView}: each recipe's state as its users think of it, recognized by the {@link Layouts}; or the
 * same as JSON ({@code --json}); or, with {@code --watch}, a new view each time the state changes
 * ({@link InspectWatch}). Exit codes: 0 when printed (or watched until interrupted), 1 when the server cannot be
 * reached or the node does not exist, 2 for a bad path or option.
 */
@Command(name = "inspect",
        sortOptions = false,
        description = {"Show live recipe state under a path.",
                "Prints the node and its children (--recursive: its whole subtree) as recipes see them: latch and "
                        + "selector leaders, lock and read-write lock holders, semaphore leases, double-barrier "
                        + "members, group members, counters as numbers, each participant's id and session; "
                        + "--json for scripts, --watch to follow it live.",
                "Without --connect it asks " + InspectCommand.DEFAULT_CONNECT + "."})
final class InspectCommand implements Callable<Integer> {

    /** The server when {@code --connect} is not given. */
    static final String DEFAULT_CONNECT = "127.0.0.1:2181";

    @ParentCommand
    private BatonCommand parent;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<path>", description = "The node to inspect, such as /election.")
    private String path;

    @Mixin
    private ConnectionOptions connection;

    @Option(names = {"-r", "--recursive"}, description = "Show the whole subtree, not only the children.")
    private boolean recursive;

    @Option(names = "--depth", paramLabel = "levels",
            description = "Levels of children to show (default: 1; --recursive: all).")
    private Integer depth;

    @Option(names = "--max-leases", paramLabel = "N",
            description = "A semaphore's maxLeases (not stored on the server): tells its holders from its waiters.")
    private Integer maxLeases;

    @Option(names = "--json", description = "Print what was found as JSON (with --watch: one line per change).")
    private boolean json;

    @Option(names = {"-w", "--watch"},
            description = "Keep showing the state: a new view at every change, until interrupted (Ctrl-C).")
    private boolean watch;

    @Option(names = "--timeout", paramLabel = "seconds", defaultValue = "10",
            description = "How long to wait for the connection (default: ${DEFAULT-VALUE}).")
    private int timeoutSeconds;

    // Read by picocli itself, which prints the usage and stops when it is set.
    @SuppressWarnings("UnusedVariable")
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /**
     * Connects, prints (or watches) and disconnects.
     *
     * @return 0 on success, 1 if the server or the node is missing, 2 for a bad path or option
     */
    @Override
    public Integer call() {
        PrintStream out = parent.out();
        PrintStream err = parent.err();
        ClientSettings settings;
        InspectOptions options;
        int shown;
        try {
            settings = connection.settings(System::getenv);
            options = new InspectOptions(maxLeases == null ? OptionalInt.empty() : OptionalInt.of(maxLeases));
            shown = depth();
            BatonPaths.validate(path);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        String connect = connection.connect == null ? DEFAULT_CONNECT : connection.connect;
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        Runnable stopped = watch ? stopOnShutdown() : () -> { };
        try (BatonClient client = settings.builder(connect, Duration.ofSeconds(30), timeout).build()) {
            client.start();
            if (!client.blockUntilConnected(timeoutSeconds, TimeUnit.SECONDS)) {
                err.println("baton inspect: cannot connect to " + connect + " within " + timeoutSeconds + "s"
                        + settings.whyNotConnected(connect));
                return CommandLine.ExitCode.SOFTWARE;
            }
            InspectView view = new InspectView(options);
            Optional<String> version = client.serverVersion();
            if (!json) {
                // Beside the tree, not in it: scripts read stdout, a person sees both.
                err.println("baton inspect: " + connect + settings.describe() + ", "
                        + version.map(v -> "ZooKeeper " + v).orElse("the server did not tell its version"));
            }
            if (watch) {
                new InspectWatch(client, path, shown, view, json, parent.interactive()).run(out);
            } else {
                Stat stat = client.checkExists().forPath(path);
                if (stat == null) {
                    throw new KeeperException.NoNodeException(path);
                }
                // A queue shows its depth and next items, never every item: it may hold more than one reply carries.
                Optional<QueueView.Snapshot> queue = shown > 0 ? QueueView.read(client, path, stat) : Optional.empty();
                int depth = queue.isPresent() ? 0 : shown;
                Znode root = new TreeReader(client).read(path, InspectView.readDepth(depth));
                if (json) {
                    Map<String, Object> found = view.json(root, depth);
                    queue.ifPresent(q -> found.put("recipe", QueueView.json(q)));
                    found.put("serverVersion", version.orElse(null));
                    out.println(Json.write(found));
                } else {
                    view.lines(root, depth).forEach(out::println);
                    queue.ifPresent(q -> QueueView.lines(q, InspectView.INDENT).forEach(out::println));
                }
            }
            return CommandLine.ExitCode.OK;
        } catch (KeeperException.NoNodeException e) {
            err.println("baton inspect: no node " + path + " on " + connect + settings.describe());
        } catch (KeeperException e) {
            err.println("baton inspect: " + e.getMessage());
        } catch (InterruptedException e) {
            if (watch) {
                return CommandLine.ExitCode.OK; // the way a watch ends
            }
            Thread.currentThread().interrupt();
            err.println("baton inspect: interrupted");
        } finally {
            stopped.run();
        }
        return CommandLine.ExitCode.SOFTWARE;
    }

    /**
     * Makes Ctrl-C (the JVM's shutdown) end a watch the way an interrupt does: the shutdown hook interrupts this
     * thread and gives it a moment to close the cache and the client, so the session ends at once rather than
     * when it times out on the server.
     *
     * @return to run once the client is closed: lets the hook go (or removes it when there is no shutdown)
     */
    private static Runnable stopOnShutdown() {
        Thread command = Thread.currentThread();
        CountDownLatch closed = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            command.interrupt();
            try {
                closed.await(3, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "baton-inspect-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        return () -> {
            closed.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it has been let go above
            }
        };
    }

    private int depth() {
        if (timeoutSeconds <= 0) {
            throw new IllegalArgumentException("--timeout must be positive, was " + timeoutSeconds);
        }
        if (depth != null && recursive) {
            throw new IllegalArgumentException("--depth and --recursive: give one of them");
        }
        if (depth != null && depth < 0) {
            throw new IllegalArgumentException("--depth must be >= 0, was " + depth);
        }
        return recursive ? Integer.MAX_VALUE : depth == null ? 1 : depth;
    }
}
