package dev.baton.recipes.shared;

import dev.baton.listen.Listenable;

/** The read side of a {@link SharedCount}: its current value and listeners for changes. */
public interface SharedCountReader extends Listenable<SharedCountListener> {

    /**
     * {@return the latest value this process knows of}
     *
     * @throws IllegalStateException if the count is not started (or its {@code startAsync()} has not completed)
     *         or is closed
     */
    int getCount();

    /**
     * {@return the latest value this process knows of, with its version, for
     *         {@link SharedCount#trySetCount(VersionedValue, int)}}
     *
     * @throws IllegalStateException if the count is not started (or its {@code startAsync()} has not completed)
     *         or is closed
     */
    VersionedValue<Integer> getVersionedValue();
}
