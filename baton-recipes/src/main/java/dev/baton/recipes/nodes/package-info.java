/**
 * Nodes that look after themselves: {@link dev.baton.recipes.nodes.PersistentNode} (a node re-created after
 * deletion or session loss), {@link dev.baton.recipes.nodes.PersistentTtlNode} (a node that goes by itself a TTL
 * after its owner stops touching it) and {@link dev.baton.recipes.nodes.GroupMember} (group membership built on a
 * persistent node and a {@link dev.baton.recipes.cache.BatonCache}). No class here owns a thread.
 */
@NullMarked
package dev.baton.recipes.nodes;

import org.jspecify.annotations.NullMarked;
