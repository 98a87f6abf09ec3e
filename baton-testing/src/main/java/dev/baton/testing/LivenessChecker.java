package dev.baton.testing;

import dev.baton.testing.History.Event;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** See {@link Checkers#liveness(java.time.Duration, String...)}. */
final class LivenessChecker implements HistoryChecker {

    private final long boundNanos;
    private final long resumeGraceNanos;
    private final Set<String> names;

    LivenessChecker(long boundNanos, long resumeGraceNanos, Set<String> names) {
        this.boundNanos = boundNanos;
        this.resumeGraceNanos = resumeGraceNanos;
        this.names = names;
    }

    @Override
    public String name() {
        return "liveness";
    }

    /** A heal after which no fault was active, waiting for a holder of each key. */
    private static final class Pending {
        final Event heal;
        final long deadline;
        final Set<HoldTracker.Key> waiting;

        Pending(Event heal, long deadline, Set<HoldTracker.Key> waiting) {
            this.heal = heal;
            this.deadline = deadline;
            this.waiting = waiting;
        }
    }

    @Override
    public List<Violation> check(List<Event> events) {
        HoldTracker tracker = new HoldTracker(resumeGraceNanos);
        Set<String> activeFaults = new HashSet<>();
        Set<HoldTracker.Key> everHeld = new LinkedHashSet<>();
        List<Violation> out = new ArrayList<>();
        Pending pending = null;
        Event previous = null;
        for (Event e : events) {
            for (long t = tracker.nextGraceEnd(); t <= e.nanos(); t = tracker.nextGraceEnd()) {
                pending = expire(pending, t, previous, events, out);
                tracker.endGraces(t);
                satisfy(pending, tracker);
            }
            pending = expire(pending, e.nanos(), previous, events, out);
            if (e.kind() == History.Kind.FAULT_INJECTED) {
                activeFaults.add(e.name());
                pending = null; // a new fault before the bound: this heal is not a quiet point
            }
            tracker.apply(e);
            if (e.kind() == History.Kind.ACQUIRED || e.kind() == History.Kind.BECAME_LEADER) {
                everHeld.add(HoldTracker.keyOf(e));
            }
            if (e.kind() == History.Kind.FAULT_HEALED) {
                activeFaults.remove(e.name());
                if (activeFaults.isEmpty()) {
                    Set<HoldTracker.Key> scope = new LinkedHashSet<>();
                    for (HoldTracker.Key k : names.isEmpty() ? everHeld : tracker.keys()) {
                        if (names.isEmpty() || names.contains(k.name())) {
                            scope.add(k);
                        }
                    }
                    if (!names.isEmpty()) {
                        for (String n : names) {
                            if (scope.stream().noneMatch(k -> k.name().equals(n))) {
                                scope.add(new HoldTracker.Key(HoldTracker.Family.LOCK, n));
                            }
                        }
                    }
                    pending = new Pending(e, e.nanos() + boundNanos, scope);
                }
            }
            satisfy(pending, tracker);
            previous = e;
        }
        if (pending != null && !pending.waiting.isEmpty() && previous != null) {
            report(pending, previous, events, out,
                    " (the history ends " + Excerpts.ms(previous.nanos() - pending.heal.nanos())
                            + " after the heal, before the bound)");
        }
        return out;
    }

    private static void satisfy(@Nullable Pending pending, HoldTracker tracker) {
        if (pending != null) {
            pending.waiting.removeIf(k -> !tracker.effectiveHolders(k).isEmpty());
        }
    }

    private @Nullable Pending expire(@Nullable Pending pending, long now, @Nullable Event previous,
            List<Event> events, List<Violation> out) {
        if (pending == null || now <= pending.deadline) {
            return pending;
        }
        if (!pending.waiting.isEmpty()) {
            // A heal is pending only from the end of the step of its event, which is then the previous one.
            report(pending, Objects.requireNonNull(previous, "previous"), events, out, "");
        }
        return null;
    }

    private void report(Pending pending, Event last, List<Event> events, List<Violation> out, String note) {
        String keys = pending.waiting.stream().map(Object::toString).collect(Collectors.joining(", "));
        out.add(Excerpts.violation(name(),
                "no connected, unpaused holder of " + keys + " within " + Excerpts.ms(boundNanos)
                        + " after the faults healed at #" + pending.heal.seq() + " (" + Excerpts.ms(
                        pending.heal.nanos()) + ")" + note,
                events, pending.heal.seq(), last.seq(), Set.of(pending.heal.seq())));
    }
}
