package dev.baton.cli;

import dev.baton.internal.BatonPaths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The queue entries among a node's children: the children named with one of a recipe's markers
 * ({@link RecipeNode}), in queue order (by sequence, as Curator orders them). Shared by the layouts of the
 * recipes built on such queues: leader latch, mutex and leader selector, read-write lock, semaphore leases.
 */
final class RecipeQueue {

    private RecipeQueue() {
    }

    /**
     * One participant: its node and what its name and data say.
     *
     * @param node the node
     * @param name its parsed name
     */
    record Entry(Znode node, RecipeNode name) {

        /** {@return the participant's id (its data as text, as latches and selectors write it), or null} */
        String id() {
            String text = DataFormat.text(node.data());
            return text == null || text.isEmpty() ? null : text;
        }

        /** {@return the id in quotes, or the node name without its protection prefix when there is no id} */
        String label() {
            String id = id();
            return id != null ? DataFormat.describe(node.data()) : BatonPaths.stripProtection(name.name());
        }

        /**
         * {@return the entry for {@code --json}: {@code node}, {@code id}, {@code session}, then the role}
         *
         * @param role its role in the queue
         */
        Map<String, Object> json(Role role) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("node", name.name());
            json.put("id", id());
            json.put("sequence", name.sequence());
            json.put("session", node.ephemeralOwner() == 0 ? null : "0x" + Long.toHexString(node.ephemeralOwner()));
            json.putAll(role.json());
            return json;
        }
    }

    /**
     * {@return its children named with one of the markers, in queue order; empty if there are none}
     *
     * @param node a node whose children were read
     * @param markers the recipe's node-name markers, such as {@code "latch-"}
     */
    static List<Entry> of(Znode node, Set<String> markers) {
        List<Entry> entries = new ArrayList<>();
        for (Znode child : node.childList()) {
            RecipeNode.parse(child.name()).filter(n -> markers.contains(n.marker()))
                    .ifPresent(n -> entries.add(new Entry(child, n)));
        }
        entries.sort((a, b) -> RecipeNode.QUEUE_ORDER.compare(a.name(), b.name()));
        return entries;
    }

    /**
     * {@return the roles by child name, in queue order, for a {@link Finding}}
     *
     * @param entries the queue
     * @param roles each entry's role, in the same order
     */
    static Map<String, Role> roles(List<Entry> entries, List<Role> roles) {
        Map<String, Role> byName = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            byName.put(entries.get(i).name().name(), roles.get(i));
        }
        return byName;
    }

    /**
     * {@return the participants for {@code --json}, in queue order}
     *
     * @param entries the queue
     * @param roles each entry's role, in the same order
     */
    static List<Object> participants(List<Entry> entries, List<Role> roles) {
        List<Object> json = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            json.add(entries.get(i).json(roles.get(i)));
        }
        return json;
    }

    /**
     * {@return their labels joined by ", "}
     *
     * @param entries some entries
     */
    static String labels(List<Entry> entries) {
        List<String> labels = new ArrayList<>();
        entries.forEach(e -> labels.add(e.label()));
        return String.join(", ", labels);
    }
}
