package dev.baton.recipes.shared;

import dev.baton.listen.Listenable;

/** The read side of a {@link SharedValue}: its current value and listeners for changes. */
public interface SharedValueReader {

    /**
     * {@return the latest value this process knows of (a copy)}
     *
     * @throws IllegalStateException if the value is not started (or its {@code startAsync()} has not completed)
     *         or is closed
     */
    byte[] getValue();

    /**
     * {@return the latest value this process knows of (a copy), with its version, for
     *         {@link SharedValue#trySetValue(VersionedValue, byte[])}}
     *
     * @throws IllegalStateException if the value is not started (or its {@code startAsync()} has not completed)
     *         or is closed
     */
    VersionedValue<byte[]> getVersionedValue();

    /** {@return where to add and remove listeners of the value and of the connection} */
    Listenable<SharedValueListener> getListenable();
}
