package dev.baton.testing;

import dev.baton.testing.History.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** See {@link Checkers#fencingTokensIncrease(String...)}. */
final class FencingTokenChecker implements HistoryChecker {

    /** The names checked; empty: all. */
    private final Set<String> names;

    FencingTokenChecker(Set<String> names) {
        this.names = names;
    }

    @Override
    public String name() {
        return "fencing-tokens-increase";
    }

    @Override
    public List<Violation> check(List<Event> events) {
        Map<HoldTracker.Key, Event> highest = new HashMap<>();
        Map<HoldTracker.Key, Event> lastAcquire = new HashMap<>();
        List<Violation> out = new ArrayList<>();
        for (Event e : events) {
            if ((e.kind() != History.Kind.ACQUIRED && e.kind() != History.Kind.BECAME_LEADER)
                    || (!names.isEmpty() && !names.contains(e.name()))) {
                continue;
            }
            HoldTracker.Key key = HoldTracker.keyOf(e);
            Event previous = lastAcquire.put(key, e);
            if (!e.hasToken()) {
                continue;
            }
            Event max = highest.get(key);
            if (max == null || e.token() > max.token()) {
                highest.put(key, e);
                continue;
            }
            boolean resumedHold = e.token() == max.token() && previous != null && previous.token() == e.token()
                    && previous.client().equals(e.client());
            if (resumedHold) {
                continue; // the same holder regaining the same node (once or again), nobody in between
            }
            out.add(Excerpts.violation(name(),
                    key + ": holder " + e.client() + " got token " + e.token() + " at #" + e.seq()
                            + ", not greater than token " + max.token() + " of earlier holder " + max.client()
                            + " at #" + max.seq(),
                    events, max.seq(), e.seq(), Set.of(max.seq(), e.seq())));
        }
        return out;
    }
}
