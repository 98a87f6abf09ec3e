package dev.baton.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.zookeeper.KeeperException;

/**
 * Runs scenarios against adapters that are all open on the same server at once, interleaving them so that a
 * noisy neighbour on a small machine hurts every library alike.
 *
 * <p>For each scenario: {@link BenchOptions#warmupRounds()} unmeasured warm-up rounds, then
 * {@link BenchOptions#rounds()} measured rounds. In a round every adapter runs {@link BenchOptions#ops()}
 * operations, in turns of {@link BenchOptions#slice()} operations: A B C, B C A, C A B, ... so each library's
 * time is spread over the whole round and no library is always first or last. Each turn is: a fresh base path
 * and the scenario's set-up (unmeasured), a reset of the server's request counter, the loop (measured), the
 * request count, then clean-up (unmeasured). Only one adapter is active at a time; the idle ones only ping, which
 * the server does not count. Each round yields one {@link RunResult} per library, with its per-turn times; the
 * report keeps each library's median round and pairs turns for the ratio columns
 * ({@link ScenarioResult#pairedTimeRatio}).
 */
final class BenchRunner {
    /** Everything the benchmark creates lives under this node, so it never touches other data on a server. */
    static final String ROOT = "/baton-bench";

    private final BenchServer server;
    private final BenchOptions options;
    private final PrintStream progress;

    BenchRunner(BenchServer server, BenchOptions options, PrintStream progress) {
        this.server = server;
        this.options = options;
        this.progress = progress;
    }

    /**
     * Opens the adapters, runs the scenarios and closes the adapters again.
     *
     * @param scenarios what to run, in order
     * @param clients unopened adapters, in report order
     * @return one result per scenario
     * @throws KeeperException if a set-up, clean-up or measured operation failed
     * @throws InterruptedException if interrupted
     */
    List<ScenarioResult> run(List<Scenario> scenarios, List<BenchClient> clients)
            throws KeeperException, InterruptedException {
        List<ScenarioResult> results = new ArrayList<>();
        try (Admin admin = Admin.connect(server.connectString(), server.clientConfig())) {
            try {
                for (BenchClient client : clients) {
                    client.open(server.connectString(), server.clientConfig());
                }
                admin.deleteTree(ROOT);
                for (Scenario scenario : scenarios) {
                    results.add(runScenario(admin, scenario, clients));
                }
                admin.deleteTree(ROOT);
            } finally {
                clients.forEach(BenchClient::close);
            }
        }
        return results;
    }

    private ScenarioResult runScenario(Admin admin, Scenario scenario, List<BenchClient> allClients)
            throws KeeperException, InterruptedException {
        List<BenchClient> clients = allClients.stream().filter(scenario::supports).toList();
        for (BenchClient skipped : allClients) {
            if (!clients.contains(skipped)) {
                progress.printf(Locale.ROOT, "%-20s skipped   %-9s (the scenario needs what it lacks)%n",
                        scenario.name(), skipped.name());
            }
        }
        for (int w = 0; w < options.warmupRounds(); w++) {
            List<RunResult> round = runRound(admin, scenario, clients, options.warmupOps(), w);
            for (RunResult r : round) {
                progress.printf(Locale.ROOT, "%-20s warm-up %d/%d %-9s %s%n", scenario.name(), w + 1,
                        options.warmupRounds(), r.library(), summary(r));
            }
        }
        Map<String, List<RunResult>> rounds = new LinkedHashMap<>();
        clients.forEach(c -> rounds.put(c.name(), new ArrayList<>()));
        for (int round = 0; round < options.rounds(); round++) {
            for (RunResult r : runRound(admin, scenario, clients, options.ops(), round)) {
                rounds.get(r.library()).add(r);
                progress.printf(Locale.ROOT, "%-20s round %d/%d   %-9s %s%n", scenario.name(), round + 1,
                        options.rounds(), r.library(), summary(r));
            }
        }
        return new ScenarioResult(scenario.name(), scenario.description(), rounds);
    }

    /** One round: every adapter runs {@code ops} operations in interleaved turns. Results in adapter order. */
    private List<RunResult> runRound(Admin admin, Scenario scenario, List<BenchClient> clients, int ops, int round)
            throws KeeperException, InterruptedException {
        int n = clients.size();
        Tally[] tallies = new Tally[n];
        for (int i = 0; i < n; i++) {
            tallies[i] = new Tally();
        }
        System.gc(); // garbage from earlier rounds is not this round's cost
        int turns = (ops + options.slice() - 1) / options.slice();
        for (int turn = 0; turn < turns; turn++) {
            for (int i = 0; i < n; i++) {
                int k = (i + round + turn) % n;
                Tally tally = tallies[k];
                int sliceOps = Math.min(options.slice(), ops - tally.ops);
                long budget = options.maxRunNanos() - tally.elapsedNanos; // only meaningful with a limit
                if (sliceOps <= 0 || tally.timeUp || (options.maxRunNanos() > 0 && budget <= 0)) {
                    continue;
                }
                runTurn(admin, scenario, clients.get(k), sliceOps, options.maxRunNanos() > 0 ? budget : 0, tally);
            }
        }
        List<RunResult> results = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            results.add(tallies[i].result(clients.get(i).name(), server.countsRequests()));
        }
        return results;
    }

    private void runTurn(Admin admin, Scenario scenario, BenchClient client, int ops, long maxNanos, Tally tally)
            throws KeeperException, InterruptedException {
        String base = ROOT + "/" + scenario.name() + "/" + client.name().toLowerCase(Locale.ROOT);
        admin.deleteTree(base);
        admin.ensurePath(base);
        RunContext run = new RunContext(server, admin, base, ops, maxNanos, new byte[options.dataBytes()],
                options.inFlight());
        scenario.setUp(client, run);
        server.resetRequests();
        run.startClock();
        long start = System.nanoTime();
        scenario.run(client, run);
        long elapsed = System.nanoTime() - start;
        // One snapshot for the total and its split: a straggling request between two reads made them disagree.
        Map<String, Long> byType = server.requestCounts();
        long requests = server.countsRequests() ? byType.values().stream().mapToLong(Long::longValue).sum()
                : server.requestCount();
        scenario.tearDown(client, run);
        admin.deleteTree(base);
        int done = run.latencies().size();
        tally.add(done, elapsed, requests, run.latencies().sorted());
        if (server.countsRequests()) {
            tally.addRequests(RunResult.WHOLE_OP, byType);
            run.phaseRequests().forEach(tally::addRequests);
        }
        if (done < ops) {
            tally.timeUp = true;
        }
    }

    private static String summary(RunResult r) {
        return String.format(Locale.ROOT, "%,9.0f ops/s  p50 %8.1f us  p99 %8.1f us  %s req/op",
                r.opsPerSecond(), r.p50Nanos() / 1e3, r.p99Nanos() / 1e3,
                Double.isNaN(r.requestsPerOp()) ? "n/a" : String.format(Locale.ROOT, "%.2f", r.requestsPerOp()));
    }

    /** One adapter's turns within a round, added up. */
    private static final class Tally {
        int ops;
        long elapsedNanos;
        long requests;
        boolean timeUp;
        private final List<long[]> latencies = new ArrayList<>();
        private final List<Double> turnNanosPerOp = new ArrayList<>();
        private final Map<String, Map<String, Long>> requestsByPhase = new LinkedHashMap<>();

        void addRequests(String phase, Map<String, Long> byType) {
            Map<String, Long> counts = requestsByPhase.computeIfAbsent(phase, p -> new LinkedHashMap<>());
            byType.forEach((type, n) -> counts.merge(type, n, Long::sum));
        }

        void add(int turnOps, long turnNanos, long turnRequests, long[] turnLatencies) {
            ops += turnOps;
            elapsedNanos += turnNanos;
            requests += turnRequests;
            latencies.add(turnLatencies);
            if (turnOps > 0) {
                turnNanosPerOp.add((double) turnNanos / turnOps);
            }
        }

        RunResult result(String library, boolean countsRequests) {
            long[] all = new long[ops];
            int at = 0;
            for (long[] chunk : latencies) {
                System.arraycopy(chunk, 0, all, at, chunk.length);
                at += chunk.length;
            }
            Arrays.sort(all);
            return new RunResult(library, ops, elapsedNanos, Latencies.percentile(all, 50),
                    Latencies.percentile(all, 99), countsRequests ? requests : -1, turnNanosPerOp,
                    countsRequests ? requestsByPhase : Map.of());
        }
    }
}
