package dev.baton.cli;

import java.util.List;
import java.util.Optional;

/** The recipe layouts {@code baton inspect} knows. Immutable and thread-safe. */
final class Layouts {

    /**
     * Every layout, tried in this order on each node; the first that recognizes a node wins. One entry per recipe
     * family. Layouts that tell a recipe by its node names come first; the last ones match by shape only
     * (UUID-named members, ephemeral children) and would take other recipes' nodes for theirs: add new layouts
     * before them.
     */
    static final List<Layout> ALL = List.of(
            new LeaderLatchLayout(),
            new LockLayout(),
            new ReadWriteLockLayout(),
            new SemaphoreLayout(),
            new DiscoveryLayout(),
            new DoubleBarrierLayout(),
            new GroupLayout());

    private Layouts() {
    }

    /**
     * {@return what the first layout that knows the node found, or empty}
     *
     * @param node a node whose children were read
     * @param options what the user told about the recipes
     */
    static Optional<Finding> recognize(Znode node, InspectOptions options) {
        if (!node.childrenRead()) {
            return Optional.empty();
        }
        for (Layout layout : ALL) {
            Optional<Finding> finding = layout.recognize(node, options);
            if (finding.isPresent()) {
                return finding;
            }
        }
        return Optional.empty();
    }
}
