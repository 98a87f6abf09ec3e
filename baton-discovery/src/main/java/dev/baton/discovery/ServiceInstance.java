package dev.baton.discovery;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One registered instance of a service: where it is ({@link #getAddress()}, {@link #getPort()},
 * {@link #getSslPort()}, {@link #getUriSpec()}), what it is ({@link #getName()}, {@link #getId()}), how long its
 * registration lives ({@link #getServiceType()}), whether providers hand it out ({@link #isEnabled()}), and a
 * payload of the application's own (JSON through the default serializer). The same fields as Curator's
 * {@code ServiceInstance}, written as Curator writes them.
 *
 * <pre>{@code
 * ServiceInstance<Details> me = ServiceInstance.<Details>builder()
 *         .name("orders")
 *         .port(8080)
 *         .uriSpec(new UriSpec("{scheme}://{address}:{port}"))
 *         .payload(new Details("eu-west"))
 *         .build();
 * }</pre>
 *
 * <p>Immutable (the payload is held as given: keep it immutable too) and thread-safe. Equality compares every
 * field.
 *
 * @param <T> the payload's type
 */
public final class ServiceInstance<T> {
    private final String name;
    private final String id;
    private final @Nullable String address;
    private final @Nullable Integer port;
    private final @Nullable Integer sslPort;
    private final @Nullable T payload;
    private final long registrationTimeUTC;
    private final ServiceType serviceType;
    private final @Nullable UriSpec uriSpec;
    private final boolean enabled;

    ServiceInstance(String name, String id, @Nullable String address, @Nullable Integer port,
            @Nullable Integer sslPort, @Nullable T payload, long registrationTimeUTC, ServiceType serviceType,
            @Nullable UriSpec uriSpec, boolean enabled) {
        this.name = name;
        this.id = id;
        this.address = address;
        this.port = port;
        this.sslPort = sslPort;
        this.payload = payload;
        this.registrationTimeUTC = registrationTimeUTC;
        this.serviceType = serviceType;
        this.uriSpec = uriSpec;
        this.enabled = enabled;
    }

    /**
     * A builder with a random UUID as id, this host's address, {@link ServiceType#DYNAMIC}, enabled, and the
     * current time as registration time. Only the name must be set.
     *
     * @param <T> the payload's type
     * @return a new builder
     */
    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    /** {@return a builder holding this instance's fields, to make a changed copy (for {@code updateService})} */
    public Builder<T> toBuilder() {
        Builder<T> builder = new Builder<>();
        builder.name = name;
        builder.id = id;
        builder.address = address;
        builder.port = port;
        builder.sslPort = sslPort;
        builder.payload = payload;
        builder.registrationTimeUTC = registrationTimeUTC;
        builder.serviceType = serviceType;
        builder.uriSpec = uriSpec;
        builder.enabled = enabled;
        return builder;
    }

    /** {@return the service's name: the znode under the base path holding its instances} */
    public String getName() {
        return name;
    }

    /** {@return this instance's id: its znode's name (unique within the service)} */
    public String getId() {
        return id;
    }

    /** {@return the address, or null if none was registered} */
    public @Nullable String getAddress() {
        return address;
    }

    /** {@return the port, or null if none} */
    public @Nullable Integer getPort() {
        return port;
    }

    /** {@return the SSL port, or null if none} */
    public @Nullable Integer getSslPort() {
        return sslPort;
    }

    /** {@return the payload, or null if none} */
    public @Nullable T getPayload() {
        return payload;
    }

    /** {@return when the instance was registered (epoch milliseconds, as its registrant's clock said)} */
    public long getRegistrationTimeUTC() {
        return registrationTimeUTC;
    }

    /** {@return how long the registration lives} */
    public ServiceType getServiceType() {
        return serviceType;
    }

    /** {@return the URI template, or null if none} */
    public @Nullable UriSpec getUriSpec() {
        return uriSpec;
    }

    /**
     * {@return false if the instance is registered but taken out of rotation: providers skip it, queries still
     *         return it}
     */
    public boolean isEnabled() {
        return enabled;
    }

    /** {@return the URI template filled from this instance, or {@code ""} without a template} */
    public String buildUriSpec() {
        return buildUriSpec(Collections.emptyMap());
    }

    /**
     * {@return the URI template filled from this instance and the variables, or {@code ""} without a template}
     *
     * @param variables values of variables, winning over this instance's fields
     * @throws NullPointerException if {@code variables} is null
     */
    public String buildUriSpec(Map<String, Object> variables) {
        Objects.requireNonNull(variables, "variables");
        return uriSpec == null ? "" : uriSpec.build(this, variables);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ServiceInstance<?> that
                && registrationTimeUTC == that.registrationTimeUTC
                && enabled == that.enabled
                && name.equals(that.name)
                && id.equals(that.id)
                && Objects.equals(address, that.address)
                && Objects.equals(port, that.port)
                && Objects.equals(sslPort, that.sslPort)
                && Objects.equals(payload, that.payload)
                && serviceType == that.serviceType
                && Objects.equals(uriSpec, that.uriSpec);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, id, address, port, sslPort, payload, registrationTimeUTC, serviceType, uriSpec,
                enabled);
    }

    @Override
    public String toString() {
        return "ServiceInstance{name=" + name + ", id=" + id + ", address=" + address + ", port=" + port
                + ", sslPort=" + sslPort + ", payload=" + payload + ", registrationTimeUTC=" + registrationTimeUTC
                + ", serviceType=" + serviceType + ", uriSpec=" + uriSpec + ", enabled=" + enabled + "}";
    }

    /**
     * Builds a {@link ServiceInstance}; each setter checks its argument at once. Not thread-safe; {@link #build()}
     * copies, so a builder can make several instances.
     *
     * @param <T> the payload's type
     */
    public static final class Builder<T> {
        private @Nullable String name;
        private String id = UUID.randomUUID().toString();
        private @Nullable String address;
        private @Nullable Integer port;
        private @Nullable Integer sslPort;
        private @Nullable T payload;
        private long registrationTimeUTC = System.currentTimeMillis();
        private ServiceType serviceType = ServiceType.DYNAMIC;
        private @Nullable UriSpec uriSpec;
        private boolean enabled = true;

        private Builder() {
        }

        /**
         * {@return this}
         *
         * @param name the service's name (required): one znode name
         * @throws NullPointerException if {@code name} is null
         * @throws IllegalArgumentException if it is empty, holds {@code /}, or is not a valid znode name
         */
        public Builder<T> name(String name) {
            this.name = Names.requireNodeName(name, "name");
            return this;
        }

        /**
         * {@return this}
         *
         * @param id the instance's id (default: a random UUID): one znode name, unique within the service
         * @throws NullPointerException if {@code id} is null
         * @throws IllegalArgumentException if it is empty, holds {@code /}, or is not a valid znode name
         */
        public Builder<T> id(String id) {
            this.id = Names.requireNodeName(id, "id");
            return this;
        }

        /**
         * {@return this}
         *
         * @param address the address (default: this host's first non-loopback IPv4 address, else the loopback
         *        address)
         * @throws NullPointerException if {@code address} is null
         */
        public Builder<T> address(String address) {
            this.address = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * {@return this}
         *
         * @param port the port
         * @throws IllegalArgumentException if {@code port} is not within 1..65535
         */
        public Builder<T> port(int port) {
            this.port = Names.requirePort(port, "port");
            return this;
        }

        /**
         * {@return this}
         *
         * @param sslPort the SSL port
         * @throws IllegalArgumentException if {@code sslPort} is not within 1..65535
         */
        public Builder<T> sslPort(int sslPort) {
            this.sslPort = Names.requirePort(sslPort, "sslPort");
            return this;
        }

        /**
         * {@return this}
         *
         * @param payload the payload, or null for none
         */
        public Builder<T> payload(@Nullable T payload) {
            this.payload = payload;
            return this;
        }

        /**
         * {@return this}
         *
         * @param serviceType how long the registration lives (default {@link ServiceType#DYNAMIC})
         * @throws NullPointerException if {@code serviceType} is null
         */
        public Builder<T> serviceType(ServiceType serviceType) {
            this.serviceType = Objects.requireNonNull(serviceType, "serviceType");
            return this;
        }

        /**
         * {@return this}
         *
         * @param uriSpec the URI template
         * @throws NullPointerException if {@code uriSpec} is null
         */
        public Builder<T> uriSpec(UriSpec uriSpec) {
            this.uriSpec = Objects.requireNonNull(uriSpec, "uriSpec");
            return this;
        }

        /**
         * {@return this}
         *
         * @param enabled false to register the instance out of rotation (default true)
         */
        public Builder<T> enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /**
         * {@return this}
         *
         * @param registrationTimeUTC the registration time, epoch milliseconds (default: when the builder was
         *        made)
         */
        public Builder<T> registrationTimeUTC(long registrationTimeUTC) {
            this.registrationTimeUTC = registrationTimeUTC;
            return this;
        }

        /**
         * {@return a new instance}
         *
         * @throws NullPointerException if no name was set
         */
        public ServiceInstance<T> build() {
            Objects.requireNonNull(name, "name");
            return new ServiceInstance<>(name, id, address != null ? address : LocalAddress.VALUE, port, sslPort,
                    payload, registrationTimeUTC, serviceType, uriSpec, enabled);
        }
    }

    /** This host's address, looked up once, on first use. */
    private static final class LocalAddress {
        static final String VALUE = find();

        private static String find() {
            try {
                for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                    if (!nic.isUp() || nic.isLoopback()) {
                        continue;
                    }
                    for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                        if (address instanceof Inet4Address && !address.isLoopbackAddress()
                                && !address.isLinkLocalAddress()) {
                            return address.getHostAddress();
                        }
                    }
                }
            } catch (SocketException | RuntimeException e) {
                // fall through to the loopback address
            }
            return InetAddress.getLoopbackAddress().getHostAddress();
        }
    }
}
