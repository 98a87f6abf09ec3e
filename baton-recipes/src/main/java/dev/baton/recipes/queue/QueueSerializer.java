package dev.baton.recipes.queue;

/**
 * Turns queue items into bytes and back. The bytes of each item are stored inside the item node's data in
 * Curator's multi-item format, so a serializer that agrees with the one a Curator queue uses makes the two
 * interoperate.
 *
 * <p>Thread-safety: implementations are called from any thread, often concurrently; they must be thread-safe.
 *
 * @param <T> the item type
 */
public interface QueueSerializer<T> {

    /**
     * {@return its bytes, not null (may be empty)}
     *
     * @param item an item, never null
     */
    byte[] serialize(T item);

    /**
     * {@return the item}
     *
     * @param bytes bytes made by {@link #serialize}
     */
    T deserialize(byte[] bytes);
}
