/**
 * Distributed atomic counters: {@link dev.baton.recipes.atomic.DistributedAtomicLong} and
 * {@link dev.baton.recipes.atomic.DistributedAtomicInteger}, optimistic (version-checked writes retried under a
 * {@link dev.baton.retry.RetryPolicy}) and optionally promoted to a lock
 * ({@link dev.baton.recipes.atomic.PromotedToLock}). Wire-compatible with Apache Curator's recipes of the same
 * names (8- and 4-byte big-endian values).
 */
@NullMarked
package dev.baton.recipes.atomic;

import org.jspecify.annotations.NullMarked;
