package dev.baton.spring;

import dev.baton.Baton;

/**
 * Adjusts the client builder after the starter has applied the {@code baton.*} properties, before the client is
 * built: an ACL provider, a thread factory, an ensemble provider in place of the connect string. Declare one or
 * more as beans; they run in {@link org.springframework.core.annotation.Order} order.
 */
@FunctionalInterface
public interface BatonBuilderCustomizer {

    /**
     * @param builder the builder, with the properties applied (an option already set cannot be set again)
     */
    void customize(Baton.Builder builder);
}
