package dev.baton.recipes.nodes;

/**
 * Told each time a {@link PersistentNode} has its node on the server: after the
 * first creation and after every re-creation (or take-over of a node already at its path). Curator's
 * {@code PersistentNodeListener} shape.
 */
@FunctionalInterface
public interface PersistentNodeListener {

    /**
     * Called once the node exists and is this instance's, in order of the creations.
     *
     * @param path the node's actual path (with its sequence number, for a sequential mode)
     * @throws Exception anything; it is logged and does not stop other listeners
     */
    void nodeCreated(String path) throws Exception;
}
