package dev.baton.discovery;

/**
 * Turns a {@link ServiceInstance} into a registration znode's data and back. The default,
 * {@link JsonInstanceSerializer}, writes Curator's JSON; replace it (with {@code ServiceDiscoveryBuilder.serializer})
 * to use another format or another JSON library. Only {@link JsonInstanceSerializer} touches Jackson: with a
 * serializer of one's own, Jackson can be left off the class path.
 *
 * <p>Implementations must be thread-safe.
 *
 * @param <T> the payload's type
 */
public interface InstanceSerializer<T> {

    /**
     * {@return its bytes}
     *
     * @param instance an instance
     * @throws IllegalArgumentException if the instance cannot be written (its payload, say)
     */
    byte[] serialize(ServiceInstance<T> instance);

    /**
     * {@return the instance}
     *
     * @param bytes a registration's data
     * @throws IllegalArgumentException if the bytes are not an instance this serializer can read (queries skip
     *         such a registration, with a logged warning)
     */
    ServiceInstance<T> deserialize(byte[] bytes);
}
