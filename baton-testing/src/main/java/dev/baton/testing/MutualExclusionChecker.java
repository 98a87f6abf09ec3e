package dev.baton.testing;

import dev.baton.testing.History.Event;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * See {@link Checkers#mutualExclusion(java.time.Duration)}, {@link Checkers#atMostHolders(int, java.time.Duration)}
 * and {@link Checkers#readWriteExclusion(String, String)}: one replay of the holds, with a {@link Rule} that says
 * which effective holders are too many.
 */
final class MutualExclusionChecker implements HistoryChecker {

    /** Which effective holders conflict. Conflicts are reported once per episode, and episodes are per key. */
    interface Rule {
        /** Returns the checker's name. */
        String name();

        /** Returns the episode key a change of {@code key} may start or end a conflict of, or null if none. */
        HoldTracker.@Nullable Key episodeOf(HoldTracker.Key key);

        /** Returns true if events about {@code key} belong to the episode of {@code episode} (for the excerpt). */
        default boolean covers(HoldTracker.Key episode, HoldTracker.Key key) {
            return episode.equals(key);
        }

        /** Returns the conflicting effective holders of the episode now, ordered by hold start; empty if none. */
        List<Map.Entry<String, HoldTracker.Hold>> conflicting(HoldTracker tracker, HoldTracker.Key episode);

        /** Describes a conflict of {@code count} holders, e.g. "lock 'x' has 2 holders". */
        String describe(HoldTracker.Key episode, int count);
    }

    /** At most {@code max} effective holders of each key; 1 is mutual exclusion. */
    static Rule atMost(int max) {
        return new Rule() {
            @Override
            public String name() {
                return max == 1 ? "mutual-exclusion" : "at-most-" + max + "-holders";
            }

            @Override
            public HoldTracker.@Nullable Key episodeOf(HoldTracker.Key key) {
                return key;
            }

            @Override
            public List<Map.Entry<String, HoldTracker.Hold>> conflicting(HoldTracker tracker, HoldTracker.Key key) {
                List<Map.Entry<String, HoldTracker.Hold>> holders = tracker.effectiveHolders(key);
                return holders.size() > max ? holders : List.of();
            }

            @Override
            public String describe(HoldTracker.Key key, int count) {
                return key + " has " + count + " holders" + (max == 1 ? "" : " (at most " + max + " allowed)");
            }
        };
    }

    /** Each queue item is consumed by at most one effective consumer at a time; locks are not looked at. */
    static Rule itemExclusion() {
        return new Rule() {
            @Override
            public String name() {
                return "queue-exclusive";
            }

            @Override
            public HoldTracker.@Nullable Key episodeOf(HoldTracker.Key key) {
                return key.family() == HoldTracker.Family.ITEM ? key : null;
            }

            @Override
            public List<Map.Entry<String, HoldTracker.Hold>> conflicting(HoldTracker tracker, HoldTracker.Key key) {
                List<Map.Entry<String, HoldTracker.Hold>> holders = tracker.effectiveHolders(key);
                return holders.size() > 1 ? holders : List.of();
            }

            @Override
            public String describe(HoldTracker.Key key, int count) {
                return key + " is being consumed by " + count + " consumers";
            }
        };
    }

    /**
     * Lock {@code write} is exclusive of every other client's hold of {@code write} or {@code read}; a client that
     * holds both (a downgrade) conflicts with nobody by that alone.
     */
    static Rule readWrite(String write, String read) {
        HoldTracker.Key writeKey = new HoldTracker.Key(HoldTracker.Family.LOCK, write);
        HoldTracker.Key readKey = new HoldTracker.Key(HoldTracker.Family.LOCK, read);
        return new Rule() {
            @Override
            public String name() {
                return "read-write-exclusion";
            }

            @Override
            public HoldTracker.@Nullable Key episodeOf(HoldTracker.Key key) {
                return key.equals(writeKey) || key.equals(readKey) ? writeKey : null;
            }

            @Override
            public boolean covers(HoldTracker.Key episode, HoldTracker.Key key) {
                return key.equals(writeKey) || key.equals(readKey);
            }

            @Override
            public List<Map.Entry<String, HoldTracker.Hold>> conflicting(HoldTracker tracker, HoldTracker.Key key) {
                List<Map.Entry<String, HoldTracker.Hold>> writers = tracker.effectiveHolders(writeKey);
                if (writers.isEmpty()) {
                    return List.of();
                }
                Set<String> writing = writers.stream().map(Map.Entry::getKey).collect(Collectors.toSet());
                List<Map.Entry<String, HoldTracker.Hold>> all = new ArrayList<>(writers);
                tracker.effectiveHolders(readKey).stream().filter(r -> !writing.contains(r.getKey()))
                        .forEach(all::add);
                if (all.size() < 2) {
                    return List.of();
                }
                all.sort(Comparator.comparingLong(h -> h.getValue().start.seq()));
                return all;
            }

            @Override
            public String describe(HoldTracker.Key key, int count) {
                return "write " + writeKey + " and read " + readKey + " have " + count + " holders at once";
            }
        };
    }

    private final long resumeGraceNanos;
    private final Rule rule;

    MutualExclusionChecker(long resumeGraceNanos, Rule rule) {
        this.resumeGraceNanos = resumeGraceNanos;
        this.rule = rule;
    }

    @Override
    public String name() {
        return rule.name();
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
            List<Event> events, @Nullable Event trigger, long now, List<Violation> out) {
        Set<HoldTracker.Key> episodes = new LinkedHashSet<>();
        for (HoldTracker.Key key : changed) {
            HoldTracker.Key episode = rule.episodeOf(key);
            if (episode != null) {
                episodes.add(episode);
            }
        }
        for (HoldTracker.Key key : episodes) {
            List<Map.Entry<String, HoldTracker.Hold>> holders = rule.conflicting(tracker, key);
            if (holders.isEmpty()) {
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
                HoldTracker.Key about = HoldTracker.keyOf(w);
                if (mine && ((about != null && rule.covers(key, about)) || HoldTracker.isClientWide(w.kind()))) {
                    marked.add(w.seq());
                }
            }
            marked.add(trigger.seq());
            boolean manyKeys = holders.stream().map(h -> h.getValue().start.name()).distinct().count() > 1;
            String who = holders.stream()
                    .map(h -> h.getKey() + " (" + (manyKeys ? "'" + h.getValue().start.name() + "', " : "")
                            + "token " + token(h.getValue().start) + ", since #" + h.getValue().start.seq() + ")")
                    .collect(Collectors.joining(" and "));
            String when = trigger.nanos() == now
                    ? "after #" + trigger.seq() + " at " + Excerpts.ms(now)
                    : "at " + Excerpts.ms(now) + " (end of the grace after a resume; last event #" + trigger.seq()
                            + ")";
            out.add(Excerpts.violation(name(),
                    rule.describe(key, holders.size()) + " that are connected, not paused and believe they"
                            + " hold it: " + who + ", " + when,
                    events, from, trigger.seq(), marked));
        }
    }

    private static String token(Event e) {
        return e.hasToken() ? Long.toString(e.token()) : "none";
    }
}
