package dev.baton.recipes.queue;

import org.jspecify.annotations.Nullable;

/**
 * A source of several items that go into one item node, put with {@code putMulti} and delivered one by one.
 *
 * <p>Thread-safety: read once, by the thread that puts it.
 *
 * @param <T> the item type
 */
@FunctionalInterface
public interface MultiItem<T> {

    /**
     * {@return the next item, or null when there are no more}
     *
     * @throws Exception anything; the put fails with it, wrapped in an {@link IllegalStateException} unless it is
     *         a runtime exception
     */
    @Nullable T nextItem() throws Exception;
}
