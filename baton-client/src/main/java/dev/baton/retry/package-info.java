/**
 * Retry policies: when and how often a ZooKeeper operation that failed for a connection reason is tried again.
 * The constructors have the shapes of Apache Curator's policies so programs written for Curator read the same.
 */
@NullMarked
package dev.baton.retry;

import org.jspecify.annotations.NullMarked;
