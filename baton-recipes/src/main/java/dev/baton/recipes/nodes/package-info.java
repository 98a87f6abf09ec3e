/**
 * Nodes that look after themselves: {@link dev.baton.recipes.nodes.PersistentNode} (a node re-created after
 * deletion or session loss) and {@link dev.baton.recipes.nodes.GroupMember} (group membership built on it and
 * a {@link dev.baton.recipes.cache.BatonCache}). No class here owns a thread.
 */
package dev.baton.recipes.nodes;
