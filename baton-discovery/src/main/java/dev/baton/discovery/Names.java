package dev.baton.discovery;

import dev.baton.internal.BatonPaths;
import java.util.Objects;

/** Argument checks shared by the discovery types. */
final class Names {
    private Names() {
    }

    /**
     * {@return {@code value}}
     *
     * @param value a service name or instance id
     * @param argument the argument's name, for the message
     * @throws NullPointerException if {@code value} is null
     * @throws IllegalArgumentException if {@code value} cannot be one znode's name
     */
    static String requireNodeName(String value, String argument) {
        Objects.requireNonNull(value, argument);
        if (value.isEmpty() || value.indexOf('/') >= 0) {
            throw new IllegalArgumentException(argument + " must be a znode name (not empty, no '/'): \"" + value
                    + "\"");
        }
        try {
            BatonPaths.validate("/" + value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(argument + " is not a valid znode name: \"" + value + "\" ("
                    + e.getMessage() + ")", e);
        }
        return value;
    }

    /**
     * {@return {@code port}}
     *
     * @param port a port
     * @param argument the argument's name, for the message
     * @throws IllegalArgumentException if {@code port} is not within 1..65535
     */
    static int requirePort(int port, String argument) {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException(argument + " must be within 1..65535, was " + port);
        }
        return port;
    }
}
