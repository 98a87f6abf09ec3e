package dev.baton.discovery;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link InstanceSerializer}: Curator's JSON, field for field, so that Curator's
 * {@code curator-x-discovery} (and Spring Cloud Zookeeper, built on it) and Baton read each other's registrations.
 *
 * <pre>{@code
 * {"name":"orders","id":"6f1c…","address":"10.0.0.7","port":8080,"sslPort":null,
 *  "payload":{"@class":"com.example.Details","region":"eu-west"},"registrationTimeUTC":1718000000000,
 *  "serviceType":"DYNAMIC","uriSpec":{"parts":[{"value":"scheme","variable":true},{"value":"://","variable":false}]},
 *  "enabled":true}
 * }</pre>
 *
 * <h2>Writing</h2>
 * The fields in Curator's order, nulls included, and the payload as Curator's Jackson annotation writes it: an
 * object payload with its class name in an {@code "@class"} field, other values as Jackson's type-wrapped form.
 * {@code enabled} is written unless the serializer is made in compatible mode (as Curator's default serializer
 * is, for readers older than Curator 2.12 that fail on unknown fields).
 *
 * <h2>Reading</h2>
 * Unknown fields are ignored; a missing {@code enabled} reads as true, a missing {@code serviceType} as
 * {@link ServiceType#DYNAMIC}. The payload is read as the payload class given here, whatever class the
 * {@code "@class"} field names, unless it names a subclass of it: unlike Curator, a registration cannot make the
 * reader instantiate a class of the writer's choosing. With {@code Object.class} as payload class an object payload
 * reads as a {@code Map}.
 *
 * <p>Thread-safe.
 *
 * @param <T> the payload's type
 */
public final class JsonInstanceSerializer<T> implements InstanceSerializer<T> {
    private static final ObjectMapper DEFAULT_MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    private static final String CLASS_FIELD = "@class";

    private final Class<T> payloadClass;
    private final boolean compatibleSerializationMode;
    private final ObjectMapper mapper;

    /**
     * A serializer that writes {@code enabled}.
     *
     * @param payloadClass the payload's class ({@code Void.class} for none)
     * @throws NullPointerException if {@code payloadClass} is null
     */
    public JsonInstanceSerializer(Class<T> payloadClass) {
        this(payloadClass, false);
    }

    /**
     * @param payloadClass the payload's class ({@code Void.class} for none)
     * @param compatibleSerializationMode true to leave out the {@code enabled} field, as Curator's default
     *        serializer does
     * @throws NullPointerException if {@code payloadClass} is null
     */
    public JsonInstanceSerializer(Class<T> payloadClass, boolean compatibleSerializationMode) {
        this(payloadClass, compatibleSerializationMode, DEFAULT_MAPPER);
    }

    /**
     * A serializer whose payloads go through the given mapper (to add modules, such as Java time). The mapper is
     * used, not changed; unknown payload fields are ignored all the same.
     *
     * @param payloadClass the payload's class ({@code Void.class} for none)
     * @param compatibleSerializationMode true to leave out the {@code enabled} field
     * @param mapper the mapper for payloads
     * @throws NullPointerException if an argument is null
     */
    public JsonInstanceSerializer(Class<T> payloadClass, boolean compatibleSerializationMode, ObjectMapper mapper) {
        this.payloadClass = Objects.requireNonNull(payloadClass, "payloadClass");
        this.compatibleSerializationMode = compatibleSerializationMode;
        this.mapper = Objects.requireNonNull(mapper, "mapper");
    }

    @Override
    public byte[] serialize(ServiceInstance<T> instance) {
        Objects.requireNonNull(instance, "instance");
        ObjectNode json = mapper.createObjectNode();
        json.put("name", instance.getName());
        json.put("id", instance.getId());
        json.put("address", instance.getAddress());
        json.put("port", instance.getPort());
        json.put("sslPort", instance.getSslPort());
        try {
            json.set("payload", mapper.valueToTree(new PayloadHolder(instance.getPayload())).get("payload"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot write the payload of " + instance.getId() + " as JSON: "
                    + e.getMessage(), e);
        }
        json.put("registrationTimeUTC", instance.getRegistrationTimeUTC());
        json.put("serviceType", instance.getServiceType().name());
        if (instance.getUriSpec() == null) {
            json.putNull("uriSpec");
        } else {
            ArrayNode parts = json.putObject("uriSpec").putArray("parts");
            for (UriSpec.Part part : instance.getUriSpec().getParts()) {
                parts.addObject().put("value", part.value()).put("variable", part.variable());
            }
        }
        if (!compatibleSerializationMode) {
            json.put("enabled", instance.isEnabled());
        }
        try {
            return mapper.writeValueAsBytes(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write " + instance.getId() + " as JSON", e);
        }
    }

    @Override
    public ServiceInstance<T> deserialize(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        JsonNode json;
        try {
            json = mapper.readTree(bytes);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (json == null || !json.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        JsonNode type = json.get("serviceType");
        ServiceType serviceType;
        try {
            serviceType = isAbsent(type) ? ServiceType.DYNAMIC : ServiceType.valueOf(type.asText());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown serviceType " + type, e);
        }
        JsonNode enabled = json.get("enabled");
        JsonNode time = json.get("registrationTimeUTC");
        return new ServiceInstance<>(text(json, "name", ""), text(json, "id", ""), textOrNull(json, "address"),
                integer(json, "port"), integer(json, "sslPort"), payload(json.get("payload")),
                isAbsent(time) ? 0 : time.asLong(), serviceType, uriSpec(json.get("uriSpec")),
                isAbsent(enabled) || enabled.asBoolean(true));
    }

    private @Nullable T payload(JsonNode node) {
        if (isAbsent(node) || payloadClass == Void.class) {
            return null;
        }
        Class<?> target = payloadClass;
        JsonNode value = node;
        if (node.isObject() && node.has(CLASS_FIELD)) {
            target = declared(node.get(CLASS_FIELD).asText());
            value = ((ObjectNode) node.deepCopy()).without(CLASS_FIELD);
        } else if (node.isArray() && node.size() == 2 && node.get(0).isTextual() && looksLikeClassName(node.get(0))) {
            target = declared(node.get(0).asText()); // Jackson's wrapped form for values that are not objects
            value = node.get(1);
        }
        try {
            return payloadClass.cast(mapper.readerFor(target)
                    .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).readValue(value));
        } catch (IOException | ClassCastException e) {
            throw new IllegalArgumentException("payload is not a " + payloadClass.getName() + ": " + e.getMessage(),
                    e);
        }
    }

    /** The class a payload's type id names, if it is a proper subclass of the payload class; else the latter. */
    private Class<?> declared(String className) {
        if (payloadClass == Object.class || className.equals(payloadClass.getName())) {
            return payloadClass;
        }
        try {
            Class<?> named = Class.forName(className, false, loader());
            return payloadClass.isAssignableFrom(named) ? named : payloadClass;
        } catch (ClassNotFoundException | LinkageError e) {
            return payloadClass;
        }
    }

    private ClassLoader loader() {
        ClassLoader loader = payloadClass.getClassLoader();
        return loader != null ? loader : JsonInstanceSerializer.class.getClassLoader();
    }

    private static boolean looksLikeClassName(JsonNode node) {
        String text = node.asText();
        return text.indexOf('.') > 0 && text.chars().noneMatch(Character::isWhitespace);
    }

    private static @Nullable UriSpec uriSpec(JsonNode node) {
        if (isAbsent(node)) {
            return null;
        }
        JsonNode parts = node.get("parts");
        List<UriSpec.Part> list = new ArrayList<>();
        if (parts != null && parts.isArray()) {
            for (JsonNode part : parts) {
                list.add(new UriSpec.Part(text(part, "value", ""), part.path("variable").asBoolean(false)));
            }
        }
        return new UriSpec(list);
    }

    private static String text(JsonNode json, String field, String absent) {
        String text = textOrNull(json, field);
        return text != null ? text : absent;
    }

    private static @Nullable String textOrNull(JsonNode json, String field) {
        JsonNode node = json.get(field);
        return isAbsent(node) ? null : node.asText();
    }

    private static @Nullable Integer integer(JsonNode json, String field) {
        JsonNode node = json.get(field);
        if (isAbsent(node)) {
            return null;
        }
        if (node.isIntegralNumber() && node.canConvertToInt()) {
            return node.intValue();
        }
        try {
            return Integer.valueOf(node.textValue().trim());
        } catch (NumberFormatException | NullPointerException e) {
            throw new IllegalArgumentException(field + " is not a port: " + node, e);
        }
    }

    private static boolean isAbsent(@Nullable JsonNode node) {
        return node == null || node.getNodeType() == JsonNodeType.NULL || node.isMissingNode();
    }

    /** Carries Curator's annotation, so the payload is written exactly as Curator's Jackson writes it. */
    static final class PayloadHolder {
        @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS, defaultImpl = Object.class)
        public final @Nullable Object payload;

        PayloadHolder(@Nullable Object payload) {
            this.payload = payload;
        }
    }

    @Override
    public String toString() {
        return "JsonInstanceSerializer[" + payloadClass.getName() + "]";
    }
}
