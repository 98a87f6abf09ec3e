package dev.baton.discovery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A URI template for a service instance, as Curator writes it: literal text and {@code {variable}}s, such as
 * {@code "{scheme}://{address}:{port}/api"}. Immutable and thread-safe.
 *
 * <p>Variables filled from an instance by {@link #build(ServiceInstance, Map)}: {@code {scheme}} ({@code https}
 * when the instance has an SSL port, else {@code http}), {@code {name}}, {@code {id}}, {@code {address}},
 * {@code {port}}, {@code {ssl-port}}, {@code {registration-time-utc}}, {@code {service-type}} (lower case);
 * {@code {[}} and {@code {]}} give literal braces. Variables given in the map win over those; a variable with no
 * value gives nothing.
 */
public final class UriSpec {
    /** {@code {scheme}}: {@code https} if the instance has an SSL port, else {@code http}. */
    public static final String FIELD_SCHEME = "scheme";
    /** {@code {name}}: the service name. */
    public static final String FIELD_NAME = "name";
    /** {@code {id}}: the instance id. */
    public static final String FIELD_ID = "id";
    /** {@code {address}}: the instance address. */
    public static final String FIELD_ADDRESS = "address";
    /** {@code {port}}: the instance port. */
    public static final String FIELD_PORT = "port";
    /** {@code {ssl-port}}: the instance SSL port. */
    public static final String FIELD_SSL_PORT = "ssl-port";
    /** {@code {registration-time-utc}}: the registration time, epoch milliseconds. */
    public static final String FIELD_REGISTRATION_TIME_UTC = "registration-time-utc";
    /** {@code {service-type}}: the service type in lower case. */
    public static final String FIELD_SERVICE_TYPE = "service-type";
    /** <code>{[}</code>: a literal <code>{</code>. */
    public static final String FIELD_OPEN_BRACE = "[";
    /** <code>{]}</code>: a literal <code>}</code>. */
    public static final String FIELD_CLOSE_BRACE = "]";

    /**
     * One piece of a template: literal text, or the name of a variable.
     *
     * @param value the text, or the variable's name
     * @param variable true for a variable
     */
    public record Part(String value, boolean variable) {
        /**
         * @param value the text, or the variable's name
         * @param variable true for a variable
         * @throws NullPointerException if {@code value} is null
         */
        public Part {
            Objects.requireNonNull(value, "value");
        }
    }

    private final List<Part> parts;

    /**
     * Parses a template.
     *
     * @param rawSpec the template, such as {@code "{scheme}://{address}:{port}"}
     * @throws NullPointerException if {@code rawSpec} is null
     * @throws IllegalArgumentException if a brace is unbalanced or nested
     */
    public UriSpec(String rawSpec) {
        Objects.requireNonNull(rawSpec, "rawSpec");
        List<Part> parsed = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        boolean inVariable = false;
        for (int i = 0; i < rawSpec.length(); i++) {
            char c = rawSpec.charAt(i);
            if (c == '{' || c == '}') {
                if ((c == '{') == inVariable) {
                    throw new IllegalArgumentException("rawSpec has " + (inVariable ? "a nested '{'" : "a '}' without '{'")
                            + " at index " + i + ": \"" + rawSpec + "\"");
                }
                if (text.length() > 0) {
                    String value = text.toString();
                    parsed.add(new Part(inVariable ? value.trim() : value, inVariable));
                    text.setLength(0);
                }
                inVariable = c == '{';
            } else {
                text.append(c);
            }
        }
        if (inVariable) {
            throw new IllegalArgumentException("rawSpec has an unclosed '{': \"" + rawSpec + "\"");
        }
        if (text.length() > 0) {
            parsed.add(new Part(text.toString(), false));
        }
        this.parts = List.copyOf(parsed);
    }

    /**
     * A template made of the given parts (what a decoded registration holds).
     *
     * @param parts the parts
     * @throws NullPointerException if {@code parts} or a part is null
     */
    public UriSpec(List<Part> parts) {
        this.parts = List.copyOf(parts);
    }

    /** {@return the parts, in order (unmodifiable)} */
    public List<Part> getParts() {
        return parts;
    }

    /** {@return the template with no instance and no variables: only literal text and {@code {scheme}}} */
    public String build() {
        return build(null, Map.of());
    }

    /**
     * {@return the URI}
     *
     * @param variables values of variables
     * @throws NullPointerException if {@code variables} is null
     */
    public String build(Map<String, Object> variables) {
        return build(null, variables);
    }

    /**
     * {@return the URI}
     *
     * @param instance the instance whose fields fill the variables, or null
     */
    public String build(@Nullable ServiceInstance<?> instance) {
        return build(instance, Map.of());
    }

    /**
     * Fills the template.
     *
     * @param instance the instance whose fields fill the variables, or null
     * @param variables values of variables, winning over the instance's
     * @return the URI
     * @throws NullPointerException if {@code variables} is null
     */
    public String build(@Nullable ServiceInstance<?> instance, Map<String, Object> variables) {
        Objects.requireNonNull(variables, "variables");
        Map<String, Object> values = new HashMap<>();
        values.put(FIELD_OPEN_BRACE, "{");
        values.put(FIELD_CLOSE_BRACE, "}");
        values.put(FIELD_SCHEME, "http");
        if (instance != null) {
            values.put(FIELD_NAME, orEmpty(instance.getName()));
            values.put(FIELD_ID, orEmpty(instance.getId()));
            values.put(FIELD_ADDRESS, orEmpty(instance.getAddress()));
            values.put(FIELD_PORT, orEmpty(instance.getPort()));
            values.put(FIELD_SSL_PORT, orEmpty(instance.getSslPort()));
            values.put(FIELD_REGISTRATION_TIME_UTC, instance.getRegistrationTimeUTC());
            values.put(FIELD_SERVICE_TYPE, instance.getServiceType() == null ? ""
                    : instance.getServiceType().name().toLowerCase(Locale.ROOT));
            if (instance.getSslPort() != null) {
                values.put(FIELD_SCHEME, "https");
            }
        }
        values.putAll(variables);
        StringBuilder uri = new StringBuilder();
        for (Part part : parts) {
            if (!part.variable()) {
                uri.append(part.value());
            } else {
                Object value = values.get(part.value());
                if (value != null) {
                    uri.append(value);
                }
            }
        }
        return uri.toString();
    }

    private static Object orEmpty(@Nullable Object value) {
        return value == null ? "" : value;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof UriSpec other && parts.equals(other.parts);
    }

    @Override
    public int hashCode() {
        return parts.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder raw = new StringBuilder();
        for (Part part : parts) {
            raw.append(part.variable() ? "{" + part.value() + "}" : part.value());
        }
        return raw.toString();
    }
}
