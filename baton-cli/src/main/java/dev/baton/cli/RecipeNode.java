package dev.baton.cli;

import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A child node whose name says it is a recipe's queue entry, such as {@code _c_<uuid>-latch-0000000001}:
 * Curator's and Baton's recipes order their participants by the 10-digit sequence after the <em>last</em>
 * occurrence of the recipe's marker ({@code latch-}, {@code lock-}, {@code __READ__}, {@code __WRIT__},
 * {@code lease-}); the {@code _c_<uuid>-} protection prefix plays no part.
 *
 * @param name the node's name
 * @param marker the recipe marker found in the name
 * @param sequence the sequence number after the marker
 */
record RecipeNode(String name, String marker, long sequence) {

    /** Queue order: by sequence, then by name for the (never expected) tie. */
    static final Comparator<RecipeNode> QUEUE_ORDER =
            Comparator.comparingLong(RecipeNode::sequence).thenComparing(RecipeNode::name);

    /** Greedy {@code .*} so the marker found is the last one in the name. */
    private static final Pattern NAME =
            Pattern.compile("^(.*)(latch-|lock-|__READ__|__WRIT__|lease-)(-?\\d{10})$");

    /**
     * Reads a node name.
     *
     * @param name a child's name
     * @return the recipe node, or empty if the name has no recipe marker followed by a sequence number
     */
    static Optional<RecipeNode> parse(String name) {
        Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new RecipeNode(name, m.group(2), Long.parseLong(m.group(3))));
    }

    /**
     * What the first node in a queue of this kind is.
     *
     * @return {@code "leader"} for latch nodes, {@code "holder"} for locks and leases
     */
    String firstRole() {
        return "latch-".equals(marker) ? "leader" : "holder";
    }
}
