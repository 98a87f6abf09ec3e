package dev.baton.testing;

import dev.baton.testing.History.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * See {@link Checkers#barrierBlocks()}: no waiter passes a barrier that stands. Each barrier name is raised once
 * ({@code ACQUIRED}, recorded once the barrier node exists) and lowered once ({@code RELEASED}, recorded before the
 * removal is sent); a waiter's {@code ENTER_CALLED} is answered by its next {@code ENTER_RETURNED} on the same name.
 */
final class BarrierBlockChecker implements HistoryChecker {

    @Override
    public String name() {
        return "barrier-blocks";
    }

    @Override
    public List<Violation> check(List<Event> events) {
        Map<String, Event> raised = new HashMap<>();
        Map<String, Event> lowered = new HashMap<>();
        Map<String, Event> waiting = new HashMap<>(); // client + name -> its open ENTER_CALLED
        List<Violation> out = new ArrayList<>();
        for (Event e : events) {
            String key = e.client() + " " + e.name();
            switch (e.kind()) {
                case ACQUIRED -> raised.putIfAbsent(e.name(), e);
                case RELEASED -> lowered.putIfAbsent(e.name(), e);
                case ENTER_CALLED -> waiting.put(key, e);
                case ENTER_RETURNED -> {
                    Event called = waiting.remove(key);
                    Event up = raised.get(e.name());
                    if (called != null && up != null && up.seq() < called.seq() && !lowered.containsKey(e.name())) {
                        out.add(Excerpts.violation(name(), e.client() + " passed barrier '" + e.name() + "' at #"
                                + e.seq() + " while it stood: " + up.client() + " raised it at #" + up.seq()
                                + " and had not lowered it; the wait began at #" + called.seq(), events, up.seq(),
                                e.seq(), Set.of(called.seq(), e.seq())));
                    }
                }
                default -> {
                }
            }
        }
        return out;
    }
}
