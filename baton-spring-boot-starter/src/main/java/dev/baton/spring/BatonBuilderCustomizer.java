package dev.baton.spring;

import dev.baton.Baton;

/**
 * Adjusts the client builder after the starter has applied the {@code baton.*} properties, before the client is
 * built: the options no property covers, such as an ACL provider, a thread factory, compression or a connection
 * state error policy. Declare one or more as beans; they run in {@link org.springframework.core.annotation.Order}
 * order.
 *
 * <p>A builder option can be set only once, and the starter always sets the servers (from
 * {@code baton.connect-string}), the session and connection timeouts and an exponential back-off retry policy; a
 * customizer that sets one of those again fails the context with {@link IllegalStateException}. An application
 * that needs an ensemble provider or another kind of retry policy defines its own {@code BatonClient} bean, and
 * the starter's backs off.
 */
@FunctionalInterface
public interface BatonBuilderCustomizer {

    /**
     * Adjusts the builder.
     *
     * @param builder the builder, with the properties applied (an option already set cannot be set again)
     */
    void customize(Baton.Builder builder);
}
