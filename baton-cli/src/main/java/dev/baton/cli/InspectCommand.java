package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.ExponentialBackoffRetry;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code baton inspect <path> [--connect host:port] [--recursive]}: prints a node and its children (or its
 * whole subtree) as recipes see them, with {@link TreePrinter}. Exit codes: 0 when printed, 1 when the server
 * cannot be reached or the node does not exist, 2 for a bad path or option.
 */
@Command(name = "inspect",
        sortOptions = false,
        description = {"Show live recipe state under a path.",
                "Prints the node and its children (--recursive: its whole subtree): recipe participants in queue "
                        + "order with the leader or holder marked, data decoded as text when printable, and the "
                        + "session owning each ephemeral node."})
final class InspectCommand implements Callable<Integer> {

    @ParentCommand
    private BatonCommand parent;

    @Parameters(index = "0", paramLabel = "<path>", description = "The node to inspect, such as /election.")
    private String path;

    @Option(names = "--connect", paramLabel = "host:port", defaultValue = "127.0.0.1:2181",
            description = "The ZooKeeper server (default: ${DEFAULT-VALUE}).")
    private String connect;

    @Option(names = {"-r", "--recursive"}, description = "Show the whole subtree, not only the children.")
    private boolean recursive;

    @Option(names = "--timeout", paramLabel = "seconds", defaultValue = "10",
            description = "How long to wait for the connection (default: ${DEFAULT-VALUE}).")
    private int timeoutSeconds;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /**
     * Connects, prints the tree and disconnects.
     *
     * @return 0 on success, 1 if the server or the node is missing, 2 for a bad path
     */
    @Override
    public Integer call() {
        PrintStream out = parent.out();
        PrintStream err = parent.err();
        if (timeoutSeconds <= 0) {
            err.println("baton inspect: --timeout must be positive, was " + timeoutSeconds);
            return CommandLine.ExitCode.USAGE;
        }
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        try (BatonClient client = Baton.newClient(connect, Duration.ofSeconds(30), timeout,
                new ExponentialBackoffRetry(200, 3))) {
            client.start();
            if (!client.blockUntilConnected(timeoutSeconds, TimeUnit.SECONDS)) {
                err.println("baton inspect: cannot connect to " + connect + " within " + timeoutSeconds + "s");
                return CommandLine.ExitCode.SOFTWARE;
            }
            new TreePrinter(client).print(path, recursive ? Integer.MAX_VALUE : 1).forEach(out::println);
            return CommandLine.ExitCode.OK;
        } catch (IllegalArgumentException e) {
            err.println("baton inspect: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        } catch (KeeperException.NoNodeException e) {
            err.println("baton inspect: no node " + path + " on " + connect);
        } catch (KeeperException e) {
            err.println("baton inspect: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("baton inspect: interrupted");
        }
        return CommandLine.ExitCode.SOFTWARE;
    }
}
