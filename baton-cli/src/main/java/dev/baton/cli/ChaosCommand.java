package dev.baton.cli;

import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.History;
import dev.baton.testing.History.Event;
import dev.baton.testing.RandomFaults.FaultKind;
import dev.baton.testing.ZooKeeperEnsemble;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code baton chaos --recipe NAME[,NAME] --duration 10m [--clients N] [--seed S] [--embedded]}: the random-fault
 * run of {@link ChaosRun} against three separate-process ZooKeeper servers on loopback ports, or with
 * {@code --embedded} against one server in this process (with the faults that can reach it). With
 * {@code --server-version LINE} the servers run that release line; with {@code --upgrade-to LINE} the
 * {@code rolling-upgrade} fault moves them to another one by one, and back. Prints each fault as it is
 * injected and healed, then each recipe's verdict with what was checked, the faults by kind, and every violation
 * with its history excerpt. Exit codes: 0 when every checker passed, 1 when one found a violation or the run
 * failed, 2 for a bad option. The seed replays the fault schedule; {@code --judge FILE} checks a history written
 * with {@code --history FILE} again, with this build's checkers and blame rules, without running anything. With
 * {@code --mix curator:N%} that share of the clients run Apache Curator's recipes on the same znodes; a violation
 * among Curator clients only is reported as Curator's and does not fail the run (exit 0), one that involves a
 * Baton client does.
 */
@Command(name = "chaos",
        sortOptions = false,
        description = {"Run recipes under random faults (server kills, partitions, pauses, session expiry,",
                "quorum loss) on three separate-process servers (or one embedded server), then check the",
                "histories."})
final class ChaosCommand implements Callable<Integer> {

    private static final Pattern MIX = Pattern.compile("curator(?::(\\d{1,3})%?)?");
    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

    @ParentCommand
    private BatonCommand parent;

    @Spec
    private CommandSpec spec;

    @Option(names = "--recipe", paramLabel = "NAME[,NAME]", defaultValue = "all",
            description = {"Recipes to run (default: ${DEFAULT-VALUE}): mutex, semaphore-mutex, rwlock, semaphore,",
                    "latch, selector, barrier, double-barrier, atomic-long, atomic-long-locked, shared-count,",
                    "queue, queue-unlocked, discovery; broken-counter, deaf-mutex, stuck-mutex, broken-semaphore,",
                    "broken-rwlock, broken-barrier, broken-double-barrier, broken-queue, broken-locked-queue and",
                    "broken-discovery are broken on purpose, to see the checkers fail."})
    private String recipes;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "10m",
            description = "How long faults go on: 90s, 10m, 2h (default: ${DEFAULT-VALUE}).")
    private String duration;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "5",
            description = "Client processes, each running every recipe (default: ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--seed", paramLabel = "S", description = "Seed of the fault schedule (default: random).")
    private Long seed;

    @Option(names = "--session-timeout", paramLabel = "TIME", defaultValue = "4s",
            description = "The clients' session timeout (default: ${DEFAULT-VALUE}).")
    private String sessionTimeout;

    @Option(names = "--faults", paramLabel = "KIND[,KIND]", defaultValue = "all",
            description = {"Fault kinds to draw from (default: ${DEFAULT-VALUE}): kill, kill-leader, partition,",
                    "isolate, partition-peers, expire, pause-server, pause-client, quorum, rolling-restart,",
                    "rolling-upgrade (all has rolling-upgrade only with --upgrade-to), reconfigure (named only:",
                    "the servers then allow reconfiguration, which leaves out isolate and partition-peers)."})
    private String faults;

    @Option(names = "--server-version", paramLabel = "LINE",
            description = {"ZooKeeper release line of the three servers: 3.5, 3.6, 3.7, 3.8 or 3.9 (default:",
                    "this build's ZooKeeper)."})
    private String serverVersion;

    @Option(names = "--upgrade-to", paramLabel = "LINE",
            description = {"Release line the rolling-upgrade fault moves every server to, one at a time, the",
                    "leader last; drawn again, it rolls back to the first line."})
    private String upgradeTo;

    @Option(names = "--mix", paramLabel = "curator[:N%]",
            description = {"Run Apache Curator's recipes in a share of the clients (default 50%%), on the same",
                    "znodes as Baton's: the checkers judge both libraries' clients as one system and blame",
                    "each violation on the libraries of the clients in it."})
    private String mixWith;

    @Option(names = "--embedded",
            description = {"Run one ZooKeeper server in this process instead of three separate-process servers.",
                    "Kill, kill-leader and quorum then stop and restart it; isolate, partition-peers and",
                    "pause-server need separate servers and are left out."})
    private boolean embedded;

    @Option(names = "--history", paramLabel = "FILE",
            description = "Write the checked history to this file, each client's log next to it.")
    private Path historyFile;

    @Option(names = "--judge", paramLabel = "FILE",
            description = {"Run nothing: check a history written by --history again, with this build's checkers",
                    "and blame rules. Give the run's --session-timeout; --recipe limits the recipes checked."})
    private Path judgeFile;

    // Read by picocli itself, which prints the usage and stops when it is set.
    @SuppressWarnings("UnusedVariable")
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /**
     * Runs the chaos run and prints its verdict.
     *
     * @return 0 if every checker passed, 1 otherwise, 2 for a bad option
     */
    @Override
    public Integer call() {
        ChaosRun.Settings settings;
        try {
            settings = settings();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (judgeFile != null) {
            return judge(settings);
        }
        try {
            ChaosReport report = new ChaosRun(settings, parent.out()).run(historyFile);
            ChaosReport.print(report, parent.out());
            parent.out().println("replay: baton chaos --recipe " + String.join(",", settings.recipes().stream()
                    .map(ChaosRecipe::id).toList()) + " --duration " + duration + " --clients " + clients
                    + " --seed " + settings.seed() + " --session-timeout " + sessionTimeout + " --faults "
                    + String.join(",", settings.mix().stream().map(ChaosCommand::id).toList())
                    + settings.serverVersion().map(v -> " --server-version " + v).orElse("")
                    + settings.upgradeTo().map(v -> " --upgrade-to " + v).orElse("")
                    + (settings.curatorPercent() > 0 ? " --mix curator:" + settings.curatorPercent() + "%" : "")
                    + (embedded ? " --embedded" : ""));
            report.historyFile().ifPresent(f -> parent.out().println("check again: baton chaos --judge " + f
                    + " --session-timeout " + sessionTimeout));
            return report.passed() ? CommandLine.ExitCode.OK : CommandLine.ExitCode.SOFTWARE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            parent.err().println("baton chaos: interrupted");
        } catch (RuntimeException e) {
            parent.err().println("baton chaos failed: " + e);
            e.printStackTrace(parent.err());
        }
        return CommandLine.ExitCode.SOFTWARE;
    }

    /** Checks the history in {@link #judgeFile} again and prints the verdict, as after a run. */
    private int judge(ChaosRun.Settings settings) {
        List<Event> events = new ArrayList<>();
        try (Stream<String> lines = Files.lines(judgeFile)) {
            lines.forEach(line -> History.parseListed(line).ifPresent(events::add));
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            parent.err().println("baton chaos: cannot read the history " + judgeFile + ": " + e.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
        }
        Map<String, ClientLibrary> libraries = new TreeMap<>();
        events.stream().map(Event::client).filter(c -> !c.isEmpty())
                .forEach(c -> libraries.put(c, ClientLibrary.ofClient(c)));
        if (libraries.isEmpty()) {
            parent.err().println("baton chaos: " + judgeFile + " holds no client's event: not a history written by"
                    + " --history");
            return CommandLine.ExitCode.SOFTWARE;
        }
        List<ChaosRecipe> present = settings.recipes().stream()
                .filter(r -> ChaosChecks.ran(r, events)).toList();
        ChaosRun.Settings judged = new ChaosRun.Settings(present, settings.duration(), libraries.size(),
                settings.seed(), settings.sessionTimeout(), settings.mix(), settings.embedded(),
                settings.serverVersion(), settings.upgradeTo(), settings.curatorPercent());
        ChaosReport report = ChaosRun.judge(judged, events, libraries, Map.of(), Optional.of(judgeFile), Map.of(),
                Map.of());
        ChaosReport.print(report, parent.out());
        parent.out().println("faults in the history: " + events.stream()
                .filter(e -> e.kind() == History.Kind.FAULT_INJECTED).count() + " (their kinds are in the run's"
                + " output)");
        return report.passed() ? CommandLine.ExitCode.OK : CommandLine.ExitCode.SOFTWARE;
    }

    ChaosRun.Settings settings() {
        List<ChaosRecipe> chosen = ChaosRecipe.parseList(recipes);
        Duration length = parseDuration(duration, "--duration");
        Duration session = parseDuration(sessionTimeout, "--session-timeout");
        if (clients < 2 || clients > 20) {
            throw new IllegalArgumentException("--clients must be between 2 and 20, was " + clients);
        }
        if (session.toMillis() < 2_000 || session.toMillis() > 60_000) {
            throw new IllegalArgumentException("--session-timeout must be between 2s and 60s, was " + sessionTimeout);
        }
        if (embedded && (serverVersion != null || upgradeTo != null)) {
            throw new IllegalArgumentException((serverVersion != null ? "--server-version" : "--upgrade-to")
                    + " needs separate-process servers; leave out --embedded");
        }
        String from = serverVersion != null ? release(serverVersion, "--server-version")
                : EmbeddedZooKeeper.zooKeeperVersion();
        if (upgradeTo != null) {
            String to = release(upgradeTo, "--upgrade-to");
            if (to.equals(from)) {
                throw new IllegalArgumentException("--upgrade-to " + upgradeTo + " is the release the servers start "
                        + "on (" + from + (serverVersion == null ? ", this build's ZooKeeper" : "")
                        + "); start them on another line with --server-version");
            }
        }
        Set<FaultKind> mix = new LinkedHashSet<>();
        for (String word : faults.split(",", -1)) {
            if (word.strip().equalsIgnoreCase("all")) {
                for (FaultKind kind : FaultKind.values()) {
                    if ((!embedded || !kind.needsEnsemble()) && kind != FaultKind.RECONFIGURE
                            && (kind != FaultKind.ROLLING_UPGRADE || upgradeTo != null)) {
                        mix.add(kind);
                    }
                }
            } else if (!word.isBlank()) {
                FaultKind kind = FaultKind.parse(word);
                if (embedded && kind.needsEnsemble()) {
                    throw new IllegalArgumentException("--faults " + word.strip()
                            + " needs separate-process servers; leave out --embedded or that kind");
                }
                mix.add(kind);
            }
        }
        if (mix.isEmpty()) {
            throw new IllegalArgumentException("--faults names no fault kind: '" + faults + "'");
        }
        if (mix.contains(FaultKind.ROLLING_UPGRADE) && upgradeTo == null) {
            throw new IllegalArgumentException("--faults rolling-upgrade needs --upgrade-to LINE (and --server-version"
                    + " LINE for the line to start from)");
        }
        if (mix.contains(FaultKind.RECONFIGURE)
                && (mix.contains(FaultKind.ISOLATE) || mix.contains(FaultKind.PARTITION_PEERS))) {
            throw new IllegalArgumentException("--faults reconfigure cannot go with isolate or partition-peers: those"
                    + " cut servers apart through proxies that a reconfigured ensemble would not use; name the"
                    + " kinds without them (e.g. all but those two: kill,kill-leader,partition,expire,pause-server,"
                    + "pause-client,quorum,rolling-restart,reconfigure)");
        }
        if (upgradeTo != null && !mix.contains(FaultKind.ROLLING_UPGRADE)) {
            throw new IllegalArgumentException("--upgrade-to " + upgradeTo + " needs rolling-upgrade among --faults");
        }
        long s = seed != null ? seed : ThreadLocalRandom.current().nextLong();
        return new ChaosRun.Settings(chosen, length, clients, s, session, new ArrayList<>(mix), embedded,
                Optional.ofNullable(serverVersion), Optional.ofNullable(upgradeTo),
                mixWith == null ? 0 : curatorPercent(mixWith));
    }

    /** Parses {@code curator} (half the clients) or {@code curator:N%}, N from 1 to 99. */
    static int curatorPercent(String text) {
        Matcher m = MIX.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("--mix must look like curator or curator:30%, was '" + text + "'");
        }
        if (m.group(1) == null) {
            return 50;
        }
        int percent = Integer.parseInt(m.group(1));
        if (percent < 1 || percent > 99) {
            throw new IllegalArgumentException("--mix curator:N% takes N from 1 to 99 (some clients of each"
                    + " library), was '" + text + "'");
        }
        return percent;
    }

    /** The release a line names, as the servers would run it; the option named in the message if unknown. */
    private static String release(String line, String option) {
        try {
            return ZooKeeperEnsemble.releaseVersion(line.strip());
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IllegalArgumentException(option + " " + line + ": " + e.getMessage());
        }
    }

    private static String id(FaultKind kind) {
        return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Parses {@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h} or ISO-8601 ({@code PT30S}). */
    static Duration parseDuration(String text, String option) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE_DURATION.matcher(t);
        Duration d;
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        } else {
            try {
                d = Duration.parse(text.strip().toUpperCase(Locale.ROOT));
            } catch (java.time.format.DateTimeParseException e) {
                throw new IllegalArgumentException(option + " must look like 90s, 10m or 1h, was '" + text + "'");
            }
        }
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(option + " must be positive, was '" + text + "'");
        }
        return d;
    }
}
