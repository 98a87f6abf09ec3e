package dev.baton.cli;

import dev.baton.testing.Checkers;
import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import dev.baton.testing.HistoryChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import dev.baton.testing.Violation;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What a chaos run checks for each recipe: which events of the history are the recipe's, which history checkers
 * run on them, and what was checked, in words, for the verdict.
 */
final class ChaosChecks {
    private ChaosChecks() {
    }

    /**
     * The checkers for {@code recipe}.
     *
     * @param livenessBound how soon after the last heal there must be a holder (or leader) again
     * @param clients how many client processes ran: the members of every barrier
     */
    static List<HistoryChecker> checkersFor(ChaosRecipe recipe, Duration livenessBound, int clients) {
        String id = recipe.id();
        return switch (recipe) {
            case MUTEX, SEMAPHORE_MUTEX -> List.of(Checkers.mutualExclusion(), Checkers.fencingTokensIncrease(id),
                    Checkers.liveness(livenessBound, id));
            case DEAF_MUTEX -> List.of(Checkers.mutualExclusion(), Checkers.fencingTokensIncrease(id));
            case STUCK_MUTEX -> List.of(Checkers.mutualExclusion(), Checkers.liveness(livenessBound, id));
            case RWLOCK, BROKEN_RWLOCK -> List.of(Checkers.readWriteExclusion(ChaosLockWorkloads.ReadWriteWorkload
                    .write(id), ChaosLockWorkloads.ReadWriteWorkload.read(id)),
                    Checkers.fencingTokensIncrease(ChaosLockWorkloads.ReadWriteWorkload.write(id)));
            case SEMAPHORE, BROKEN_SEMAPHORE -> List.of(Checkers.atMostHolders(
                    ChaosLockWorkloads.SemaphoreWorkload.MAX_LEASES));
            case LATCH, SELECTOR -> List.of(Checkers.mutualExclusion(), Checkers.fencingTokensIncrease(id),
                    Checkers.liveness(livenessBound, id));
            case BARRIER, BROKEN_BARRIER -> List.of(Checkers.barrierBlocks());
            case DOUBLE_BARRIER, BROKEN_DOUBLE_BARRIER -> List.of(Checkers.barrier(clients));
            case ATOMIC_LONG, ATOMIC_LONG_LOCKED, SHARED_COUNT, BROKEN_COUNTER -> List.of(Checkers.linearizable(id));
            case QUEUE, BROKEN_LOCKED_QUEUE -> List.of(Checkers.queueNothingLost(), Checkers.queueExclusive());
            case QUEUE_UNLOCKED, BROKEN_QUEUE -> List.of(Checkers.queueEveryItemTaken(), Checkers.queueAtMostOnce());
            case DISCOVERY, BROKEN_DISCOVERY -> List.of(Checkers.discoveryFindsLive());
        };
    }

    /** Whether {@code events} hold any of the recipe's own events (not only faults, connections and pauses). */
    static boolean ran(ChaosRecipe recipe, List<Event> events) {
        return events.stream().anyMatch(ownEvent(recipe));
    }

    /** The recipe's own events, with the faults and every client's connection and pause events. */
    static List<Event> eventsOf(ChaosRecipe recipe, List<Event> events) {
        Predicate<Event> own = ownEvent(recipe);
        List<Event> mine = new ArrayList<>();
        for (Event e : events) {
            switch (e.kind()) {
                case CONNECTED, DISCONNECTED, PAUSED, RESUMED, FAULT_INJECTED, FAULT_HEALED -> mine.add(e);
                default -> {
                    if (own.test(e)) {
                        mine.add(e);
                    }
                }
            }
        }
        return mine;
    }

    private static Predicate<Event> ownEvent(ChaosRecipe recipe) {
        String id = recipe.id();
        return switch (recipe) {
            case RWLOCK, BROKEN_RWLOCK -> e -> e.name().equals(ChaosLockWorkloads.ReadWriteWorkload.write(id))
                    || e.name().equals(ChaosLockWorkloads.ReadWriteWorkload.read(id));
            case BARRIER, BROKEN_BARRIER, DOUBLE_BARRIER, BROKEN_DOUBLE_BARRIER -> e -> e.name().startsWith(id + "-");
            case QUEUE, QUEUE_UNLOCKED, BROKEN_QUEUE, BROKEN_LOCKED_QUEUE -> e -> e.kind().name().startsWith("ITEM_")
                    && e.name().startsWith(id + "/");
            default -> e -> e.name().equals(id);
        };
    }

    /**
     * Returns the linearizability violations of a counter that go away when every write (an increment or a
     * compare-and-set) of a Curator client may have taken effect once more than it answered: what Curator's atomic
     * values do when a write goes through but its answer is lost, and Curator's retry writes again on top of it.
     * Such a violation is Curator's, though Baton clients' reads saw the extra write. A violation is told by the
     * answer no order explained (the last event of its window).
     *
     * @param recipe the counter
     * @param mine the counter's events
     * @param clients every client's library
     * @param violations the counter's linearizability violations
     * @return those of {@code violations} that Curator's writes applied twice explain
     */
    static List<Violation> explainedByRetriedCuratorWrites(ChaosRecipe recipe, List<Event> mine,
            Map<String, ClientLibrary> clients, List<Violation> violations) {
        List<Event> withRetries = new ArrayList<>(mine);
        Map<String, Event> open = new HashMap<>();
        for (Event e : mine) {
            if (clients.get(e.client()) != ClientLibrary.CURATOR || !e.name().equals(recipe.id())) {
                continue;
            }
            if (e.kind() == Kind.OP_INVOKED) {
                if (!e.detail().startsWith("read")) {
                    open.put(e.client(), e);
                    // The same write once more, from a client of its own, that may or may not take effect.
                    withRetries.add(new Event(e.seq(), e.nanos(), e.client() + "~again", Kind.OP_INVOKED, e.name(),
                            e.token(), e.detail()));
                }
            } else {
                Event invoked = open.remove(e.client());
                if (invoked != null) {
                    // Unknown when the write returns; a read that fails at once ends its window there, as the
                    // client's next answer would: a retry happens before the write returns, not after.
                    String again = e.client() + "~again";
                    withRetries.add(new Event(e.seq(), e.nanos(), again, Kind.OP_UNKNOWN, e.name(), e.token(),
                            "a retried write"));
                    withRetries.add(new Event(e.seq(), e.nanos(), again, Kind.OP_INVOKED, e.name(), e.token(), "read"));
                    withRetries.add(new Event(e.seq(), e.nanos(), again, Kind.OP_FAILED, e.name(), e.token(), "read"));
                }
            }
        }
        if (withRetries.size() == mine.size()) {
            return List.of(); // no Curator client wrote
        }
        withRetries.sort(Comparator.comparingLong(Event::nanos).thenComparingLong(Event::seq));
        Set<Long> stillUnexplained = new HashSet<>();
        Checkers.linearizable(recipe.id()).check(withRetries).forEach(v -> stillUnexplained.add(answer(v)));
        return violations.stream().filter(v -> !stillUnexplained.contains(answer(v))).toList();
    }

    /** The answer a linearizability violation could not explain: the last event of its window. */
    private static long answer(Violation v) {
        return v.window().isEmpty() ? -1 : v.window().get(v.window().size() - 1).seq();
    }

    /** Returns true for an event that says a client's operation succeeded: a hold, a lead, a pass, an ok, a done. */
    static boolean success(Event e) {
        return switch (e.kind()) {
            case ACQUIRED, BECAME_LEADER, ENTER_RETURNED, OP_OK, ITEM_DONE -> true;
            default -> false;
        };
    }

    /** What was checked for a recipe, in words. */
    static String count(ChaosRecipe recipe, List<Event> mine) {
        Map<Kind, Integer> n = new LinkedHashMap<>();
        for (Event e : mine) {
            n.merge(e.kind(), 1, Integer::sum);
        }
        return switch (recipe) {
            case MUTEX, SEMAPHORE_MUTEX, DEAF_MUTEX, STUCK_MUTEX, RWLOCK, BROKEN_RWLOCK, SEMAPHORE, BROKEN_SEMAPHORE ->
                    n.getOrDefault(Kind.ACQUIRED, 0) + " acquisitions, "
                    + n.getOrDefault(Kind.LOST, 0) + " losses told";
            case LATCH, SELECTOR -> n.getOrDefault(Kind.BECAME_LEADER, 0) + " leaderships, "
                    + n.getOrDefault(Kind.LOST_LEADERSHIP, 0) + " ended";
            case BARRIER, BROKEN_BARRIER -> n.getOrDefault(Kind.ACQUIRED, 0) + " barriers raised, "
                    + n.getOrDefault(Kind.ENTER_RETURNED, 0) + " waits passed, "
                    + n.getOrDefault(Kind.ENTER_CALLED, 0) + " waits called";
            case DOUBLE_BARRIER, BROKEN_DOUBLE_BARRIER -> n.getOrDefault(Kind.ENTER_RETURNED, 0) + " enters passed, "
                    + n.getOrDefault(Kind.LEAVE_RETURNED, 0) + " leaves passed, "
                    + n.getOrDefault(Kind.ENTER_CALLED, 0) + " enters called";
            case ATOMIC_LONG, ATOMIC_LONG_LOCKED, SHARED_COUNT, BROKEN_COUNTER -> n.getOrDefault(Kind.OP_INVOKED, 0)
                    + " operations (" + n.getOrDefault(Kind.OP_OK, 0) + " ok, " + n.getOrDefault(Kind.OP_FAILED, 0)
                    + " failed, " + n.getOrDefault(Kind.OP_UNKNOWN, 0) + " unknown)";
            case DISCOVERY, BROKEN_DISCOVERY -> n.getOrDefault(Kind.OP_OK, 0) + " queries answered ("
                    + n.getOrDefault(Kind.OP_FAILED, 0) + " failed), " + n.getOrDefault(Kind.ACQUIRED, 0)
                    + " registrations confirmed";
            case QUEUE, QUEUE_UNLOCKED, BROKEN_QUEUE, BROKEN_LOCKED_QUEUE -> n.getOrDefault(Kind.ITEM_PUT, 0)
                    + " items put, " + n.getOrDefault(Kind.ITEM_TAKEN, 0) + " taken, "
                    + n.getOrDefault(Kind.ITEM_DONE, 0) + " done, " + n.getOrDefault(Kind.ITEM_DROPPED, 0) + " dropped";
        };
    }
}
