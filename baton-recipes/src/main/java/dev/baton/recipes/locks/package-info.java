/**
 * Locks shared by processes: {@link dev.baton.recipes.locks.InterProcessMutex} and friends, wire-compatible with
 * Apache Curator's, with fencing tokens, lost-hold signals ({@link dev.baton.recipes.locks.HoldListener}) and
 * asynchronous acquisition that holds no thread while waiting.
 */
@NullMarked
package dev.baton.recipes.locks;

import org.jspecify.annotations.NullMarked;
