package dev.baton.cli;

import dev.baton.testing.Checkers;
import dev.baton.testing.History;
import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import dev.baton.testing.RandomFaults.FaultKind;
import dev.baton.testing.Violation;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What a chaos run found, how each violation is blamed, and the verdict as it is printed.
 *
 * @param verdicts per recipe, the checkers run and their violations
 * @param faults faults injected, by kind
 * @param counts what was checked: operations, acquisitions, rounds, items, by recipe
 * @param events how many events the history holds
 * @param historyFile where the history was written, if it was
 * @param sessions whether sessions survived, and whether that counts
 * @param serverVersions each server's version at the end, by server id
 * @param clients every client's library, by client name
 * @param successes per recipe, the successful operations ({@link ChaosChecks#success}) of each library
 * @param retriedByCurator linearizability violations that Baton clients saw but that Curator's writes applied
 *     twice explain ({@link ChaosChecks#explainedByRetriedCuratorWrites}): Curator's
 * @param queuedCopies how many nodes carried each queue item, by the servers' transaction logs
 *     ({@link QueueCopies}); empty when they were not read
 */
record ChaosReport(Map<ChaosRecipe, Verdict> verdicts, Map<FaultKind, Integer> faults, Map<ChaosRecipe, String> counts,
        int events, Optional<Path> historyFile, Sessions sessions, Map<Integer, String> serverVersions,
        Map<String, ClientLibrary> clients, Map<ChaosRecipe, Map<ClientLibrary, Integer>> successes,
        List<Violation> retriedByCurator, Map<String, Integer> queuedCopies) {

    /** A report without the servers' account of the queues. */
    ChaosReport(Map<ChaosRecipe, Verdict> verdicts, Map<FaultKind, Integer> faults, Map<ChaosRecipe, String> counts,
            int events, Optional<Path> historyFile, Sessions sessions, Map<Integer, String> serverVersions,
            Map<String, ClientLibrary> clients, Map<ChaosRecipe, Map<ClientLibrary, Integer>> successes,
            List<Violation> retriedByCurator) {
        this(verdicts, faults, counts, events, historyFile, sessions, serverVersions, clients, successes,
                retriedByCurator, Map.of());
    }

    /**
     * Returns true when no violation fails the run ({@link #failing()}): violations among Curator clients only are
     * Curator's, reported but not failing it.
     */
    boolean passed() {
        return failing().isEmpty();
    }

    /**
     * Returns the violations that fail the run: those not {@linkplain #curatorOnly Curator's}, and every one of
     * a broken variant (its code is the runner's, whichever library's client ran it).
     */
    List<Violation> failing() {
        return split(false);
    }

    /** Returns the violations that are Curator's and do not fail the run. */
    List<Violation> curators() {
        return split(true);
    }

    private List<Violation> split(boolean curators) {
        List<Violation> out = new ArrayList<>();
        verdicts.forEach((recipe, verdict) -> verdict.violations().stream()
                .filter(v -> excused(recipe, v) == curators).forEach(out::add));
        if (sessions.counted()) {
            sessions.losses().stream().filter(v -> curatorOnly(v) == curators).forEach(out::add);
        }
        return out;
    }

    /** Whether a violation of {@code recipe} is Curator's: never for a broken variant. */
    boolean excused(ChaosRecipe recipe, Violation violation) {
        return !recipe.broken() && curatorOnly(violation);
    }

    /**
     * Returns the clients a violation involves: those of the events its checker marked and those its message
     * names or, when there are none (a recipe without a holder after a heal), every client in its window.
     */
    Set<String> involved(Violation violation) {
        Set<String> named = new TreeSet<>();
        violation.marked().stream().map(Event::client).filter(clients::containsKey).forEach(named::add);
        for (String client : clients.keySet()) {
            if (Pattern.compile("(?<![\\w-])" + Pattern.quote(client) + "(?![\\w-])")
                    .matcher(violation.message()).find()) {
                named.add(client);
            }
        }
        if (named.isEmpty()) {
            violation.window().stream().map(Event::client).filter(clients::containsKey).forEach(named::add);
        }
        return named;
    }

    /**
     * The clients a violation is blamed on, and why when that is not every client it involves.
     *
     * @param clients the clients blamed
     * @param why what singles them out; empty when they are every client involved
     */
    record Blame(Set<String> clients, String why) {
    }

    /** Returns the clients a violation is blamed on; see {@link #blame(Violation)}. */
    Set<String> blamed(Violation violation) {
        return blame(violation).clients();
    }

    /**
     * Blames a violation. Two holders of a lock or a leadership at once: the holders of the older tokens, when
     * each of them was told its session ended after it took the hold, before any reconnection and within one
     * session timeout of the newest grant (its node died with its session, which is how the newest holder got the
     * grant: they went on believing). A token lower than an earlier holder's: its holder, when it was told so of
     * its session within one session timeout of that grant (it believed a node that died with its session).
     * A waiter that passed a standing barrier, a double-barrier member whose enter
     * or leave returned before every member had called it: that client (the others are only named). A stale read
     * of a counter: the reader. A queue item taken twice, or consumed by two at once: see
     * {@link #queueItem}. Otherwise every client it involves.
     */
    Blame blame(Violation violation) {
        Set<String> involved = involved(violation);
        switch (violation.checker()) {
            case "barrier-blocks" -> {
                return new Blame(new TreeSet<>(violation.marked().stream().map(Event::client)
                        .filter(clients::containsKey).toList()), "the waiter that passed");
            }
            case "queue-at-most-once", "queue-exclusive" -> {
                return queueItem(violation, involved);
            }
            case "mutual-exclusion" -> {
                return staleHolders(violation, involved);
            }
            case "fencing-tokens-increase" -> {
                return staleGrant(violation, involved);
            }
            case "barrier" -> {
                // Each library decides on its own when its enter or leave returns, from the same member nodes.
                Set<String> early = new TreeSet<>(violation.marked().stream()
                        .filter(e -> e.kind() == Kind.ENTER_RETURNED || e.kind() == Kind.LEAVE_RETURNED)
                        .map(Event::client).filter(clients::containsKey).toList());
                return early.isEmpty() ? new Blame(involved, "") : new Blame(early, "the member whose call returned");
            }
            case "linearizable" -> {
                // A read from a server behind the others: the reader's doing (it did not sync first).
                List<Event> window = violation.window();
                String reader = window.isEmpty() ? "" : window.get(window.size() - 1).client();
                return violation.message().contains(Checkers.STALE_READ) && clients.containsKey(reader)
                        ? new Blame(Set.of(reader), "the reader, whose read was stale")
                        : new Blame(involved, "");
            }
            default -> {
                return new Blame(involved, "");
            }
        }
    }

    /**
     * An item taken twice, or consumed by two at once: by the servers' logs, its producer's when two nodes carried
     * it (a put queued it twice), its consumers' when one did. Without the logs, a doubled put and a node taken
     * twice look alike: the consumers and the producer share it (an item consumed by two at once with a lock path,
     * the consumers only: a put retried there is allowed to queue it twice).
     */
    private Blame queueItem(Violation violation, Set<String> involved) {
        String item = violation.marked().isEmpty() ? "" : violation.marked().get(0).name();
        String producer = ChaosQueueWorkloads.producerOf(item);
        Integer copies = queuedCopies.get(item);
        if (copies != null && copies > 1 && clients.containsKey(producer)) {
            return new Blame(Set.of(producer), "its producer: " + copies + " nodes carried it (the servers' logs)");
        }
        if (copies != null && copies == 1) {
            return new Blame(involved, "the consumers: one node carried it (the servers' logs)");
        }
        if (!violation.checker().equals("queue-at-most-once")) {
            return new Blame(involved, "");
        }
        Set<String> all = new TreeSet<>(involved);
        if (clients.containsKey(producer)) {
            all.add(producer);
        }
        return new Blame(all, all.equals(involved) ? "" : "the consumers that took it and its producer");
    }

    private Blame staleHolders(Violation violation, Set<String> involved) {
        Map<String, Event> holds = new LinkedHashMap<>(); // each client's latest hold start
        for (Event e : violation.marked()) {
            if ((e.kind() == Kind.ACQUIRED || e.kind() == Kind.BECAME_LEADER) && clients.containsKey(e.client())
                    && e.token() != History.NO_TOKEN) {
                holds.put(e.client(), e);
            }
        }
        Optional<Event> newest = holds.values().stream().max(Comparator.comparingLong(Event::token));
        if (newest.isEmpty()) {
            return new Blame(involved, "");
        }
        Set<String> stale = new TreeSet<>();
        for (Event hold : holds.values()) {
            if (hold.equals(newest.get())) {
                continue;
            }
            boolean sessionLost = violation.marked().stream().anyMatch(e -> e.client().equals(hold.client())
                    && e.seq() > hold.seq() && sessionEnd(e))
                    || sessions.endedWithoutReconnecting(hold.client(), hold.seq(), newest.get().nanos());
            if (!sessionLost) {
                return new Blame(involved, "");
            }
            stale.add(hold.client());
        }
        return holds.size() >= 2 && !stale.isEmpty()
                ? new Blame(stale, "whose session ended under an older hold they still believed")
                : new Blame(involved, "");
    }

    /** A grant whose token is not above an earlier holder's: see {@link #blame}. */
    private Blame staleGrant(Violation violation, Set<String> involved) {
        Optional<Event> later = violation.marked().stream()
                .filter(e -> e.kind() == Kind.ACQUIRED || e.kind() == Kind.BECAME_LEADER)
                .filter(e -> clients.containsKey(e.client())).max(Comparator.comparingLong(Event::seq));
        if (later.isEmpty()) {
            return new Blame(involved, "");
        }
        Event grant = later.get();
        return sessions.endedWithoutReconnecting(grant.client(), grant.seq(), grant.nanos())
                ? new Blame(Set.of(grant.client()), "whose session ended under the hold its lower token came with")
                : new Blame(involved, "");
    }

    /**
     * Returns true when the violation is Curator's: every client it is blamed on runs Curator (none: false), or
     * Curator's writes applied twice explain it.
     */
    boolean curatorOnly(Violation violation) {
        Set<String> involved = blamed(violation);
        return (!involved.isEmpty() && involved.stream().allMatch(c -> clients.get(c) == ClientLibrary.CURATOR))
                || retriedByCurator.contains(violation);
    }

    /** How many violations of each kind (involving Baton, Curator's only) the verdict shows in full. */
    private static final int SHOWN = 10;

    /** Prints the report: each recipe's verdict and counts, the faults by kind, the violations. */
    static void print(ChaosReport report, PrintStream out) {
        out.println();
        out.println("== verdict ==");
        report.verdicts().forEach((recipe, verdict) -> out.printf(Locale.ROOT, "%-20s %-5s %-70s %s%n",
                recipe.id(), verdict.violations().isEmpty() ? "PASS"
                        : verdict.violations().stream().allMatch(v -> report.excused(recipe, v)) ? "PASS*" : "FAIL",
                String.join(", ", verdict.checkers()), report.counts().get(recipe) + bySuccess(report, recipe)));
        Sessions sessions = report.sessions();
        out.printf(Locale.ROOT, "%-20s %-5s %-70s %s%n", "sessions", !sessions.counted() ? "-"
                : sessions.losses().isEmpty() ? "PASS" : "FAIL", "no-session-lost" + (sessions.counted() ? ""
                        : " (not counted: faults end sessions)"),
                sessions.losses().size() + " lost, " + sessions.clients() + " clients");
        int total = report.faults().values().stream().mapToInt(Integer::intValue).sum();
        StringBuilder kinds = new StringBuilder();
        report.faults().forEach((k, v) -> kinds.append(kinds.length() == 0 ? "" : ", ")
                .append(k.name().toLowerCase(Locale.ROOT).replace('_', '-')).append(' ').append(v));
        if (total > 0) {
            out.println("faults: " + total + " (" + kinds + ")");
        }
        StringBuilder versions = new StringBuilder();
        report.serverVersions().forEach((id, v) -> versions.append(versions.length() == 0 ? "" : ", ")
                .append(id).append('=').append(v));
        out.println("servers (srvr): " + versions);

        out.println("events checked: " + report.events());
        report.historyFile().ifPresent(f -> out.println("history: " + f.toAbsolutePath()));
        out.println("clients: " + String.join(", ", report.clients().keySet()));
        List<Violation> curatorOnly = report.curators();
        List<Violation> withBaton = report.failing();
        if (curatorOnly.isEmpty() && withBaton.isEmpty()) {
            out.println("0 violations");
            return;
        }
        if (!withBaton.isEmpty()) {
            out.println("== " + withBaton.size() + " violation(s) involving a Baton client, or of a broken variant ==");
            printBlamed(withBaton, report, out);
        }
        if (!curatorOnly.isEmpty()) {
            out.println("== " + curatorOnly.size() + " violation(s) of Curator's (PASS*: among Curator clients only,"
                    + " or explained by Curator writes applied twice; not failing the run) ==");
            printBlamed(curatorOnly, report, out);
        }
    }

    /** The successes of each library, for a mixed run; empty otherwise. */
    private static String bySuccess(ChaosReport report, ChaosRecipe recipe) {
        if (!report.clients().containsValue(ClientLibrary.CURATOR)) {
            return "";
        }
        Map<ClientLibrary, Integer> n = report.successes().getOrDefault(recipe, Map.of());
        return "; successes: baton " + n.getOrDefault(ClientLibrary.BATON, 0) + ", curator "
                + n.getOrDefault(ClientLibrary.CURATOR, 0);
    }

    /**
     * Prints the violations by checker, the history excerpts of the first {@value #SHOWN}, and each one with the
     * clients it involves and whom it is blamed on.
     */
    private static void printBlamed(List<Violation> violations, ChaosReport report, PrintStream out) {
        Map<String, Integer> byChecker = new TreeMap<>();
        violations.forEach(v -> byChecker.merge(v.checker(), 1, Integer::sum));
        out.println("by checker: " + byChecker);
        List<Violation> shown = violations.subList(0, Math.min(SHOWN, violations.size()));
        out.println(Checkers.describe(shown, report.events()));
        if (violations.size() > SHOWN) {
            out.println("(the history excerpts of the first " + SHOWN + "; every one of them below)");
        }
        for (Violation v : violations) {
            Blame blame = report.blame(v);
            out.println("  [" + v.checker() + "] " + v.message() + "\n      involves "
                    + String.join(", ", report.involved(v))
                    + (report.retriedByCurator().contains(v) ? "; explained by Curator writes applied twice"
                            : blame.why().isEmpty() ? "" : "; blamed on " + String.join(", ", blame.clients()) + ", "
                                    + blame.why()));
        }
    }

    /**
     * The clients' sessions: whether any was lost ({@link Checkers#noSessionLost()}), and when each client was told
     * its connection changed.
     *
     * @param clients how many client processes ran
     * @param losses one violation per session lost
     * @param counted whether a loss fails the run: no fault kind of the run ends sessions by design
     * @param changes every client's {@code CONNECTED} and {@code DISCONNECTED} events, in history order
     * @param timeout the clients' session timeout
     */
    record Sessions(int clients, List<Violation> losses, boolean counted, List<Event> changes, Duration timeout) {

        /** Sessions without their changes, for a report whose blame needs none. */
        Sessions(int clients, List<Violation> losses, boolean counted) {
            this(clients, losses, counted, List.of(), Duration.ZERO);
        }

        /**
         * Whether {@code client} was told its session ended (lost, or expired) after event {@code since} and before
         * it was told of any connection again, no later than one session timeout after {@code nanos}.
         */
        boolean endedWithoutReconnecting(String client, long since, long nanos) {
            for (Event e : changes) {
                if (!e.client().equals(client) || e.seq() <= since) {
                    continue;
                }
                if (e.kind() == Kind.CONNECTED || e.nanos() > nanos + timeout.toNanos()) {
                    return false;
                }
                if (sessionEnd(e)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Whether {@code e} tells its client that its session ended. */
    static boolean sessionEnd(Event e) {
        return e.kind() == Kind.DISCONNECTED && (e.detail().contains("LOST") || e.detail().contains("session expired"));
    }

    /**
     * One recipe's checkers and what they found.
     *
     * @param checkers the names of the checkers run
     * @param violations what they found
     */
    record Verdict(List<String> checkers, List<Violation> violations) {
    }
}
