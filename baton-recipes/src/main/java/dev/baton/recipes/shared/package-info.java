/**
 * Shared values kept current by a watch: {@link dev.baton.recipes.shared.SharedValue}, bytes every process sees
 * and can change, and {@link dev.baton.recipes.shared.SharedCount}, an integer on it. Wire-compatible with Apache
 * Curator's {@code SharedValue} (the bytes as they are) and {@code SharedCount} (a 4-byte big-endian int).
 */
@NullMarked
package dev.baton.recipes.shared;

import org.jspecify.annotations.NullMarked;
