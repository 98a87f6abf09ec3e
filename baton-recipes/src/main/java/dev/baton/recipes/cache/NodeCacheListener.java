package dev.baton.recipes.cache;

/**
 * Told that the node of a {@link NodeCache} changed: created, its data changed, or deleted. Read the new state
 * with {@link NodeCache#getCurrentData()}. Curator's {@code NodeCacheListener} shape.
 */
@FunctionalInterface
public interface NodeCacheListener {

    /**
     * Called after each change of the node, in order, on the cache's event delivery (see {@link BatonCache}).
     *
     * @throws Exception anything; it is logged and does not stop other listeners or later events
     */
    void nodeChanged() throws Exception;
}
