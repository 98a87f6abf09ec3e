package dev.baton.cli;

import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code baton} command and its entry point. It only dispatches to its subcommands:
 * {@code demo} ({@link DemoCommand}), {@code inspect} ({@link InspectCommand}), {@code chaos} ({@link ChaosCommand})
 * and {@code help}.
 *
 * <pre>{@code
 * int exitCode = new CommandLine(new BatonCommand()).execute("demo", "client");
 * }</pre>
 *
 * <p>Subcommands print their own output to the {@link PrintStream}s given to the constructor (so tests can
 * capture it); picocli's usage and version messages go to {@link CommandLine#getOut()} and
 * {@link CommandLine#getErr()} as usual. Exit codes: 0 on success, 1 when the work failed (no connection, no
 * such node, a demo step failed), 2 for a usage error (unknown option, unknown demo).
 *
 * <p>Not thread-safe: one instance serves one {@code execute} call at a time.
 */
@Command(name = "baton",
        mixinStandardHelpOptions = true,
        versionProvider = BatonCommand.Version.class,
        description = "Distributed coordination on ZooKeeper: recipe demos and live recipe state.",
        subcommands = {DemoCommand.class, InspectCommand.class, ChaosCommand.class, HelpCommand.class})
public final class BatonCommand implements Callable<Integer> {

    private final PrintStream out;
    private final PrintStream err;

    @Spec
    private CommandSpec spec;

    /** Creates the command printing to {@link System#out} and {@link System#err}. */
    public BatonCommand() {
        this(System.out, System.err);
    }

    /**
     * Creates the command printing to the given streams.
     *
     * @param out where subcommands print their results
     * @param err where subcommands print errors and diagnostics
     * @throws NullPointerException if a stream is null
     */
    public BatonCommand(PrintStream out, PrintStream err) {
        this.out = Objects.requireNonNull(out, "out");
        this.err = Objects.requireNonNull(err, "err");
    }

    /**
     * Runs the command with the process's arguments and exits with its exit code.
     *
     * @param args the command-line arguments
     */
    public static void main(String[] args) {
        System.exit(new CommandLine(new BatonCommand()).execute(args));
    }

    /**
     * Called when no subcommand is given: prints the usage help to the error stream.
     *
     * @return the usage-error exit code, 2
     */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }

    PrintStream out() {
        return out;
    }

    PrintStream err() {
        return err;
    }

    /** {@return true if the output is the process's own and goes to a terminal (views may redraw the screen)} */
    boolean interactive() {
        return out == System.out && isTerminal(System.console());
    }

    /**
     * Whether the JVM's console is a terminal. Before Java 22 a console exists only for one; from Java 22 on
     * {@code System.console()} returns one even when the output is redirected, and {@code Console.isTerminal()}
     * (called reflectively: this is built for Java 17) tells.
     */
    private static boolean isTerminal(Console console) {
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (NoSuchMethodException e) {
            return true; // before Java 22
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** Reads the version from {@code version.properties}, which the build fills in. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"baton " + version(), "Java " + Runtime.version()};
        }

        static String version() {
            Properties properties = new Properties();
            try (InputStream in = BatonCommand.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    properties.load(in);
                }
            } catch (IOException e) {
                // Fall through to "unknown": a missing version is not worth failing --version for.
            }
            return properties.getProperty("version", "unknown");
        }
    }
}
