package dev.baton.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * {@code InterProcessSemaphoreV2} and {@code InterProcessSemaphoreMutex} (a semaphore of one lease): lease nodes
 * {@code <path>/leases/_c_<uuid>-lease-<seq>}, and {@code <path>/locks}, where Curator's clients take a mutex
 * while they create their lease. Recognized at the semaphore's path (by its {@code leases} child, whose lease
 * nodes it then shows) and at the {@code leases} node itself.
 *
 * <p>A lease is held while fewer than {@code maxLeases} lease nodes are ahead of it. {@code maxLeases} is not
 * stored on the server (every client passes it to its constructor): with {@code --max-leases N} the first
 * {@code N} lease nodes are holders and the rest wait; without it, every lease node is counted as a holder (true
 * whenever nobody waits), and the summary says so.
 */
final class SemaphoreLayout implements Layout {

    static final String LEASES = "leases";
    static final String LOCKS = "locks";
    private static final Set<String> LEASE = Set.of("lease-");

    @Override
    public Optional<Finding> recognize(Znode node, InspectOptions options) {
        if (node.name().equals(LEASES) && !RecipeQueue.of(node, LEASE).isEmpty()) {
            List<RecipeQueue.Entry> queue = RecipeQueue.of(node, LEASE);
            List<Role> roles = roles(queue, options.maxLeases());
            return Optional.of(new Finding("semaphore-leases", "semaphore leases: " + count(queue, options),
                    RecipeQueue.roles(queue, roles), facts(queue, roles, options, 0), Set.of()));
        }
        Optional<Znode> leases = node.child(LEASES);
        if (leases.isEmpty() || !leases.get().childrenRead()) {
            return Optional.empty();
        }
        List<RecipeQueue.Entry> queue = RecipeQueue.of(leases.get(), LEASE);
        if (queue.size() != leases.get().childCount()) {
            return Optional.empty(); // something else that happens to have a "leases" child
        }
        int curatorLocks = node.child(LOCKS).map(Znode::childCount).orElse(0);
        String summary = "semaphore: " + count(queue, options)
                + (curatorLocks > 0 ? "; a Curator client is taking a lease (" + LOCKS + " has " + curatorLocks
                        + " node" + (curatorLocks == 1 ? ")" : "s)") : "");
        Map<String, Role> roles = new LinkedHashMap<>();
        roles.put(LEASES, new Role(0, "lease nodes", null));
        node.child(LOCKS).ifPresent(locks -> roles.put(LOCKS, new Role(0, "Curator's lease mutex", null)));
        return Optional.of(new Finding("semaphore", summary, roles,
                facts(queue, roles(queue, options.maxLeases()), options, curatorLocks), Set.of(LEASES)));
    }

    /** Holders and waiters, or all holders when {@code maxLeases} is unknown. */
    private static List<Role> roles(List<RecipeQueue.Entry> queue, OptionalInt maxLeases) {
        List<Role> roles = new ArrayList<>();
        for (int i = 0; i < queue.size(); i++) {
            boolean holds = maxLeases.isEmpty() || i < maxLeases.getAsInt();
            roles.add(new Role(i + 1, holds ? "holder" : "waiting", null));
        }
        return roles;
    }

    private static String count(List<RecipeQueue.Entry> queue, InspectOptions options) {
        if (queue.isEmpty()) {
            return "no lease out";
        }
        if (options.maxLeases().isEmpty()) {
            return queue.size() + (queue.size() == 1 ? " holder" : " holders") + " (maxLeases is not stored on the"
                    + " server; --max-leases N tells holders from waiters)";
        }
        int max = options.maxLeases().getAsInt();
        int holders = Math.min(max, queue.size());
        return holders + " of " + max + (max == 1 ? " lease" : " leases") + " held, " + (queue.size() - holders)
                + " waiting";
    }

    private static Map<String, Object> facts(List<RecipeQueue.Entry> queue, List<Role> roles, InspectOptions options,
            int curatorLocks) {
        Map<String, Object> facts = new LinkedHashMap<>();
        Integer max = options.maxLeases().isPresent() ? options.maxLeases().getAsInt() : null;
        facts.put("maxLeases", max);
        facts.put("holders", max == null ? queue.size() : Math.min(max, queue.size()));
        facts.put("waiting", max == null ? null : Math.max(0, queue.size() - max));
        facts.put("curatorMutexNodes", curatorLocks);
        facts.put("participants", RecipeQueue.participants(queue, roles));
        return facts;
    }
}
