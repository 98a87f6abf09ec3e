package dev.baton.testing;

import dev.baton.testing.History.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** See {@link Checkers#noStaleTokenAccepted()}. */
final class StaleTokenChecker implements HistoryChecker {

    @Override
    public String name() {
        return "no-stale-token-accepted";
    }

    @Override
    public List<Violation> check(List<Event> events) {
        Map<String, Event> highest = new HashMap<>();
        List<Violation> out = new ArrayList<>();
        for (Event e : events) {
            if (e.kind() != History.Kind.TOKEN_USED || !e.hasToken()) {
                continue;
            }
            Event max = highest.get(e.name());
            if (max == null || e.token() >= max.token()) {
                if (max == null || e.token() > max.token()) {
                    highest.put(e.name(), e);
                }
                continue;
            }
            out.add(Excerpts.violation(name(),
                    "resource '" + e.name() + "' accepted stale token " + e.token() + " from " + e.client() + " at #"
                            + e.seq() + " after accepting token " + max.token() + " from " + max.client() + " at #"
                            + max.seq(),
                    events, max.seq(), e.seq(), Set.of(max.seq(), e.seq())));
        }
        return out;
    }
}
