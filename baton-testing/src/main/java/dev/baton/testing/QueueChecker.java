package dev.baton.testing;

import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * See {@link Checkers#queueNothingLost()}, {@link Checkers#queueEveryItemTaken()} and
 * {@link Checkers#queueAtMostOnce()}: what happened to each queue item, by name, over the whole history.
 */
final class QueueChecker implements HistoryChecker {

    /** The property checked. */
    enum Property {
        /** Every item put is done at least once; nothing is consumed that was never put. */
        NOTHING_LOST("queue-nothing-lost"),
        /** No item is taken twice. */
        AT_MOST_ONCE("queue-at-most-once"),
        /**
         * Every item put is taken at least once (consumed to the end or not), unless a client lost touch after
         * the put: a take whose answer is lost removes the item untaken.
         */
        EVERY_ITEM_TAKEN("queue-every-item-taken");

        private final String label;

        Property(String label) {
            this.label = label;
        }
    }

    private final Property property;

    QueueChecker(Property property) {
        this.property = property;
    }

    @Override
    public String name() {
        return property.label;
    }

    @Override
    public List<Violation> check(List<Event> events) {
        Map<String, Event> put = new LinkedHashMap<>();
        Map<String, Event> firstTaken = new LinkedHashMap<>();
        Set<String> done = new HashSet<>();
        List<Violation> out = new ArrayList<>();
        for (Event e : events) {
            switch (e.kind()) {
                case ITEM_PUT -> put.putIfAbsent(e.name(), e);
                case ITEM_TAKEN -> {
                    Event first = firstTaken.putIfAbsent(e.name(), e);
                    if (property == Property.NOTHING_LOST && !put.containsKey(e.name())) {
                        out.add(Excerpts.violation(name(), e.client() + " took queue item '" + e.name()
                                + "' at #" + e.seq() + ", which nobody put before", events, e.seq(), e.seq(),
                                Set.of(e.seq())));
                    }
                    if (property == Property.AT_MOST_ONCE && first != null) {
                        out.add(Excerpts.violation(name(), "queue item '" + e.name() + "' was taken twice: by "
                                + first.client() + " at #" + first.seq() + " and by " + e.client() + " at #"
                                + e.seq(), events, first.seq(), e.seq(), Set.of(first.seq(), e.seq())));
                    }
                }
                case ITEM_DONE -> done.add(e.name());
                default -> {
                }
            }
        }
        if (property == Property.EVERY_ITEM_TAKEN) {
            long lastDisconnection = events.stream().filter(e -> e.kind() == Kind.DISCONNECTED)
                    .mapToLong(Event::seq).max().orElse(-1);
            for (Event p : put.values()) {
                if (!firstTaken.containsKey(p.name()) && p.seq() > lastDisconnection) {
                    out.add(Excerpts.violation(name(), "queue item '" + p.name() + "' put by " + p.client() + " at #"
                            + p.seq() + " was never taken", events, p.seq(), p.seq(), Set.of(p.seq())));
                }
            }
        }
        if (property == Property.NOTHING_LOST) {
            for (Event p : put.values()) {
                if (!done.contains(p.name())) {
                    Event taken = firstTaken.get(p.name());
                    long to = taken == null ? p.seq() : taken.seq();
                    Set<Long> marked = new HashSet<>(Set.of(p.seq()));
                    if (taken != null) {
                        marked.add(taken.seq());
                    }
                    out.add(Excerpts.violation(name(), "queue item '" + p.name() + "' put by " + p.client()
                            + " at #" + p.seq() + " was never consumed to the end"
                            + (taken == null ? " (nobody took it)" : " (taken by " + taken.client() + " at #"
                                    + taken.seq() + ", never done)"), events, p.seq(), to, marked));
                }
            }
        }
        return out;
    }
}
