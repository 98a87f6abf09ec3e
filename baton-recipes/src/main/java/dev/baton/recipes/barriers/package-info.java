/**
 * Barriers: {@link dev.baton.recipes.barriers.DistributedBarrier} (one node that holds everyone back until it is
 * removed) and {@link dev.baton.recipes.barriers.DistributedDoubleBarrier} (members enter together and leave
 * together). Both are wire-compatible with Apache Curator's recipes of the same names.
 */
@NullMarked
package dev.baton.recipes.barriers;

import org.jspecify.annotations.NullMarked;
