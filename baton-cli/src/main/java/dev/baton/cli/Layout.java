package dev.baton.cli;

import java.util.Optional;

/**
 * One recipe family's znode layout, as {@code baton inspect} tells it by node names: given a node and its
 * children, says whether they hold that recipe's state and what each child is. One implementation per family,
 * listed in {@link Layouts#ALL}. Implementations are stateless and thread-safe.
 */
interface Layout {

    /**
     * Looks at a node whose children (and their children, one level further) were read.
     *
     * @param node the node; {@link Znode#childrenRead()} is true
     * @param options what the user told about recipes the server does not store (such as a semaphore's
     *     {@code maxLeases})
     * @return what the node holds, or empty if it is not this layout
     */
    Optional<Finding> recognize(Znode node, InspectOptions options);
}
