package dev.baton.testing;

import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import java.util.ArrayList;
import java.util.List;

/** Builds hand-made histories with chosen times, for checker tests. */
final class Script {

    private final List<Event> events = new ArrayList<>();

    /** Appends an event at {@code ms} milliseconds. */
    Script at(long ms, String client, Kind kind, String name, long token) {
        events.add(new Event(events.size(), ms * 1_000_000L, client, kind, name, token, ""));
        return this;
    }

    /** Appends an event without token at {@code ms} milliseconds. */
    Script at(long ms, String client, Kind kind, String name) {
        return at(ms, client, kind, name, History.NO_TOKEN);
    }

    /** Appends an operation event ({@code OP_*}) on {@code object} with {@code detail} at {@code ms} milliseconds. */
    Script op(long ms, String client, Kind kind, String object, String detail) {
        events.add(new Event(events.size(), ms * 1_000_000L, client, kind, object, History.NO_TOKEN, detail));
        return this;
    }

    /** Appends a client-wide event (connection, pause) at {@code ms} milliseconds. */
    Script at(long ms, String client, Kind kind) {
        return at(ms, client, kind, "", History.NO_TOKEN);
    }

    /** Appends a fault event at {@code ms} milliseconds. */
    Script fault(long ms, Kind kind, String id) {
        return at(ms, "", kind, id, History.NO_TOKEN);
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    /** Returns the sequence numbers of the events of {@code v}'s window. */
    static List<Long> seqs(Violation v) {
        return v.window().stream().map(Event::seq).toList();
    }
}
