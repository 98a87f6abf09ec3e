/**
 * Shared values: {@link dev.baton.recipes.shared.SharedCount}, an integer every process sees and can change, kept
 * current by a watch. Wire-compatible with Apache Curator's {@code SharedCount} (a 4-byte big-endian int).
 */
package dev.baton.recipes.shared;
