package dev.baton.cli;

import dev.baton.discovery.JsonInstanceSerializer;
import dev.baton.discovery.ServiceInstance;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** Shows a service discovery registration (Curator's JSON, written by Baton or Curator) in one line. Stateless. */
final class DiscoveryFormat {
    private static final JsonInstanceSerializer<Object> JSON = new JsonInstanceSerializer<>(Object.class);

    private DiscoveryFormat() {
    }

    /**
     * {@return {@code instance orders/a1 at 10.0.0.7:8080 DYNAMIC enabled uri http://... payload {...}}, or empty if
     *         the data is not a registration}
     *
     * @param data a node's data; may be null
     */
    static Optional<String> describe(byte[] data) {
        return instance(data).map(DiscoveryFormat::describe);
    }

    /**
     * {@return the registration the data holds, or empty if it is not one}
     *
     * @param data a node's data; may be null
     */
    static Optional<ServiceInstance<Object>> instance(byte[] data) {
        if (data == null || data.length < 2 || data[0] != '{') {
            return Optional.empty();
        }
        String text = new String(data, StandardCharsets.UTF_8);
        if (!text.contains("\"registrationTimeUTC\"") || !text.contains("\"serviceType\"")) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.deserialize(data));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String describe(ServiceInstance<Object> instance) {
        StringBuilder line = new StringBuilder("instance ").append(instance.getName()).append('/')
                .append(instance.getId()).append(" at ").append(instance.getAddress());
        if (instance.getPort() != null) {
            line.append(':').append(instance.getPort());
        }
        if (instance.getSslPort() != null) {
            line.append(" ssl:").append(instance.getSslPort());
        }
        line.append(' ').append(instance.getServiceType()).append(instance.isEnabled() ? " enabled" : " DISABLED");
        if (instance.getUriSpec() != null) {
            line.append(" uri ").append(instance.buildUriSpec());
        }
        if (instance.getPayload() != null) {
            line.append(" payload ").append(instance.getPayload());
        }
        return line.toString();
    }
}
