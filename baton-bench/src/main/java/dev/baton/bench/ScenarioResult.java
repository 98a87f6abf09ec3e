package dev.baton.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Every measured round of one scenario, per library, in report order.
 *
 * @param scenario the scenario's name
 * @param description what one op is
 * @param rounds each library's rounds, in the order they ran
 */
record ScenarioResult(String scenario, String description, Map<String, List<RunResult>> rounds) {

    ScenarioResult {
        Map<String, List<RunResult>> copy = new LinkedHashMap<>();
        rounds.forEach((library, runs) -> copy.put(library, List.copyOf(runs)));
        rounds = Collections.unmodifiableMap(copy);
    }

    /** The libraries, in report order. */
    List<String> libraries() {
        return new ArrayList<>(rounds.keySet());
    }

    /**
     * How much longer {@code library} takes per op than {@code baseline}, as the median over every pair of
     * turns the two ran back to back (the same turn of the same round): {@code 1.10} means 10% slower. Pairing
     * adjacent turns cancels most of the load that other processes put on a small machine, which comparing two
     * separately chosen median rounds would not.
     *
     * @return the ratio, or NaN if either library did not run
     */
    double pairedTimeRatio(String library, String baseline) {
        return medianOverRounds(library, baseline, (run, base) -> {
            List<Double> ratios = new ArrayList<>();
            List<Double> turns = run.turnNanosPerOp();
            List<Double> baseTurns = base.turnNanosPerOp();
            for (int turn = 0; turn < Math.min(turns.size(), baseTurns.size()); turn++) {
                ratios.add(turns.get(turn) / baseTurns.get(turn));
            }
            return ratios;
        });
    }

    /**
     * {@code library}'s p50 latency over {@code baseline}'s, as the median over the rounds both ran: {@code 0.5}
     * means half the latency. Each round's turns of the two libraries ran interleaved, so a round pairs like
     * measurements.
     *
     * @return the ratio, or NaN if either library did not run
     */
    double p50Ratio(String library, String baseline) {
        return medianOverRounds(library, baseline,
                (run, base) -> List.of((double) run.p50Nanos() / base.p50Nanos()));
    }

    /** The median of the ratios {@code paired} gives for each round the two libraries both ran; NaN if none. */
    private double medianOverRounds(String library, String baseline,
            BiFunction<RunResult, RunResult, List<Double>> paired) {
        List<RunResult> runs = rounds.get(library);
        List<RunResult> bases = rounds.get(baseline);
        if (runs == null || bases == null) {
            return Double.NaN;
        }
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < Math.min(runs.size(), bases.size()); round++) {
            ratios.addAll(paired.apply(runs.get(round), bases.get(round)));
        }
        return median(ratios);
    }

    private static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /**
     * A library's median round by throughput (the lower middle one for an even count): its latencies and request
     * count come from the same run as its throughput, so the row is one real run.
     *
     * @return the median round, or null if the library did not run
     */
    RunResult median(String library) {
        List<RunResult> runs = rounds.get(library);
        if (runs == null || runs.isEmpty()) {
            return null;
        }
        List<RunResult> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(RunResult::opsPerSecond));
        return sorted.get((sorted.size() - 1) / 2);
    }
}
