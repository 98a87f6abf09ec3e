package dev.baton.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code LeaderLatch}: {@code _c_<uuid>-latch-<seq>} children holding the participants' ids; the first in queue
 * order leads, the others wait.
 */
final class LeaderLatchLayout implements Layout {

    @Override
    public Optional<Finding> recognize(Znode node, InspectOptions options) {
        List<RecipeQueue.Entry> queue = RecipeQueue.of(node, Set.of("latch-"));
        if (queue.isEmpty()) {
            return Optional.empty();
        }
        List<Role> roles = new ArrayList<>();
        for (int i = 0; i < queue.size(); i++) {
            roles.add(new Role(i + 1, i == 0 ? "leader" : "waiting", null));
        }
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("leader", queue.get(0).id());
        facts.put("participants", RecipeQueue.participants(queue, roles));
        String summary = "leader latch: " + queue.get(0).label() + " leads, " + (queue.size() - 1) + " waiting";
        return Optional.of(new Finding("leader-latch", summary, RecipeQueue.roles(queue, roles), facts, Set.of()));
    }
}
