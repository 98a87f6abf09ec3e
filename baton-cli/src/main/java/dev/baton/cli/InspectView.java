package dev.baton.cli;

import dev.baton.BatonClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.zookeeper.KeeperException;

/**
 * Shows a {@link Znode} tree the way recipes see it, as indented text lines or as JSON: data decoded
 * ({@link DataFormat}: text, counters as numbers), the owning session of ephemeral nodes, and what each
 * {@link Layouts layout} recognized: a summary on the recipe's node, the role of each child in brackets, children
 * in the recipe's queue order.
 *
 * <pre>
 * /election  (empty)  [leader latch: "alice" leads, 2 waiting]
 *   _c_8b0e...-latch-0000000000  "alice"  ephemeral 0x100000a3c5e0000  [#1 leader]
 *   _c_02f1...-latch-0000000001  "bob"    ephemeral 0x100000a3c5e0001  [#2 waiting]
 * </pre>
 *
 * <p>Immutable and thread-safe.
 */
final class InspectView {

    static final String INDENT = "  ";

    private final InspectOptions options;

    /**
     * @param options what the user told about the recipes
     */
    InspectView(InspectOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * Reads a tree deep enough for its layouts to be recognized and renders it as lines.
     *
     * @param client a started client
     * @param path the top node
     * @param depth levels of children to show: 0 for the node alone, {@link Integer#MAX_VALUE} for all
     * @return the lines, the top node first
     * @throws KeeperException.NoNodeException if {@code path} does not exist
     * @throws KeeperException if ZooKeeper fails otherwise
     * @throws InterruptedException if interrupted
     */
    static List<String> read(BatonClient client, String path, int depth, InspectOptions options)
            throws KeeperException, InterruptedException {
        return new InspectView(options).lines(new TreeReader(client).read(path, readDepth(depth)), depth);
    }

    /**
     * {@return the depth to read: two more levels, so that a shown node's layout can look at its children and
     *     grandchildren (a semaphore's lease nodes)}
     *
     * @param depth the depth to show
     */
    static int readDepth(int depth) {
        return depth >= Integer.MAX_VALUE - 2 ? Integer.MAX_VALUE : depth + 2;
    }

    /**
     * {@return the lines, the top node first}
     *
     * @param root the tree, read at least {@link #readDepth} deep
     * @param depth levels of children to show
     */
    List<String> lines(Znode root, int depth) {
        List<String> lines = new ArrayList<>();
        render(root, root.path(), root.path().length(), depth, false, null, 0, lines);
        return lines;
    }

    private void render(Znode node, String label, int width, int depthLeft, boolean expanded, Role role, int level,
            List<String> lines) {
        Optional<Finding> finding = Layouts.recognize(node, options);
        boolean showChildren = (depthLeft > 0 || expanded) && node.childrenRead();
        StringBuilder line = new StringBuilder(INDENT.repeat(level)).append(String.format("%-" + width + "s", label));
        line.append("  ").append(DiscoveryFormat.describe(node.data()).orElseGet(() -> DataFormat.describe(node.data())));
        if (node.ephemeralOwner() != 0) {
            line.append("  ephemeral 0x").append(Long.toHexString(node.ephemeralOwner()));
        }
        if (!showChildren && node.childCount() > 0) {
            line.append("  (").append(node.childCount()).append(node.childCount() == 1 ? " child)" : " children)");
        }
        finding.ifPresent(f -> line.append("  [").append(f.summary()).append(']'));
        if (role != null) {
            line.append("  [").append(role.display()).append(']');
        }
        lines.add(line.toString());
        if (!showChildren) {
            return;
        }
        List<Znode> children = ordered(node, finding);
        int childWidth = children.stream().mapToInt(c -> c.name().length()).max().orElse(0);
        for (Znode child : children) {
            Role childRole = finding.map(f -> f.roles().get(child.name())).orElse(null);
            boolean expand = finding.map(f -> f.expand().contains(child.name())).orElse(false);
            render(child, child.name(), childWidth, Math.max(depthLeft - 1, 0), expand, childRole, level + 1, lines);
        }
    }

    /**
     * {@return what {@code --json} prints: the top node's object}
     *
     * @param root the tree, read at least {@link #readDepth} deep
     * @param depth levels of children to show
     */
    Map<String, Object> json(Znode root, int depth) {
        return json(root, depth, false, null);
    }

    private Map<String, Object> json(Znode node, int depthLeft, boolean expanded, Role role) {
        Optional<Finding> finding = Layouts.recognize(node, options);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", node.path());
        String text = DataFormat.text(node.data());
        json.put("data", text);
        if (text == null) {
            json.put("dataHex", DataFormat.hex(node.data()).substring(2));
        }
        json.put("dataLength", node.data().length);
        OptionalLong counter = DataFormat.counter(node.data());
        if (counter.isPresent()) {
            json.put("counter", counter.getAsLong());
        }
        json.put("version", node.stat().getVersion());
        json.put("ephemeralOwner", node.ephemeralOwner() == 0 ? null : "0x" + Long.toHexString(node.ephemeralOwner()));
        json.put("numChildren", node.childCount());
        if (role != null) {
            json.putAll(role.json());
        }
        finding.ifPresent(f -> json.put("recipe", f.json()));
        if ((depthLeft > 0 || expanded) && node.childrenRead()) {
            List<Object> children = new ArrayList<>();
            for (Znode child : ordered(node, finding)) {
                children.add(json(child, Math.max(depthLeft - 1, 0),
                        finding.map(f -> f.expand().contains(child.name())).orElse(false),
                        finding.map(f -> f.roles().get(child.name())).orElse(null)));
            }
            json.put("children", children);
        }
        return json;
    }

    /** Children without a role by name, then those with one in the finding's (queue) order. */
    private static List<Znode> ordered(Znode node, Optional<Finding> finding) {
        Map<String, Role> roles = finding.map(Finding::roles).orElse(Map.of());
        List<Znode> plain = new ArrayList<>();
        Map<String, Znode> byName = new LinkedHashMap<>();
        for (Znode child : node.childList()) {
            if (roles.containsKey(child.name())) {
                byName.put(child.name(), child);
            } else {
                plain.add(child);
            }
        }
        plain.sort(Comparator.comparing(Znode::name));
        List<Znode> ordered = new ArrayList<>(plain);
        roles.keySet().forEach(name -> {
            if (byName.containsKey(name)) {
                ordered.add(byName.get(name));
            }
        });
        return ordered;
    }
}
