package dev.baton.recipes.cache;

import dev.baton.BatonClient;

/**
 * A listener in the shape of Curator's classic {@code PathChildrenCacheListener}: events for the direct
 * children of one path. Adapt it to a {@link BatonCache} with
 * {@link BatonCacheListener.Builder#forPathChildrenCache(String, BatonClient, PathChildrenCacheListener)}.
 */
@FunctionalInterface
public interface PathChildrenCacheListener {

    /**
     * Called for each event, in order, on the cache's event delivery (see {@link BatonCache}).
     *
     * @param client the client given to the adapter
     * @param event what happened
     * @throws Exception anything; it is logged and does not stop other listeners or later events
     */
    void childEvent(BatonClient client, PathChildrenCacheEvent event) throws Exception;
}
