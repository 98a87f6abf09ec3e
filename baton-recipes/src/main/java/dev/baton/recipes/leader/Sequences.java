package dev.baton.recipes.leader;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Orders recipe nodes as Curator does: by the text after the last occurrence of the recipe's node name (the
 * 10-digit sequence), ignoring any {@code _c_<uuid>-} protection prefix. The sequence is compared as a number,
 * which gives the same order as Curator's text comparison for every sequence ZooKeeper produces before its
 * counter wraps at 2^31.
 */
final class Sequences {
    private Sequences() {
    }

    /** The nodes whose names contain {@code nodeName}, in queue order. */
    static List<String> sorted(List<String> children, String nodeName) {
        List<String> nodes = new ArrayList<>(children.size());
        for (String child : children) {
            if (child.contains(nodeName)) {
                nodes.add(child);
            }
        }
        nodes.sort(Comparator.comparingLong((String n) -> sequence(n, nodeName)).thenComparing(n -> n));
        return nodes;
    }

    /** The sequence of a node, or {@link Long#MAX_VALUE} if it has none (such nodes sort last). */
    static long sequence(String node, String nodeName) {
        int at = node.lastIndexOf(nodeName);
        if (at < 0) {
            return Long.MAX_VALUE;
        }
        try {
            return Long.parseLong(node.substring(at + nodeName.length()));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }
}
