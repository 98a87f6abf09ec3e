/**
 * Leader election: {@link dev.baton.recipes.leader.LeaderLatch} (be leader until closed) and
 * {@link dev.baton.recipes.leader.LeaderSelector} (take turns leading). Both are wire-compatible with Apache
 * Curator's recipes of the same names and add fencing tokens and a local safe-until deadline.
 */
@NullMarked
package dev.baton.recipes.leader;

import org.jspecify.annotations.NullMarked;
