package dev.baton.recipes.shared;

import java.util.Objects;

/**
 * A value together with the ZooKeeper data version it was read at; pass it back to
 * {@link SharedCount#trySetCount(VersionedValue, int)} or {@link SharedValue#trySetValue(VersionedValue, byte[])}
 * to change the value only if nobody else changed it since. As for any record, equality compares the components
 * with {@code equals}, which for a {@code byte[]} value means the same array, not the same contents.
 *
 * @param version the node's data version when the value was read (ZooKeeper's {@code int}, which wraps around)
 * @param value the value, not null
 * @param <T> the value's type
 */
public record VersionedValue<T>(int version, T value) {

    /**
     * @throws NullPointerException if {@code value} is null
     * @param version the version
     * @param value the value
     */
    public VersionedValue {
        Objects.requireNonNull(value, "value");
    }

    /** {@return {@link #version()}, named as in Curator} */
    public int getVersion() {
        return version;
    }

    /** {@return {@link #value()}, named as in Curator} */
    public T getValue() {
        return value;
    }
}
