package dev.baton.cli;

import dev.baton.testing.Checkers;
import dev.baton.testing.ClientLink;
import dev.baton.testing.DriverProcess;
import dev.baton.testing.History;
import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import dev.baton.testing.HistoryChecker;
import dev.baton.testing.RandomFaults;
import dev.baton.testing.RandomFaults.FaultKind;
import dev.baton.testing.Violation;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A Jepsen-style run of Baton's real recipes: a 3-server ensemble of separate JVMs (or one server embedded in this
 * JVM, with the faults that can reach it), {@code clients} client JVMs
 * ({@link ChaosClient}, each running every chosen recipe behind its own proxies), random faults from
 * {@link RandomFaults} (server kills and leader kills, client and server partitions, server and client SIGSTOP,
 * session expiry, quorum loss, rolling upgrades to another ZooKeeper line), then the history checkers per recipe,
 * and whether any client lost its session (which fails the run when no fault of it ends sessions by design).
 *
 * <h2>Time</h2>
 * Each client stamps its events with its own {@link System#nanoTime()} as they happen; this process measures
 * each client's clock offset once (zero on Linux, where every JVM reads the machine's monotonic clock) and places
 * the events with {@link History#recordAt} at the time they happened. Faults, pauses and resumes are recorded
 * here, on the same clock. The checkers read {@link History#timeOrdered()}, so a line that arrives late (a busy
 * machine, a client stopped right after it acted) is still in its place, and client pauses belong in the run.
 *
 * <h2>Phases</h2>
 * Start everything; faults for the given time (all healed at the end); a quiet spell of the liveness bound, so
 * that the last heal is checked; {@code finish} (producers stop, counters read once more); the queue drains;
 * {@code stop}; check.
 *
 * <p>The servers and their faults come from {@link ChaosServers}; what is checked for each recipe, from
 * {@link ChaosChecks}.
 *
 * <p>Not thread-safe: one run per instance.
 */
final class ChaosRun {

    /**
     * What to run.
     *
     * @param recipes the recipes, all in every client
     * @param duration how long faults go on
     * @param clients how many client processes
     * @param seed the fault schedule's seed (and the workloads')
     * @param sessionTimeout the clients' session timeout
     * @param mix the fault kinds drawn from
     * @param embedded true for one server in this JVM instead of three separate-process servers (then
     *     {@code mix} holds no kind that {@linkplain FaultKind#needsEnsemble() needs an ensemble})
     * @param serverVersion the release line the servers start on ({@code 3.8}); empty for this build's ZooKeeper
     * @param upgradeTo the line {@link FaultKind#ROLLING_UPGRADE} moves them to; present exactly when {@code mix}
     *     holds that kind
     * @param curatorPercent the share of the clients that run Apache Curator's recipes instead of Baton's, 0 to 100
     *     ({@link ClientLibrary#of})
     */
    record Settings(List<ChaosRecipe> recipes, Duration duration, int clients, long seed, Duration sessionTimeout,
            List<FaultKind> mix, boolean embedded, Optional<String> serverVersion, Optional<String> upgradeTo,
            int curatorPercent) {

        Settings {
            recipes = List.copyOf(recipes);
            mix = List.copyOf(mix);
            if (curatorPercent < 0 || curatorPercent > 100) {
                throw new IllegalArgumentException("the Curator share must be 0 to 100 %, was " + curatorPercent);
            }
            if (embedded && (serverVersion.isPresent() || upgradeTo.isPresent())) {
                throw new IllegalArgumentException("server versions need separate-process servers, not embedded");
            }
            if (upgradeTo.isPresent() != mix.contains(FaultKind.ROLLING_UPGRADE)) {
                throw new IllegalArgumentException("an upgrade target goes with the rolling-upgrade fault kind: "
                        + upgradeTo + ", " + mix);
            }
        }

        /** Servers of this build's ZooKeeper, no upgrade. */
        Settings(List<ChaosRecipe> recipes, Duration duration, int clients, long seed, Duration sessionTimeout,
                List<FaultKind> mix, boolean embedded) {
            this(recipes, duration, clients, seed, sessionTimeout, mix, embedded, Optional.empty(), Optional.empty(),
                    0);
        }

        /** Returns these settings with {@code percent} of the clients on Curator. */
        Settings withCurator(int percent) {
            return new Settings(recipes, duration, clients, seed, sessionTimeout, mix, embedded, serverVersion,
                    upgradeTo, percent);
        }

        /** Whether a lost session fails the run: when no kind in the mix ends sessions by design. */
        boolean sessionsMustSurvive() {
            return mix.stream().noneMatch(FaultKind::endsSessions);
        }
    }

    /**
     * A system property whose value (space-separated) is added to each client JVM's arguments, e.g.
     * {@code -Dorg.slf4j.simpleLogger.log.dev.baton.recipes.queue=debug} to see a recipe's decisions in the logs
     * kept next to the history.
     */
    static final String CLIENT_JVM_ARGS = "baton.chaos.clientJvmArgs";

    private final Settings settings;
    private final PrintStream out;
    private final History history = new History();
    private final long started = System.nanoTime();

    ChaosRun(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    /** The liveness bound: a holder again within the session timeout plus this much after the last heal. */
    private static Duration livenessBound(Settings settings) {
        return settings.sessionTimeout().plusSeconds(10);
    }

    ChaosReport run(Path historyFile) throws InterruptedException {
        int onCurator = ClientLibrary.onCurator(settings.clients(), settings.curatorPercent());
        say("chaos: " + ids(settings.recipes()) + ", " + settings.clients() + " client processes"
                + (onCurator > 0 ? " (" + onCurator + " on Apache Curator)" : "") + ", "
                + (settings.embedded() ? "1 embedded server" : "3 servers")
                + settings.serverVersion().map(v -> " of ZooKeeper " + v).orElse("")
                + settings.upgradeTo().map(v -> " (rolling upgrades to " + v + ")").orElse("") + ", session "
                + settings.sessionTimeout().toMillis() + " ms, faults for " + human(settings.duration()) + ", seed "
                + settings.seed());
        List<Client> clients = new ArrayList<>();
        Map<FaultKind, Integer> faultCounts;
        Map<Integer, String> serverVersions;
        Map<String, Integer> queuedCopies;
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "baton-chaos-progress");
            t.setDaemon(true);
            return t;
        });
        // One thread per client for the calls made to all at once (the common pool may have a single thread).
        ExecutorService perClient = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "baton-chaos-call");
            t.setDaemon(true);
            return t;
        });
        try (ChaosServers servers = ChaosServers.start(settings, history)) {
            try {
                say(servers.describe());
                Random seeds = new Random(settings.seed());
                String curatorJars = settings.curatorPercent() > 0 ? CuratorJars.forClients() : "";
                // All at once: a JVM's start is mostly waiting, and a run of many clients would wait long.
                List<CompletableFuture<Client>> starting = new ArrayList<>();
                for (int i = 1; i <= settings.clients(); i++) {
                    ClientLibrary library = ClientLibrary.of(i, settings.clients(), settings.curatorPercent());
                    String name = "c" + i + "-" + library.id();
                    ClientLink link = servers.newClientLink();
                    LinkAddresses links = servers.linkAddresses(link);
                    long seed = seeds.nextLong();
                    starting.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return startClient(name, library, library == ClientLibrary.CURATOR ? curatorJars : "",
                                    link, links, seed);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new CompletionException(e);
                        }
                    }, perClient));
                }
                RuntimeException failed = null;
                for (CompletableFuture<Client> f : starting) {
                    try {
                        clients.add(f.join());
                    } catch (CompletionException e) {
                        failed = failed != null ? failed : new IllegalStateException("a client did not start: "
                                + e.getCause(), e.getCause());
                    }
                }
                if (failed != null) {
                    throw failed; // the finally below closes those that did start
                }
                say(settings.clients() + " clients started; faults begin");
                history.note("faults begin");
                RandomFaults faults = servers.faults(clients);
                faults.announceTo(this::say);
                sayProgressEveryMinute(ticker, faults);
                faults.run(settings.duration());
                faultCounts = faults.counts();
                history.note("faults over, all healed");
                say("faults over (" + faults.faults() + "), all healed; " + human(livenessBound(settings))
                        + " of quiet for the liveness check");
                Thread.sleep(livenessBound(settings).toMillis()); // the run's length, not a wait for a condition
                // All at once: a barrier round in progress needs every member to finish it.
                List<CompletableFuture<Void>> finishing = new ArrayList<>();
                for (Client c : clients) {
                    finishing.add(CompletableFuture.runAsync(() -> {
                        try {
                            c.driver.call(Duration.ofMinutes(2), "finish");
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }, perClient));
                }
                finishing.forEach(CompletableFuture::join);
                if (!awaitQueueDrained(clients.get(0))) {
                    say("the queue did not drain: " + clients.get(0).driver.call("queue-left"));
                }
                for (Client c : clients) {
                    c.driver.call(Duration.ofMinutes(2), "stop");
                }
                serverVersions = servers.reportedVersions();
                queuedCopies = queuedCopies(servers);
            } finally {
                ticker.shutdownNow();
                perClient.shutdownNow();
                if (historyFile != null) {
                    // Next to the history: what each client process logged, for a violation's post-mortem.
                    for (Client c : clients) {
                        try {
                            c.driver.copyLogTo(historyFile.resolveSibling(historyFile.getFileName() + "." + c.name
                                    + ".log"));
                        } catch (java.io.UncheckedIOException e) {
                            say("cannot keep the log of " + c.name + ": " + e.getMessage());
                        }
                    }
                }
                clients.forEach(c -> c.driver.close());
                if (historyFile != null) {
                    // And the servers' logs (elections, upgrades), in a directory next to the history.
                    try {
                        servers.copyLogsTo(historyFile.toAbsolutePath().resolveSibling(historyFile.getFileName()
                                + ".servers"));
                    } catch (java.io.UncheckedIOException e) {
                        say("cannot keep the servers' logs: " + e.getMessage());
                    }
                }
            }
        }
        List<Event> events = history.timeOrdered();
        Optional<Path> written = Optional.empty();
        if (historyFile != null) {
            try {
                Path parent = historyFile.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                Files.writeString(historyFile, History.format(events, Set.of()));
                written = Optional.of(historyFile);
            } catch (java.io.IOException e) {
                say("cannot write the history to " + historyFile + ": " + e.getMessage());
            }
        }
        Map<String, ClientLibrary> libraries = new LinkedHashMap<>();
        clients.forEach(c -> libraries.put(c.name, c.library));
        return judge(settings, events, libraries, faultCounts, written, serverVersions, queuedCopies);
    }

    /** How many nodes carried each item of the run's queues, by the servers' logs; empty if they cannot tell. */
    private Map<String, Integer> queuedCopies(ChaosServers servers) {
        List<String> queues = settings.recipes().stream()
                .filter(ChaosRecipe::queue)
                .map(r -> ChaosWorkloads.pathOf(r.id())).toList();
        if (queues.isEmpty()) {
            return Map.of();
        }
        try {
            return QueueCopies.count(servers.dataDirectories(), queues);
        } catch (java.io.IOException | RuntimeException e) {
            say("cannot read the servers' transaction logs (queue items are blamed without them): " + e);
            return Map.of();
        }
    }

    /**
     * Checks a run's history: each recipe's checkers, the blame of each violation, the sessions.
     *
     * @param settings the run's settings (its recipes, clients, session timeout and fault kinds count)
     * @param events the history, in time order
     * @param libraries every client's library, by name
     * @param faultCounts the faults injected, by kind
     * @param written where the history was written, if it was
     * @param serverVersions each server's version at the end, by server id
     * @param queuedCopies how many nodes carried each queue item, by the servers' logs (empty: unknown)
     * @return the report
     */
    static ChaosReport judge(Settings settings, List<Event> events, Map<String, ClientLibrary> libraries,
            Map<FaultKind, Integer> faultCounts, Optional<Path> written, Map<Integer, String> serverVersions,
            Map<String, Integer> queuedCopies) {
        Map<ChaosRecipe, ChaosReport.Verdict> verdicts = new LinkedHashMap<>();
        Map<ChaosRecipe, String> counts = new LinkedHashMap<>();
        Map<ChaosRecipe, Map<ClientLibrary, Integer>> successes = new LinkedHashMap<>();
        List<Violation> retriedByCurator = new ArrayList<>();
        for (ChaosRecipe recipe : settings.recipes()) {
            List<Event> mine = ChaosChecks.eventsOf(recipe, events);
            List<HistoryChecker> checkers = ChaosChecks.checkersFor(recipe, livenessBound(settings),
                    settings.clients());
            // Every violation, not the first ten per checker: each is blamed on its clients' libraries.
            List<Violation> violations = checkers.stream().flatMap(c -> c.check(mine).stream()).toList();
            List<Violation> unordered = violations.stream().filter(v -> v.checker().equals("linearizable")).toList();
            if (!unordered.isEmpty() && !recipe.broken()) {
                retriedByCurator.addAll(ChaosChecks.explainedByRetriedCuratorWrites(recipe, mine, libraries,
                        unordered));
            }
            verdicts.put(recipe, new ChaosReport.Verdict(checkers.stream().map(HistoryChecker::name).toList(),
                    violations));
            counts.put(recipe, ChaosChecks.count(recipe, mine));
            Map<ClientLibrary, Integer> byLibrary = new EnumMap<>(ClientLibrary.class);
            mine.stream().filter(ChaosChecks::success).map(e -> libraries.get(e.client()))
                    .filter(Objects::nonNull).forEach(l -> byLibrary.merge(l, 1, Integer::sum));
            successes.put(recipe, byLibrary);
        }
        ChaosReport.Sessions sessions = new ChaosReport.Sessions(settings.clients(),
                Checkers.noSessionLost().check(events), settings.sessionsMustSurvive(), events.stream()
                        .filter(e -> e.kind() == Kind.CONNECTED || e.kind() == Kind.DISCONNECTED).toList(),
                settings.sessionTimeout());
        return new ChaosReport(verdicts, faultCounts, counts, events.size(), written, sessions, serverVersions,
                libraries, successes, retriedByCurator, queuedCopies);
    }

    /** Says how far the run is, every minute, until {@code ticker} is shut down with the run. */
    // The ticker's shutdownNow() ends the task; nothing waits for its future, and a progress line is all it does.
    @SuppressWarnings("FutureReturnValueIgnored")
    private void sayProgressEveryMinute(ScheduledExecutorService ticker, RandomFaults faults) {
        ticker.scheduleAtFixedRate(() -> say("progress: " + faults.faults() + " faults, " + history.size()
                + " events"), 60, 60, TimeUnit.SECONDS);
    }

    /** A client process and its link; a fault target. */
    private record Client(String name, ClientLibrary library, ClientLink link, DriverProcess driver)
            implements RandomFaults.Target {
        @Override
        public Optional<RandomFaults.Session> session() throws InterruptedException {
            String answer = driver.call("session");
            if (answer.equals("none")) {
                return Optional.empty();
            }
            String[] w = answer.split(" ", -1);
            return Optional.of(new RandomFaults.Session(Long.parseLong(w[0]), HexFormat.of().parseHex(w[1])));
        }

        @Override
        public Optional<DriverProcess> process() {
            return Optional.of(driver);
        }
    }

    private Client startClient(String name, ClientLibrary library, String extraClasspath, ClientLink link,
            LinkAddresses links, long seed) throws InterruptedException {
        long[] offset = {0};
        String extra = System.getProperty(CLIENT_JVM_ARGS, "").strip();
        DriverProcess driver = DriverProcess.builder(library.mainClass()).name(name).heap("192m")
                .appendClasspath(extraClasspath)
                .jvmArgs(extra.isEmpty() ? new String[0] : extra.split("\\s+"))
                .eventListener(line -> History.parseLine(line).ifPresent(e -> history.recordAt(e.nanos() + offset[0],
                        e.client(), e.kind(), e.name(), e.token(), e.detail())))
                .start();
        try {
            offset[0] = driver.clockOffsetNanos();
            if (offset[0] != 0) {
                say(name + ": its clock is " + offset[0] + " ns off ours; events are shifted by that");
            }
            driver.call(Duration.ofSeconds(90), "start", link.connectString(),
                    Long.toString(settings.sessionTimeout().toMillis()), ids(settings.recipes()),
                    Integer.toString(settings.clients()), Long.toString(seed), name, links.format());
        } catch (RuntimeException | InterruptedException e) {
            driver.close();
            throw e;
        }
        return new Client(name, library, link, driver);
    }

    /**
     * Waits until every item put was consumed to the end (without a lock path: taken), or no item is left on the
     * server (an item whose take lost its answer is gone untaken), up to a minute; the checkers judge what is
     * missing. {@code asker} reads the server.
     */
    private boolean awaitQueueDrained(Client asker) throws InterruptedException {
        if (!settings.recipes().contains(ChaosRecipe.QUEUE)
                && !settings.recipes().contains(ChaosRecipe.QUEUE_UNLOCKED)) {
            return true;
        }
        String takenIsEnough = ChaosRecipe.QUEUE_UNLOCKED.id() + "/";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Set<String> open = new HashSet<>();
            for (Event e : history.events()) {
                if (e.kind() == Kind.ITEM_PUT) {
                    open.add(e.name());
                }
            }
            for (Event e : history.events()) {
                boolean taken = e.kind() == Kind.ITEM_TAKEN && e.name().startsWith(takenIsEnough);
                if (e.kind() == Kind.ITEM_DONE || taken) {
                    open.remove(e.name());
                }
            }
            if (open.isEmpty() || asker.driver.call("queue-drained").equals("true")) {
                return true;
            }
            Thread.sleep(500); // polling the history and the server; the checkers decide
        }
        return false;
    }

    private void say(String line) {
        long s = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        synchronized (out) {
            out.printf(Locale.ROOT, "[%3dm%02ds] %s%n", s / 60, s % 60, line);
            out.flush();
        }
    }

    private static String ids(List<ChaosRecipe> recipes) {
        return String.join(",", recipes.stream().map(ChaosRecipe::id).toList());
    }

    static String human(Duration d) {
        long s = d.toSeconds();
        return s >= 3600 ? s / 3600 + "h" + (s % 3600 / 60 > 0 ? s % 3600 / 60 + "m" : "")
                : s >= 60 ? s / 60 + "m" + (s % 60 > 0 ? s % 60 + "s" : "") : d.toMillis() + " ms";
    }
}
