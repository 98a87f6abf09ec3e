package dev.baton.testing;

import dev.baton.testing.History.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** See {@link Checkers#noSessionLost()}. */
final class SessionLossChecker implements HistoryChecker {

    private static final Pattern SESSION = Pattern.compile("session 0x([0-9a-fA-F]+)");

    @Override
    public String name() {
        return "no-session-lost";
    }

    @Override
    public List<Violation> check(List<Event> events) {
        List<Violation> out = new ArrayList<>();
        Map<String, Event> lastConnected = new HashMap<>();
        Map<String, Event> lastSession = new HashMap<>();
        for (Event e : events) {
            if (e.client().isEmpty()) {
                continue;
            }
            if (e.kind() == History.Kind.DISCONNECTED && e.name().isEmpty() && e.detail().startsWith("LOST")) {
                Event from = lastConnected.getOrDefault(e.client(), e);
                out.add(Excerpts.violation(name(), "client " + e.client() + " lost its session at #" + e.seq()
                        + " (" + Excerpts.ms(e.nanos()) + "): " + e.detail(), events, from.seq(), e.seq(),
                        Set.of(e.seq())));
                lastSession.remove(e.client()); // the new session that follows is this loss, not another one
            } else if (e.kind() == History.Kind.CONNECTED) {
                lastConnected.put(e.client(), e);
                Optional<String> session = session(e);
                if (session.isEmpty()) {
                    continue;
                }
                Event before = lastSession.put(e.client(), e);
                if (before != null && !session(before).equals(session)) {
                    out.add(Excerpts.violation(name(), "client " + e.client() + " is on session 0x" + session.get()
                            + " at #" + e.seq() + " after session 0x" + session(before).orElseThrow() + " at #"
                            + before.seq() + ", with no LOST told", events, before.seq(), e.seq(),
                            Set.of(before.seq(), e.seq())));
                }
            }
        }
        return out;
    }

    private static Optional<String> session(Event e) {
        Matcher m = SESSION.matcher(e.detail());
        return m.find() ? Optional.of(m.group(1).toLowerCase(java.util.Locale.ROOT)) : Optional.empty();
    }
}
