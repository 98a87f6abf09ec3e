package dev.baton.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * The safety and liveness checkers for a {@link History}, and a façade that runs a chosen set of them and fails a
 * test with the violations and their history excerpts.
 *
 * <pre>{@code
 * Checkers.assertValid(history,
 *         Checkers.mutualExclusion(),
 *         Checkers.fencingTokensIncrease(),
 *         Checkers.noStaleTokenAccepted(),
 *         Checkers.liveness(Duration.ofSeconds(15)));
 * }</pre>
 *
 * <h2>Holds: who counts as a holder</h2>
 * Locks ({@code ACQUIRED}/{@code RELEASED}/{@code LOST}) and leaderships ({@code BECAME_LEADER}/{@code
 * LOST_LEADERSHIP}) are separate name spaces; a <em>key</em> is one lock or leadership name. For each client and
 * key, a <em>hold</em> starts at {@code ACQUIRED}/{@code BECAME_LEADER} and ends at the client's next {@code
 * RELEASED}/{@code LOST} (locks) or {@code LOST_LEADERSHIP} (leaderships) of that key. Per client, it is
 * <em>connected</em> from the start of the history (a client that never reports its connection is assumed
 * connected) and from each {@code CONNECTED}, until its next {@code DISCONNECTED}; it is <em>paused</em> from
 * {@code PAUSED} to {@code RESUMED}. A {@code DISCONNECTED} that names a fault (a fault injector's mark: the fault
 * ends the client's session or cuts it off, and the client is not told yet) holds for longer: the client's
 * {@code CONNECTED}s do not count until that fault's {@code FAULT_HEALED} (they are of a session the fault is
 * ending, or raced the heal), so it is connected again from its first {@code CONNECTED} after the heal. A client
 * <em>effectively holds</em> a key while it has an open hold, is connected, is not paused, and the hold is not in
 * its <em>resume grace</em>: a hold open at a {@code RESUMED} does not count for the grace period that follows
 * (default {@link #DEFAULT_RESUME_GRACE}), or until the client's next {@code CONNECTED}, whichever comes first.
 * After the grace it counts again if nothing ended it.
 *
 * <p>Why: a client that is partitioned or paused still believes it holds; that belief is unavoidable (the
 * client cannot know) and harmless as long as it cannot act on it, which is what fencing tokens are for. What
 * ZooKeeper recipes must guarantee is that a client that <em>is</em> in touch with the server (connected, and
 * thus told {@code SUSPENDED}/{@code LOST} in time) never believes it holds what another such client holds. So a
 * holder that reports {@code DISCONNECTED} (on {@code SUSPENDED}) stops counting at once; if it reports {@code
 * CONNECTED} (on {@code RECONNECTED}) while still believing, it counts again, and if meanwhile another client
 * took the lock, that is a double holder — it should have reported {@code LOST} first. A process resumed from
 * SIGSTOP runs for a moment before its ZooKeeper client notices how much time passed; the resume grace covers
 * that moment, and only that.
 *
 * <p>Thread-safety: all checkers are stateless and may be shared; the static methods may be called from any
 * thread.
 */
public final class Checkers {

    /** The default resume grace of {@link #mutualExclusion()} and {@link #liveness}: 2 seconds. */
    public static final Duration DEFAULT_RESUME_GRACE = Duration.ofSeconds(2);

    /**
     * What the message of a {@link #linearizable linearizability} violation says when the read no order explains
     * returned a value the counter may have held earlier: {@value}.
     */
    public static final String STALE_READ = "a stale read";

    /** At most this many violations of one checker are reported; the rest are counted. */
    private static final int MAX_REPORTED = 10;

    private Checkers() {
    }

    /**
     * Mutual exclusion with the {@link #DEFAULT_RESUME_GRACE}: at no point do two clients effectively hold the
     * same key (see the class documentation). One violation is reported per episode (from the point where a
     * second effective holder appears until fewer than two remain); its window runs from the start of the
     * earliest conflicting hold to the event that made the conflict.
     *
     * @return the checker, named {@code "mutual-exclusion"}
     */
    public static HistoryChecker mutualExclusion() {
        return mutualExclusion(DEFAULT_RESUME_GRACE);
    }

    /**
     * Mutual exclusion as {@link #mutualExclusion()}, with the given resume grace ({@link Duration#ZERO}: a
     * resumed holder counts at once).
     *
     * @param resumeGrace how long a hold open at a {@code RESUMED} does not count
     * @return the checker, named {@code "mutual-exclusion"}
     * @throws IllegalArgumentException if {@code resumeGrace} is negative
     */
    public static HistoryChecker mutualExclusion(Duration resumeGrace) {
        return new MutualExclusionChecker(nonNegative(resumeGrace, "resumeGrace"), MutualExclusionChecker.atMost(1));
    }

    /**
     * A counting limit, for semaphores, with the {@link #DEFAULT_RESUME_GRACE}: at no point do more than {@code
     * maxHolders} clients effectively hold the same key (see the class documentation). Reported as {@link
     * #mutualExclusion()} reports, once per episode (from the point where one holder too many appears until no
     * more than {@code maxHolders} remain).
     *
     * @param maxHolders how many clients may hold a key at once, e.g. a semaphore's {@code maxLeases}
     * @return the checker, named {@code "at-most-<maxHolders>-holders"} ({@code "mutual-exclusion"} for 1)
     * @throws IllegalArgumentException if {@code maxHolders <= 0}
     */
    public static HistoryChecker atMostHolders(int maxHolders) {
        return atMostHolders(maxHolders, DEFAULT_RESUME_GRACE);
    }

    /**
     * A counting limit as {@link #atMostHolders(int)}, with the given resume grace; {@code atMostHolders(1,
     * grace)} is {@link #mutualExclusion(Duration) mutualExclusion(grace)}.
     *
     * @param maxHolders how many clients may hold a key at once
     * @param resumeGrace how long a hold open at a {@code RESUMED} does not count
     * @return the checker, named {@code "at-most-<maxHolders>-holders"} ({@code "mutual-exclusion"} for 1)
     * @throws IllegalArgumentException if {@code maxHolders <= 0} or {@code resumeGrace} is negative
     */
    public static HistoryChecker atMostHolders(int maxHolders, Duration resumeGrace) {
        if (maxHolders <= 0) {
            throw new IllegalArgumentException("maxHolders must be positive: " + maxHolders);
        }
        return new MutualExclusionChecker(nonNegative(resumeGrace, "resumeGrace"),
                MutualExclusionChecker.atMost(maxHolders));
    }

    /**
     * A read-write lock recorded as two lock names, with the {@link #DEFAULT_RESUME_GRACE}: while a client
     * effectively holds {@code writeLock}, no other client effectively holds {@code writeLock} or {@code
     * readLock}; any number of clients may hold {@code readLock} together. A client that holds both itself (it
     * took the read lock while writing: a downgrade) conflicts with nobody by that alone. Only these two names
     * are checked, so this checker replaces {@link #mutualExclusion()} (which would object to readers sharing
     * {@code readLock}) for a read-write lock. Reported once per episode, with the window from the start of the
     * earliest conflicting hold.
     *
     * @param writeLock the name under which writers record their holds
     * @param readLock the name under which readers record their holds
     * @return the checker, named {@code "read-write-exclusion"}
     * @throws IllegalArgumentException if the two names are equal
     */
    public static HistoryChecker readWriteExclusion(String writeLock, String readLock) {
        Objects.requireNonNull(writeLock, "writeLock");
        Objects.requireNonNull(readLock, "readLock");
        if (writeLock.equals(readLock)) {
            throw new IllegalArgumentException("the read and write locks need two names, both were " + writeLock);
        }
        return new MutualExclusionChecker(DEFAULT_RESUME_GRACE.toNanos(),
                MutualExclusionChecker.readWrite(writeLock, readLock));
    }

    /**
     * Fencing tokens strictly increase across successive holders of the same key: each {@code ACQUIRED} (or
     * {@code BECAME_LEADER}) carries a token greater than every token acquired before it for that key. One
     * exception: the same client acquiring again with the same token as the previous acquisition of the key,
     * with no other acquisition in between, is the same hold resumed (e.g. a leader that kept its node across
     * a reconnect) and is not a violation. Events without a token are skipped. The window runs from the
     * acquisition with the highest earlier token to the offending one.
     *
     * <p>When some keys are shared rather than exclusive (the readers of a read-write lock; a semaphore whose
     * leases can be granted several at once, whose holders then learn of it in any order), name the exclusive
     * keys to check.
     *
     * @param names the lock/leadership names to check; none: every key
     * @return the checker, named {@code "fencing-tokens-increase"}
     */
    public static HistoryChecker fencingTokensIncrease(String... names) {
        return new FencingTokenChecker(Set.of(names));
    }

    /**
     * A guarded resource never accepts a stale token: each {@code TOKEN_USED} of a resource (its {@code name})
     * carries a token at least as high as every token that resource accepted before. Rejections ({@code
     * TOKEN_REJECTED}) are fine. The window runs from the acceptance of the higher token to the stale one.
     *
     * @return the checker, named {@code "no-stale-token-accepted"}
     */
    public static HistoryChecker noStaleTokenAccepted() {
        return new StaleTokenChecker();
    }

    /**
     * Double barrier with {@code memberQty} members on every barrier name: see {@link #barrier(ToIntFunction)}.
     *
     * @param memberQty the member count of every barrier name
     * @return the checker, named {@code "barrier"}
     * @throws IllegalArgumentException if {@code memberQty <= 0}
     */
    public static HistoryChecker barrier(int memberQty) {
        if (memberQty <= 0) {
            throw new IllegalArgumentException("memberQty must be positive: " + memberQty);
        }
        return new BarrierChecker(name -> memberQty);
    }

    /**
     * Double barrier: no member's {@code ENTER_RETURNED} before {@code memberQty} members have made their {@code
     * ENTER_CALLED} of the same round, and no {@code LEAVE_RETURNED} before {@code memberQty} members have made
     * their {@code LEAVE_CALLED} of that round. Rounds: a member's n-th {@code ENTER_CALLED} on a barrier name
     * belongs to round n, and its n-th {@code ENTER_RETURNED} answers it (likewise for leave); so record
     * {@code ENTER_RETURNED}/{@code LEAVE_RETURNED} only when the call passed (not on a timeout), or better, use a
     * fresh barrier name per round as the recipes do. The window runs from the round's first call to the early
     * return.
     *
     * <p>A member that entered a round may leave it without calling {@code leave}: its node goes when its
     * {@code enter} gives up (a timeout, an interruption, even just as the barrier opened) or its session ends.
     * So for the leave count a member of the round's {@code enter} is excused if its {@code enter} of that round
     * never returned, or if it was {@code DISCONNECTED} or {@code PAUSED} after its {@code ENTER_CALLED}, or is so
     * still (not connected or resumed since, as defined above) when the leave returns: its session may have ended
     * unbeknownst to it (a server-side expiry marks its victim {@code DISCONNECTED} when it is ordered, and lands
     * a little later, possibly after the victim's next {@code ENTER_CALLED}).
     *
     * @param memberQty the member count of each barrier name
     * @return the checker, named {@code "barrier"}
     */
    public static HistoryChecker barrier(ToIntFunction<String> memberQty) {
        return new BarrierChecker(Objects.requireNonNull(memberQty, "memberQty"));
    }

    /**
     * Barrier (a single gate, lowered by whoever raised it): no waiter passes a barrier while it stands. A barrier
     * name is raised by its {@code ACQUIRED} (record it once the barrier exists) and lowered by its
     * {@code RELEASED} (record it before the removal is sent); a waiter records {@code ENTER_CALLED} before it
     * waits and {@code ENTER_RETURNED} once the wait passed (not on a timeout). A wait that began after the raise
     * and passed before the lowering is a violation (window: the raise to the pass; marked: the waiter's two
     * events, so the waiter alone is in it, the raiser only named).
     *
     * @return the checker, named {@code "barrier-blocks"}
     */
    public static HistoryChecker barrierBlocks() {
        return new BarrierBlockChecker();
    }

    /**
     * Service discovery: a query finds every live instance. An instance's owner records {@code ENTER_CALLED}
     * before it looks for its registration (a sync, then a read) and {@code ACQUIRED} once it saw it there, and
     * {@code RELEASED} before it unregisters. The {@code ACQUIRED} makes it live only if the owner was in touch
     * at that {@code ENTER_CALLED} and no {@code DISCONNECTED} or {@code PAUSED} of it came since; either ends its
     * liveness (its session, and the ephemeral registration, may end unseen). An owner is out of touch from a
     * {@code DISCONNECTED} or {@code PAUSED} until its next {@code CONNECTED} or {@code RESUMED}, and from a fault's
     * cut-off ({@link History.Recorder#cutOff}) until one after that fault's {@code FAULT_HEALED}. A reader
     * records each query as an operation: {@code OP_INVOKED} before it syncs and reads, {@code OP_OK} with the ids
     * found ({@code "query => a,b"}); the instance ids are the owners' client names. A query must find every owner
     * live from its invocation to its answer. One violation per instance missed (window: the owner's {@code ACQUIRED}
     * to the answer; marked: the owner's {@code ACQUIRED} and the query's two events).
     *
     * @return the checker, named {@code "discovery-finds-live"}
     */
    public static HistoryChecker discoveryFindsLive() {
        return new DiscoveryChecker();
    }

    /**
     * Queue: nothing lost. Every queue item put ({@code ITEM_PUT}, one name per item) is consumed to the end
     * ({@code ITEM_DONE}) at least once by the end of the history, and nobody takes ({@code ITEM_TAKEN}) an item
     * that was not put before. Run it on a history that ends after the consumers had time to drain the queue.
     * One violation per lost item (window: its put to its first take) and per item taken but never put.
     *
     * @return the checker
     */
    public static HistoryChecker queueNothingLost() {
        return new QueueChecker(QueueChecker.Property.NOTHING_LOST);
    }

    /**
     * Queue without a lock path: nothing lost before it was taken. Every queue item put ({@code ITEM_PUT}) is
     * taken ({@code ITEM_TAKEN}) at least once by the end of the history, before or after its put was recorded
     * (record a put once it succeeded: an item taken before that is fine). An item taken by a consumer that then
     * died is gone by design (the queue deleted it when it was taken), so it need not be done. So is an item whose
     * take removed it but lost its answer, which neither library can tell from a take by another consumer: an
     * item not taken is excused if any client was {@code DISCONNECTED} after its put. One violation per item
     * never taken (window: its put).
     *
     * @return the checker, named {@code "queue-every-item-taken"}
     */
    public static HistoryChecker queueEveryItemTaken() {
        return new QueueChecker(QueueChecker.Property.EVERY_ITEM_TAKEN);
    }

    /**
     * Queue: at most once, for a queue without a lock path (an item leaves the queue before it is consumed, so it
     * is never consumed twice, even if its consumer dies). One violation per second take of an item, with the
     * window from its first take.
     *
     * @return the checker
     */
    public static HistoryChecker queueAtMostOnce() {
        return new QueueChecker(QueueChecker.Property.AT_MOST_ONCE);
    }

    /**
     * Queue with a lock path, with the {@link #DEFAULT_RESUME_GRACE}: no queue item is consumed by two clients
     * at once among those that are connected and not paused. A consumer <em>holds</em> an item from its
     * {@code ITEM_TAKEN} to its {@code ITEM_DONE} or {@code ITEM_DROPPED} (recorded as soon as it learns it may
     * have lost the item, e.g. on {@code LOST}); otherwise as {@link #mutualExclusion()} (see the class
     * documentation): an item taken again by another consumer after the first one's session ended is fine as
     * long as the first one was told first, or was disconnected or paused. Reported once per episode.
     *
     * @return the checker
     */
    public static HistoryChecker queueExclusive() {
        return new MutualExclusionChecker(DEFAULT_RESUME_GRACE.toNanos(), MutualExclusionChecker.itemExclusion());
    }

    /**
     * Linearizability of counters that start at 0: see {@link #linearizable(long, String...)}.
     *
     * @param names the objects to check; none: every object with operations in the history
     * @return the checker, named {@code "linearizable"}
     */
    public static HistoryChecker linearizable(String... names) {
        return linearizable(0, names);
    }

    /**
     * Linearizability of counters (distributed atomic longs and integers, shared counts): every operation
     * ({@code OP_INVOKED} ... {@code OP_OK}/{@code OP_FAILED}/{@code OP_UNKNOWN}, one at a time per client and
     * object; see {@link History.Recorder#invoked}) appears to take effect at one instant between its invocation
     * and its return, in an order in which each answer is what one counter would give. Operations, as the
     * event's detail: {@code read} (answer {@code v}), {@code add d} (answer {@code pre post}), {@code cas e n}
     * (answer {@code true} or {@code false}), {@code set v}. A failed operation had no effect; one with an unknown
     * outcome took effect once or not at all, at some point before the same client's next answer on the object.
     * This is what catches a lost or doubled increment, a stale read, or a compare-and-set that succeeded twice.
     * It is a Wing–Gong/Lowe search, bounded: a step that would explore more than 200,000 states is reported as a
     * violation saying so (never a silent pass), and the object is checked no further. Every operation that no
     * order explains is a violation, with the operations open at the time; the search goes on from what its answer
     * says. A read of a value the counter may have held before but can no longer hold says so with
     * {@link #STALE_READ} (a read from a server behind the others).
     *
     * @param initialValue the value every counter has before the history (a missing node reads as 0)
     * @param names the objects to check; none: every object with operations in the history
     * @return the checker, named {@code "linearizable"}
     */
    public static HistoryChecker linearizable(long initialValue, String... names) {
        return new LinearizabilityChecker(Set.of(names), initialValue);
    }

    /**
     * Liveness: after faults heal, a holder exists again within {@code bound}. Faults are tracked by id ({@code
     * FAULT_INJECTED}/{@code FAULT_HEALED} names); each {@code FAULT_HEALED} that leaves no fault active starts a
     * check, unless another fault is injected within {@code bound} (then the system was not given the bound). The
     * check passes for a key if some client effectively holds it (see the class documentation, with the {@link
     * #DEFAULT_RESUME_GRACE}) at some point from the heal to {@code heal + bound}. A check that is still open when
     * the history ends fails, so a test must run for {@code bound} after its last heal (or until a holder shows).
     *
     * @param bound how long after the heal a holder must exist, e.g. the session timeout plus a few seconds
     * @param names the lock/leadership names to check; none: every key acquired at least once before the heal
     * @return the checker, named {@code "liveness"}
     * @throws IllegalArgumentException if {@code bound} is not positive
     */
    public static HistoryChecker liveness(Duration bound, String... names) {
        long nanos = nonNegative(bound, "bound");
        if (nanos == 0) {
            throw new IllegalArgumentException("bound must be positive: " + bound);
        }
        return new LivenessChecker(nanos, DEFAULT_RESUME_GRACE.toNanos(), Set.of(names));
    }

    /**
     * Runs {@code checkers} over a snapshot of {@code history}.
     *
     * @param history the history to check
     * @param checkers the properties to check, e.g. {@link #mutualExclusion()}; none: nothing is checked
     * @return all violations, checker by checker (at most 10 per checker, then a summary violation counting the
     *     rest); empty if every property holds
     */
    public static List<Violation> check(History history, HistoryChecker... checkers) {
        return check(history.events(), checkers);
    }

    /**
     * Runs {@code checkers} over {@code events} (a history snapshot); see {@link #check(History, HistoryChecker...)}.
     *
     * @param events the events to check, in history order, e.g. from {@link History#events()}
     * @param checkers the properties to check; none: nothing is checked
     * @return all violations, checker by checker, at most 10 per checker as in {@link #check(History,
     *     HistoryChecker...)}; empty if every property holds
     */
    public static List<Violation> check(List<History.Event> events, HistoryChecker... checkers) {
        Objects.requireNonNull(events, "events");
        List<Violation> all = new ArrayList<>();
        for (HistoryChecker c : checkers) {
            List<Violation> found = c.check(events);
            all.addAll(found.subList(0, Math.min(found.size(), MAX_REPORTED)));
            if (found.size() > MAX_REPORTED) {
                all.add(new Violation(c.name(), "... and " + (found.size() - MAX_REPORTED) + " more violation(s)",
                        List.of(), ""));
            }
        }
        return all;
    }

    /**
     * No client loses its session: no client records {@code DISCONNECTED} with a detail starting {@code LOST}
     * (what a connection-state listener records when told its session is gone, expired by the servers or given up
     * by the client), and no client's {@code CONNECTED} names another session ({@code "session 0x<id>"} in its
     * detail) than its previous one without such a loss between. A fault injector's own marks (a
     * {@code DISCONNECTED} that names a fault) are not losses. One violation per loss. For runs whose faults should
     * only disconnect clients (server restarts, a rolling upgrade), not end their sessions.
     *
     * @return the checker, named {@code "no-session-lost"}
     */
    public static HistoryChecker noSessionLost() {
        return new SessionLossChecker();
    }

    /**
     * Runs {@code checkers} over a snapshot of {@code history} and fails if any property is violated.
     *
     * @param history the history to check
     * @param checkers the properties to check, e.g. {@link #mutualExclusion()}; none: nothing is checked
     * @throws AssertionError listing every violation with its history excerpt
     */
    public static void assertValid(History history, HistoryChecker... checkers) {
        List<Violation> violations = check(history, checkers);
        if (!violations.isEmpty()) {
            throw new AssertionError(describe(violations, history.size()));
        }
    }

    /**
     * Formats violations as the message of {@link #assertValid}.
     *
     * @param violations the violations to list, e.g. from {@link #check(History, HistoryChecker...)}
     * @param historySize the number of events in the history they were found in, for the header line
     * @return a header line with both counts, then each violation with its excerpt
     */
    public static String describe(List<Violation> violations, int historySize) {
        StringBuilder b = new StringBuilder();
        b.append(violations.size()).append(" violation(s) in a history of ").append(historySize)
                .append(" events:\n");
        for (Violation v : violations) {
            b.append('\n').append(v);
        }
        return b.toString();
    }

    private static long nonNegative(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative: " + d);
        }
        return d.toNanos();
    }
}
