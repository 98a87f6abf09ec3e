package dev.baton.testing;

import dev.baton.testing.History.Event;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** See {@link Checkers#mutualExclusion(java.time.Duration)}. */
final class MutualExclusionChecker implements HistoryChecker {

    private final long resumeGraceNanos;

    MutualExclusionChecker(long resumeGraceNanos) {
        this.resumeGraceNanos = resumeGraceNanos;
    }

    @Override
    public String name() {
        return "mutual-exclusion";
    }

    @Override
    public List<Violation> check(List<Event> events) {
        HoldTracker tracker = new HoldTracker(resumeGraceNanos);
        Set<HoldTracker.Key> inConflict = new HashSet<>();
        List<Violation> out = new ArrayList<>();
        Event previous = null;
        for (Event e : events) {
            for (long t = tracker.nextGraceEnd(); t <= e.nanos(); t = tracker.nextGraceEnd()) {
                Set<HoldTracker.Key> changed = tracker.endGraces(t);
                evaluate(tracker, changed, inConflict, events, previous, t, out);
            }
            evaluate(tracker, tracker.apply(e), inConflict, events, e, e.nanos(), out);
            previous = e;
        }
        return out;
    }

    private void evaluate(HoldTracker tracker, Set<HoldTracker.Key> changed, Set<HoldTracker.Key> inConflict,
            List<Event> events, Event trigger, long now, List<Violation> out) {
        for (HoldTracker.Key key : changed) {
            List<Map.Entry<String, HoldTracker.Hold>> holders = tracker.effectiveHolders(key);
            if (holders.size() < 2) {
                inConflict.remove(key);
                continue;
            }
            if (!inConflict.add(key) || trigger == null) {
                continue; // already reported this episode
            }
            Set<String> clients = holders.stream().map(Map.Entry::getKey).collect(Collectors.toSet());
            long from = holders.get(0).getValue().start.seq();
            Set<Long> marked = new HashSet<>();
            for (Event w : Excerpts.window(events, from, trigger.seq())) {
                boolean mine = clients.contains(w.client());
                if (mine && (key.equals(HoldTracker.keyOf(w)) || HoldTracker.isClientWide(w.kind()))) {
                    marked.add(w.seq());
                }
            }
            marked.add(trigger.seq());
            String who = holders.stream()
                    .map(h -> h.getKey() + " (token " + token(h.getValue().start) + ", since #"
                            + h.getValue().start.seq() + ")")
                    .collect(Collectors.joining(" and "));
            String when = trigger.nanos() == now
                    ? "after #" + trigger.seq() + " at " + Excerpts.ms(now)
                    : "at " + Excerpts.ms(now) + " (end of the grace after a resume; last event #" + trigger.seq()
                            + ")";
            out.add(Excerpts.violation(name(),
                    key + " has " + holders.size() + " holders that are connected, not paused and believe they"
                            + " hold it: " + who + ", " + when,
                    events, from, trigger.seq(), marked));
        }
    }

    private static String token(Event e) {
        return e.hasToken() ? Long.toString(e.token()) : "none";
    }
}
