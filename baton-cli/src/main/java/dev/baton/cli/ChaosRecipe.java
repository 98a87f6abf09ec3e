package dev.baton.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The recipes {@code baton chaos} runs, by the names users type ({@code --recipe mutex,queue}; {@code all} for
 * every real one). Deliberately broken variants exist for the checkers' self-test; {@code all} leaves them out.
 */
enum ChaosRecipe {
    MUTEX("mutex", false),
    SEMAPHORE_MUTEX("semaphore-mutex", false),
    RWLOCK("rwlock", false),
    SEMAPHORE("semaphore", false),
    LATCH("latch", false),
    SELECTOR("selector", false),
    BARRIER("barrier", false),
    DOUBLE_BARRIER("double-barrier", false),
    ATOMIC_LONG("atomic-long", false),
    ATOMIC_LONG_LOCKED("atomic-long-locked", false),
    SHARED_COUNT("shared-count", false),
    QUEUE("queue", false),
    /** A distributed queue without a lock path: at most once. */
    QUEUE_UNLOCKED("queue-unlocked", false),
    DISCOVERY("discovery", false),
    /** A counter that writes without a version: loses increments; the linearizability checker must say so. */
    BROKEN_COUNTER("broken-counter", true),
    /** A mutex holder that ignores what its lock tells it (no session check): mutual exclusion must fail. */
    DEAF_MUTEX("deaf-mutex", true),
    /** A semaphore mutex whose holders never give their lease back: the liveness checker must see none hold it. */
    STUCK_MUTEX("stuck-mutex", true),
    /** A semaphore whose clients count one lease more than its limit: the lease limit must fail (3+ clients). */
    BROKEN_SEMAPHORE("broken-semaphore", true),
    /** A read-write lock whose writers take the read lock: read-write exclusion must fail. */
    BROKEN_RWLOCK("broken-rwlock", true),
    /** A barrier whose waiters do not wait: the barrier checker must see them pass a standing barrier. */
    BROKEN_BARRIER("broken-barrier", true),
    /** A double barrier whose leave returns at once: the barrier checker must see it return too early. */
    BROKEN_DOUBLE_BARRIER("broken-double-barrier", true),
    /** A queue without a lock path that drops items and hands some out twice: both queue checkers must say so. */
    BROKEN_QUEUE("broken-queue", true),
    /**
     * A queue with a lock path whose consumer drops items and hands some to another consumer while consuming them:
     * both checkers of the queue with a lock path must say so.
     */
    BROKEN_LOCKED_QUEUE("broken-locked-queue", true),
    /** A service discovery whose queries lose an instance: the discovery checker must see it missing. */
    BROKEN_DISCOVERY("broken-discovery", true);

    private final String id;
    private final boolean broken;

    ChaosRecipe(String id, boolean broken) {
        this.id = id;
        this.broken = broken;
    }

    /** Returns the name users type, also the name of its znodes and of its keys in the history. */
    String id() {
        return id;
    }

    /** Returns true for a queue, real or broken. */
    boolean queue() {
        return this == QUEUE || this == QUEUE_UNLOCKED || this == BROKEN_QUEUE || this == BROKEN_LOCKED_QUEUE;
    }

    /** Returns true for a deliberately broken variant. */
    boolean broken() {
        return broken;
    }

    /** Parses {@code a,b,c} ({@code all}: every real recipe), keeping the order given and dropping repeats. */
    static List<ChaosRecipe> parseList(String text) {
        Set<ChaosRecipe> out = new LinkedHashSet<>();
        for (String word : text.split(",", -1)) {
            String w = word.strip().toLowerCase(Locale.ROOT);
            if (w.isEmpty()) {
                continue;
            }
            if (w.equals("all")) {
                Arrays.stream(values()).filter(r -> !r.broken).forEach(out::add);
                continue;
            }
            out.add(Arrays.stream(values()).filter(r -> r.id.equals(w)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown recipe '" + word.strip() + "'; known: all, "
                            + String.join(", ", ids()))));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no recipe named in '" + text + "'");
        }
        return new ArrayList<>(out);
    }

    /** Every recipe name, broken variants last. */
    static List<String> ids() {
        return Arrays.stream(values()).map(ChaosRecipe::id).toList();
    }
}
