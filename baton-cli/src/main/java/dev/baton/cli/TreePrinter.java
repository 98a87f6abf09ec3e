package dev.baton.cli;

import dev.baton.BatonClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Renders a znode and its descendants as indented lines, the way a recipe sees them: data decoded
 * ({@link DataFormat}), the owning session of ephemeral nodes, and recipe queue entries ({@link RecipeNode})
 * in queue order with the first marked as leader or holder.
 *
 * <pre>
 * /election  (empty)
 *   _c_8b0e...-latch-0000000000  "alice"  ephemeral 0x100000a3c5e0000  [#1 leader]
 *   _c_02f1...-latch-0000000001  "bob"    ephemeral 0x100000a3c5e0001  [#2 waiting]
 * </pre>
 *
 * <p>Each node is read once ({@code getData} with its stat, then {@code getChildren}); a child that disappears
 * between the listing and the read is left out. The output is a snapshot of a moving tree, not atomic. Not
 * thread-safe.
 */
final class TreePrinter {

    private static final String INDENT = "  ";

    private final BatonClient client;

    /**
     * @param client a started client
     */
    TreePrinter(BatonClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Renders {@code path} and its descendants down to {@code depth} levels.
     *
     * @param path the top node
     * @param depth 0 for the node alone, 1 for it and its children, {@link Integer#MAX_VALUE} for all
     * @return the lines, the top node first
     * @throws KeeperException.NoNodeException if {@code path} does not exist
     * @throws KeeperException if ZooKeeper fails otherwise
     * @throws InterruptedException if interrupted
     */
    List<String> print(String path, int depth) throws KeeperException, InterruptedException {
        Stat stat = new Stat();
        byte[] data = client.getData().storingStatIn(stat).forPath(path);
        List<String> lines = new ArrayList<>();
        lines.add(describe(path, path.length(), data, stat, depth, null));
        Optional<List<String>> queue = depth > 0 ? QueueView.describe(client, path, stat, INDENT) : Optional.empty();
        if (queue.isPresent()) {
            lines.addAll(queue.get()); // a queue: its depth and next items rather than every item
        } else if (depth > 0 && stat.getNumChildren() > 0) {
            printChildren(path, 1, depth, lines);
        }
        return lines;
    }

    private void printChildren(String parent, int level, int depth, List<String> lines)
            throws KeeperException, InterruptedException {
        List<String> names;
        try {
            names = client.getChildren().forPath(parent);
        } catch (KeeperException.NoNodeException e) {
            return; // deleted meanwhile
        }
        List<String> ordered = order(names);
        int width = ordered.stream().mapToInt(String::length).max().orElse(0);
        int position = 0;
        for (String name : ordered) {
            String path = parent.equals("/") ? "/" + name : parent + "/" + name;
            Stat stat = new Stat();
            byte[] data;
            try {
                data = client.getData().storingStatIn(stat).forPath(path);
            } catch (KeeperException.NoNodeException e) {
                continue; // left the queue between the listing and the read
            }
            Optional<RecipeNode> recipe = RecipeNode.parse(name);
            String role = null;
            if (recipe.isPresent()) {
                position++;
                role = position == 1 ? "#1 " + recipe.get().firstRole() : "#" + position + " waiting";
            }
            lines.add(INDENT.repeat(level) + describe(name, width, data, stat, depth - level, role));
            if (level < depth && stat.getNumChildren() > 0) {
                printChildren(path, level + 1, depth, lines);
            }
        }
    }

    /** Plain children by name first, then recipe queue entries in queue order. */
    static List<String> order(List<String> names) {
        List<String> plain = new ArrayList<>();
        List<RecipeNode> queue = new ArrayList<>();
        for (String name : names) {
            RecipeNode.parse(name).ifPresentOrElse(queue::add, () -> plain.add(name));
        }
        plain.sort(Comparator.naturalOrder());
        queue.sort(RecipeNode.QUEUE_ORDER);
        List<String> ordered = new ArrayList<>(plain);
        queue.forEach(n -> ordered.add(n.name()));
        return ordered;
    }

    private static String describe(String name, int width, byte[] data, Stat stat, int depthLeft, String role) {
        StringBuilder line = new StringBuilder(String.format("%-" + width + "s", name));
        line.append("  ").append(DataFormat.describe(data));
        if (stat.getEphemeralOwner() != 0) {
            line.append("  ephemeral 0x").append(Long.toHexString(stat.getEphemeralOwner()));
        }
        if (depthLeft <= 0 && stat.getNumChildren() > 0) {
            line.append("  (").append(stat.getNumChildren())
                    .append(stat.getNumChildren() == 1 ? " child)" : " children)");
        }
        if (role != null) {
            line.append("  [").append(role).append(']');
        }
        return line.toString();
    }
}
