package dev.baton.testing;

import dev.baton.testing.History.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

/** See {@link Checkers#barrier(ToIntFunction)}. */
final class BarrierChecker implements HistoryChecker {

    private final ToIntFunction<String> memberQty;

    BarrierChecker(ToIntFunction<String> memberQty) {
        this.memberQty = memberQty;
    }

    @Override
    public String name() {
        return "barrier";
    }

    /** Calls of one phase (enter or leave) of one barrier: per round, the first call of each member. */
    private static final class Phase {
        final Map<String, Integer> calls = new HashMap<>();
        final Map<String, Integer> returns = new HashMap<>();
        final List<Map<String, Event>> rounds = new ArrayList<>();

        Map<String, Event> round(int r) {
            while (rounds.size() <= r) {
                rounds.add(new LinkedHashMap<>());
            }
            return rounds.get(r);
        }
    }

    @Override
    public List<Violation> check(List<Event> events) {
        // Members whose enter of a round passed: "name client round".
        Set<String> passed = new HashSet<>();
        Map<String, Integer> passes = new HashMap<>();
        for (Event e : events) {
            if (e.kind() == History.Kind.ENTER_RETURNED) {
                int round = passes.merge(e.name() + " " + e.client(), 1, Integer::sum) - 1;
                passed.add(e.name() + " " + e.client() + " " + round);
            }
        }
        Map<String, Phase> enter = new HashMap<>();
        Map<String, Phase> leave = new HashMap<>();
        Map<String, Long> outOfTouch = new HashMap<>(); // client -> seq of its last DISCONNECTED or PAUSED
        HoldTracker contact = new HoldTracker(0); // only for who is in touch now
        List<Violation> out = new ArrayList<>();
        for (Event e : events) {
            switch (e.kind()) {
                case ENTER_CALLED -> called(enter.computeIfAbsent(e.name(), n -> new Phase()), e);
                case LEAVE_CALLED -> called(leave.computeIfAbsent(e.name(), n -> new Phase()), e);
                case ENTER_RETURNED -> returned(enter.computeIfAbsent(e.name(), n -> new Phase()), e, "enter",
                        Set.of(), events, out);
                case LEAVE_RETURNED -> {
                    Phase leaving = leave.computeIfAbsent(e.name(), n -> new Phase());
                    int round = leaving.returns.getOrDefault(e.client(), 0);
                    Set<String> excused = new HashSet<>();
                    enter.computeIfAbsent(e.name(), n -> new Phase()).round(round).forEach((member, call) -> {
                        boolean neverPassed = !passed.contains(e.name() + " " + member + " " + round);
                        boolean lostTouch = outOfTouch.getOrDefault(member, -1L) > call.seq()
                                || !contact.inTouch(member);
                        if (neverPassed || lostTouch) {
                            excused.add(member);
                        }
                    });
                    returned(leaving, e, "leave", excused, events, out);
                }
                case DISCONNECTED, PAUSED -> {
                    outOfTouch.put(e.client(), e.seq());
                    contact.apply(e);
                }
                case CONNECTED, RESUMED, FAULT_HEALED -> contact.apply(e);
                default -> {
                }
            }
        }
        return out;
    }

    private static void called(Phase phase, Event e) {
        int round = phase.calls.merge(e.client(), 1, Integer::sum) - 1;
        phase.round(round).put(e.client(), e);
    }

    private void returned(Phase phase, Event e, String what, Set<String> excused, List<Event> events,
            List<Violation> out) {
        int round = phase.returns.merge(e.client(), 1, Integer::sum) - 1;
        int qty = memberQty.applyAsInt(e.name());
        Map<String, Event> callers = phase.round(round);
        Set<String> counted = new HashSet<>(callers.keySet());
        counted.addAll(excused);
        if (counted.size() >= qty) {
            return;
        }
        long from = callers.values().stream().mapToLong(Event::seq).min().orElse(e.seq());
        Set<Long> marked = new HashSet<>();
        callers.values().forEach(c -> marked.add(c.seq()));
        marked.add(e.seq());
        out.add(Excerpts.violation(name(),
                "barrier '" + e.name() + "' round " + (round + 1) + ": " + e.client() + "'s " + what
                        + " returned at #" + e.seq() + " when only " + callers.size() + " of " + qty
                        + " members had called " + what + " " + callers.keySet(),
                events, from, e.seq(), marked));
    }
}
