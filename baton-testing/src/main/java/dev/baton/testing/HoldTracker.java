package dev.baton.testing;

import dev.baton.testing.History.Event;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Replays lock, leadership and queue-item events (a consumer holds an item while it consumes it) and tells, at each point of a history, which clients <em>effectively</em>
 * hold each lock/leadership: they believe they hold it (an open hold), they are connected, not paused, and not
 * in the grace period after a resume. The semantics are documented on {@link Checkers#mutualExclusion()}.
 *
 * <p>Not thread-safe: one instance per check.
 */
final class HoldTracker {

    /** Lock and leadership names live in separate name spaces. */
    enum Family {
        LOCK("lock"), LEADERSHIP("leadership"), ITEM("queue item");

        private final String label;

        Family(String label) {
            this.label = label;
        }
    }

    /** A lock or leadership. */
    record Key(Family family, String name) {
        @Override
        public String toString() {
            return family.label + " '" + name + "'";
        }
    }

    /** An open hold: its start event, and the end of its grace after a resume ({@code Long.MIN_VALUE}: none). */
    static final class Hold {
        final Event start;
        long graceUntil = Long.MIN_VALUE;

        Hold(Event start) {
            this.start = start;
        }
    }

    private static final class ClientState {
        boolean connected = true;
        boolean paused;
        /** Faults marked on this client (a DISCONNECTED naming them) and not healed yet: no CONNECTED counts. */
        final Set<String> cutOffBy = new HashSet<>();
        final Map<Key, Hold> holds = new LinkedHashMap<>();
    }

    private final long resumeGraceNanos;
    private final Map<String, ClientState> clients = new LinkedHashMap<>();
    private final Set<Key> keys = new LinkedHashSet<>();

    HoldTracker(long resumeGraceNanos) {
        this.resumeGraceNanos = resumeGraceNanos;
    }

    /** Returns the key an event opens or closes, or null if it is not a lock/leadership event. */
    static @Nullable Key keyOf(Event e) {
        return switch (e.kind()) {
            case ACQUIRED, RELEASED, LOST -> new Key(Family.LOCK, e.name());
            case BECAME_LEADER, LOST_LEADERSHIP -> new Key(Family.LEADERSHIP, e.name());
            case ITEM_TAKEN, ITEM_DONE, ITEM_DROPPED -> new Key(Family.ITEM, e.name());
            default -> null;
        };
    }

    /** Returns true if the event changes what its client is (connection, pause), not one hold. */
    static boolean isClientWide(History.Kind kind) {
        return switch (kind) {
            case CONNECTED, DISCONNECTED, PAUSED, RESUMED -> true;
            default -> false;
        };
    }

    /** Returns every key seen so far, in order of first appearance. */
    Set<Key> keys() {
        return keys;
    }

    /** Returns the earliest grace end still pending, or {@code Long.MAX_VALUE}. */
    long nextGraceEnd() {
        long min = Long.MAX_VALUE;
        for (ClientState c : clients.values()) {
            for (Hold h : c.holds.values()) {
                if (h.graceUntil != Long.MIN_VALUE && h.graceUntil < min) {
                    min = h.graceUntil;
                }
            }
        }
        return min;
    }

    /** Ends every grace that ends at or before {@code nanos}; returns the keys whose holders may have changed. */
    Set<Key> endGraces(long nanos) {
        Set<Key> changed = new LinkedHashSet<>();
        for (ClientState c : clients.values()) {
            for (Map.Entry<Key, Hold> h : c.holds.entrySet()) {
                if (h.getValue().graceUntil != Long.MIN_VALUE && h.getValue().graceUntil <= nanos) {
                    h.getValue().graceUntil = Long.MIN_VALUE;
                    changed.add(h.getKey());
                }
            }
        }
        return changed;
    }

    /** Applies one event; returns the keys whose effective holders may have changed. */
    Set<Key> apply(Event e) {
        if (e.kind() == History.Kind.FAULT_HEALED) {
            clients.values().forEach(c -> c.cutOffBy.remove(e.name()));
            return Set.of(); // connected again at its next CONNECTED
        }
        Key key = keyOf(e);
        ClientState c = clients.computeIfAbsent(e.client(), k -> new ClientState());
        if (key != null) {
            keys.add(key);
            switch (e.kind()) {
                case ACQUIRED, BECAME_LEADER, ITEM_TAKEN -> c.holds.put(key, new Hold(e));
                default -> c.holds.remove(key);
            }
            return Set.of(key);
        }
        switch (e.kind()) {
            case CONNECTED -> {
                if (!c.cutOffBy.isEmpty()) {
                    return Set.of(); // a session the fault is ending, or cut off: not in touch
                }
                c.connected = true;
                // The server answered: what the client still believes is now backed by a live session.
                c.holds.values().forEach(h -> h.graceUntil = Long.MIN_VALUE);
            }
            case DISCONNECTED -> {
                c.connected = false;
                if (!e.name().isEmpty()) {
                    c.cutOffBy.add(e.name());
                }
            }
            case PAUSED -> c.paused = true;
            case RESUMED -> {
                c.paused = false;
                if (resumeGraceNanos > 0) {
                    c.holds.values().forEach(h -> h.graceUntil = e.nanos() + resumeGraceNanos);
                }
            }
            default -> {
                return Set.of();
            }
        }
        return Set.copyOf(c.holds.keySet());
    }

    /**
     * Returns true if the client is connected and not paused now (as far as the events applied so far tell; a
     * client not seen yet is).
     */
    boolean inTouch(String client) {
        ClientState c = clients.get(client);
        return c == null || (c.connected && !c.paused);
    }

    /**
     * Returns the clients that effectively hold {@code key} now, with their holds, in order of hold start.
     */
    List<Map.Entry<String, Hold>> effectiveHolders(Key key) {
        List<Map.Entry<String, Hold>> out = new ArrayList<>();
        for (Map.Entry<String, ClientState> c : clients.entrySet()) {
            ClientState s = c.getValue();
            Hold h = s.holds.get(key);
            if (h != null && s.connected && !s.paused && h.graceUntil == Long.MIN_VALUE) {
                out.add(Map.entry(c.getKey(), h));
            }
        }
        out.sort(Comparator.comparingLong(en -> en.getValue().start.seq()));
        return out;
    }
}
