/**
 * Local views of ZooKeeper data kept current by persistent watches (by one-shot watches on ZooKeeper 3.5):
 * {@link dev.baton.recipes.cache.BatonCache}
 * (one node or a whole subtree, with listener adapters for the classic node, path-children and tree shapes) and
 * {@link dev.baton.recipes.cache.PersistentWatcher} (a persistent watch that re-registers itself after
 * reconnects and session loss). {@link dev.baton.recipes.cache.NodeCache},
 * {@link dev.baton.recipes.cache.PathChildrenCache} and {@link dev.baton.recipes.cache.TreeCache} are Curator's
 * classic cache classes, in their shapes, as façades over {@code BatonCache}. No class here owns a thread.
 */
@NullMarked
package dev.baton.recipes.cache;

import org.jspecify.annotations.NullMarked;
