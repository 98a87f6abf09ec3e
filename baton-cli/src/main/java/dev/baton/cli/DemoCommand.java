package dev.baton.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code baton demo [<recipe>] [--connect host:port] [--speed factor] [--list]}: runs one {@link Demo} from
 * {@link Demos} against an embedded ZooKeeper (started and always closed here) or the server given with
 * {@code --connect}, with the {@link ConnectionOptions} for namespace, authentication and TLS. Exit codes: 0 when
 * the demo ran to its end, 1 when it failed, 2 for an unknown demo or a bad option.
 */
@Command(name = "demo",
        sortOptions = false,
        description = {"Run a recipe scenario and print what happens as it happens.",
                "Without --connect it starts an embedded ZooKeeper on a free loopback port."})
final class DemoCommand implements Callable<Integer> {

    @ParentCommand
    private BatonCommand parent;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "<recipe>", defaultValue = Demos.DEFAULT,
            description = "The demo to run (default: ${DEFAULT-VALUE}); --list shows them all.")
    private String recipe;

    @Mixin
    private ConnectionOptions connection;

    @Option(names = "--speed", paramLabel = "factor", defaultValue = "1",
            description = "Pacing: 2 runs the show twice as fast, 0.5 half as fast (default: ${DEFAULT-VALUE}).")
    private double speed;

    @Option(names = {"-l", "--list"}, description = "List the demos and exit.")
    private boolean list;

    // Read by picocli itself, which prints the usage and stops when it is set.
    @SuppressWarnings("UnusedVariable")
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /**
     * Runs the chosen demo.
     *
     * @return 0 on success, 1 if the demo failed, 2 for an unknown demo
     */
    @Override
    public Integer call() {
        PrintStream out = parent.out();
        PrintStream err = parent.err();
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--speed must be a positive number, was " + speed);
        }
        if (list) {
            Demos.printList(out);
            return CommandLine.ExitCode.OK;
        }
        ClientSettings settings;
        try {
            settings = connection.settings(System::getenv);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        Optional<Demo> found = Demos.find(recipe);
        if (found.isEmpty()) {
            err.println("baton demo: no demo named '" + recipe + "'");
            Demos.printList(err);
            return CommandLine.ExitCode.USAGE;
        }
        Demo demo = found.get();
        out.println("baton demo " + demo.name() + ": " + demo.description());
        DemoContext ctx;
        try {
            ctx = DemoContext.open(out, connection.connect, settings, speed);
        } catch (RuntimeException e) {
            err.println("baton demo: cannot start an embedded ZooKeeper: " + e.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
        }
        try {
            try (ctx) {
                demo.run(ctx);
            }
            ctx.log("done", "in %.1fs%s", ctx.elapsedSeconds(), ctx.ownsServer() ? ", embedded server closed" : "");
            return CommandLine.ExitCode.OK;
        } catch (DemoException e) {
            err.println("baton demo " + demo.name() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("baton demo " + demo.name() + ": interrupted");
        } catch (Exception e) {
            err.println(String.format(Locale.ROOT, "baton demo %s failed at %.2fs: %s", demo.name(),
                    ctx.elapsedSeconds(), e));
            e.printStackTrace(err);
        }
        return CommandLine.ExitCode.SOFTWARE;
    }
}
