package dev.baton.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code InterProcessMutex} and {@code LeaderSelector} (built on it), the locks of an {@code InterProcessMultiLock}
 * and of a {@code PromotedToLock}: {@code _c_<uuid>-lock-<seq>} children. The first in queue order holds the
 * lock; for a selector, that is its leader. The two look alike on the server, so both words are shown.
 */
final class LockLayout implements Layout {

    @Override
    public Optional<Finding> recognize(Znode node, InspectOptions options) {
        List<RecipeQueue.Entry> queue = RecipeQueue.of(node, Set.of("lock-"));
        if (queue.isEmpty()) {
            return Optional.empty();
        }
        List<Role> roles = new ArrayList<>();
        for (int i = 0; i < queue.size(); i++) {
            roles.add(i == 0 ? new Role(1, "holder", "leader") : new Role(i + 1, "waiting", null));
        }
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("holder", queue.get(0).id());
        facts.put("participants", RecipeQueue.participants(queue, roles));
        String summary = "lock (a mutex, or a leader selector's election): " + queue.get(0).label()
                + " holds it (leads), " + (queue.size() - 1) + " waiting";
        return Optional.of(new Finding("lock", summary, RecipeQueue.roles(queue, roles), facts, Set.of()));
    }
}
