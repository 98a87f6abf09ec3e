package dev.baton.testing;

import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * See {@link Checkers#discoveryFindsLive()}: every query of a service finds every instance that was live for the
 * whole query. Instance ids are the owners' client names.
 */
final class DiscoveryChecker implements HistoryChecker {

    @Override
    public String name() {
        return "discovery-finds-live";
    }

    @Override
    public List<Violation> check(List<Event> events) {
        Map<String, Event> live = new HashMap<>(); // owner -> the ACQUIRED that made it live
        Set<String> confirming = new HashSet<>(); // owners whose confirmation began and nothing ended since
        Set<String> outOfTouch = new HashSet<>(); // disconnected or paused, not connected or resumed since
        Map<String, String> cutOffBy = new HashMap<>(); // owner -> the fault that cut it off, until healed
        Map<String, Event> invoked = new HashMap<>(); // reader -> its open query
        Map<String, Map<String, Event>> mustFind = new HashMap<>(); // reader -> owners live since its query began
        List<Violation> out = new ArrayList<>();
        for (Event e : events) {
            switch (e.kind()) {
                case ENTER_CALLED -> {
                    if (!outOfTouch.contains(e.client())) {
                        confirming.add(e.client());
                    }
                }
                case CONNECTED, RESUMED -> {
                    if (!cutOffBy.containsKey(e.client())) {
                        outOfTouch.remove(e.client());
                    }
                }
                case FAULT_HEALED -> cutOffBy.values().removeIf(e.name()::equals);
                case ACQUIRED -> {
                    if (confirming.remove(e.client())) {
                        live.putIfAbsent(e.client(), e);
                    }
                }
                case RELEASED, DISCONNECTED, PAUSED -> {
                    live.remove(e.client());
                    confirming.remove(e.client());
                    if (e.kind() != Kind.RELEASED) {
                        outOfTouch.add(e.client());
                    }
                    if (e.kind() == Kind.DISCONNECTED && !e.name().isEmpty()) {
                        cutOffBy.put(e.client(), e.name()); // a fault's cut-off: out of touch until it heals
                    }
                    mustFind.values().forEach(owners -> owners.remove(e.client()));
                }
                case OP_INVOKED -> {
                    invoked.put(e.client(), e);
                    mustFind.put(e.client(), new LinkedHashMap<>(live));
                }
                case OP_OK -> {
                    Event call = invoked.remove(e.client());
                    Map<String, Event> owners = mustFind.remove(e.client());
                    if (call == null || owners == null) {
                        break;
                    }
                    Set<String> found = found(e.detail());
                    for (Event owner : owners.values()) {
                        if (!found.contains(owner.client())) {
                            out.add(Excerpts.violation(name(), e.client() + "'s query (#" + call.seq() + " to #"
                                    + e.seq() + ") missed " + owner.client() + ", live since #" + owner.seq()
                                    + "; it found " + found, events, owner.seq(), e.seq(),
                                    Set.of(owner.seq(), call.seq(), e.seq())));
                        }
                    }
                }
                case OP_FAILED, OP_UNKNOWN -> {
                    invoked.remove(e.client());
                    mustFind.remove(e.client());
                }
                default -> {
                }
            }
        }
        return out;
    }

    /** The ids of an {@code OP_OK}'s detail, {@code "query => a,b,c"}. */
    private static Set<String> found(String detail) {
        int arrow = detail.indexOf("=> ");
        String ids = arrow < 0 ? "" : detail.substring(arrow + 3).strip();
        return ids.isEmpty() ? Set.of() : new HashSet<>(Arrays.asList(ids.split(",", -1)));
    }
}
