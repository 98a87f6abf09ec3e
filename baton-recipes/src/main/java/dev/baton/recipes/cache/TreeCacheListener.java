package dev.baton.recipes.cache;

import dev.baton.BatonClient;

/**
 * A listener in the shape of Curator's classic {@code TreeCacheListener}: events for every node of the cached
 * subtree. Adapt it to a {@link BatonCache} with
 * {@link BatonCacheListener.Builder#forTreeCache(BatonClient, TreeCacheListener)}.
 */
@FunctionalInterface
public interface TreeCacheListener {

    /**
     * Called for each event, in order, on the cache's event delivery (see {@link BatonCache}).
     *
     * @param client the client given to the adapter
     * @param event what happened
     * @throws Exception anything; it is logged and does not stop other listeners or later events
     */
    void childEvent(BatonClient client, TreeCacheEvent event) throws Exception;
}
