package dev.baton.discovery;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link ServiceDiscovery}. The client and the base path are required; the serializer defaults to
 * {@link JsonInstanceSerializer} (Curator's JSON), made only when {@link #build()} runs without one, so that an
 * application with its own serializer never loads Jackson.
 *
 * <pre>{@code
 * ServiceDiscovery<Details> discovery = ServiceDiscoveryBuilder.builder(Details.class)
 *         .client(client)
 *         .basePath("/services")
 *         .thisInstance(me)          // optional: registered by start()
 *         .build();
 * }</pre>
 *
 * <p>Each option may be set once ({@link IllegalStateException} otherwise). Not thread-safe.
 *
 * @param <T> the payload's type
 */
public final class ServiceDiscoveryBuilder<T> {
    private final Class<T> payloadClass;
    private @Nullable BatonClient client;
    private @Nullable String basePath;
    private @Nullable ServiceInstance<T> thisInstance;
    private @Nullable InstanceSerializer<T> serializer;
    private @Nullable Boolean watchInstances;

    private ServiceDiscoveryBuilder(Class<T> payloadClass) {
        this.payloadClass = payloadClass;
    }

    /**
     * {@return a new builder}
     *
     * @param payloadClass the class of the instances' payload ({@code Void.class} for none)
     * @param <T> the payload's type
     * @throws NullPointerException if {@code payloadClass} is null
     */
    public static <T> ServiceDiscoveryBuilder<T> builder(Class<T> payloadClass) {
        return new ServiceDiscoveryBuilder<>(Objects.requireNonNull(payloadClass, "payloadClass"));
    }

    /**
     * {@return this}
     *
     * @param client the client (required)
     * @throws NullPointerException if {@code client} is null
     * @throws IllegalStateException if already set
     */
    public ServiceDiscoveryBuilder<T> client(BatonClient client) {
        requireUnset(this.client, "client");
        this.client = Objects.requireNonNull(client, "client");
        return this;
    }

    /**
     * {@return this}
     *
     * @param basePath the path under which services are registered, such as {@code "/services"} (required)
     * @throws NullPointerException if {@code basePath} is null
     * @throws IllegalArgumentException if {@code basePath} is not a valid path
     * @throws IllegalStateException if already set
     */
    public ServiceDiscoveryBuilder<T> basePath(String basePath) {
        requireUnset(this.basePath, "basePath");
        Objects.requireNonNull(basePath, "basePath");
        try {
            BatonPaths.validate(basePath);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("basePath is invalid: " + e.getMessage(), e);
        }
        this.basePath = basePath;
        return this;
    }

    /**
     * {@return this}
     *
     * @param thisInstance an instance that {@link ServiceDiscovery#start()} registers
     * @throws NullPointerException if {@code thisInstance} is null
     * @throws IllegalStateException if already set
     */
    public ServiceDiscoveryBuilder<T> thisInstance(ServiceInstance<T> thisInstance) {
        requireUnset(this.thisInstance, "thisInstance");
        this.thisInstance = Objects.requireNonNull(thisInstance, "thisInstance");
        return this;
    }

    /**
     * {@return this}
     *
     * @param serializer how instances are written to and read from znodes (default:
     *        {@link JsonInstanceSerializer})
     * @throws NullPointerException if {@code serializer} is null
     * @throws IllegalStateException if already set
     */
    public ServiceDiscoveryBuilder<T> serializer(InstanceSerializer<T> serializer) {
        requireUnset(this.serializer, "serializer");
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        return this;
    }

    /**
     * {@return this}
     *
     * @param watchInstances true to watch this discovery's own registrations: data written to them by others
     *        (an operator disabling an instance, say) is adopted, and re-created after a session loss instead of the
     *        data registered here (default false)
     * @throws IllegalStateException if already set
     */
    public ServiceDiscoveryBuilder<T> watchInstances(boolean watchInstances) {
        requireUnset(this.watchInstances, "watchInstances");
        this.watchInstances = watchInstances;
        return this;
    }

    /**
     * {@return a new discovery, not started}
     *
     * @throws NullPointerException if the client or the base path was not set
     */
    public ServiceDiscovery<T> build() {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(basePath, "basePath");
        InstanceSerializer<T> chosen = serializer != null ? serializer : new JsonInstanceSerializer<>(payloadClass);
        return new ServiceDiscovery<>(client, basePath, chosen, thisInstance, Boolean.TRUE.equals(watchInstances));
    }

    private static void requireUnset(@Nullable Object current, String option) {
        if (current != null) {
            throw new IllegalStateException(option + " is already set");
        }
    }
}
