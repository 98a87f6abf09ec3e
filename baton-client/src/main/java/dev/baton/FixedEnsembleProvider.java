package dev.baton;

import java.util.Objects;

/**
 * An {@link EnsembleProvider} holding one connect string, updated when ensemble tracking sees a
 * reconfiguration. Thread-safe.
 */
public final class FixedEnsembleProvider implements EnsembleProvider {
    private volatile String connectionString;

    /**
     * @param connectionString the connect string, such as {@code "127.0.0.1:2181"}
     * @throws NullPointerException if the connect string is null
     * @throws IllegalArgumentException if it is blank
     */
    public FixedEnsembleProvider(String connectionString) {
        this.connectionString = check(connectionString);
    }

    @Override
    public String getConnectionString() {
        return connectionString;
    }

    @Override
    public void setConnectionString(String connectionString) {
        this.connectionString = check(connectionString);
    }

    private static String check(String connectionString) {
        Objects.requireNonNull(connectionString, "connectionString");
        if (connectionString.isBlank()) {
            throw new IllegalArgumentException("connectionString must not be blank, was \"" + connectionString + "\"");
        }
        return connectionString;
    }

    @Override
    public String toString() {
        return "FixedEnsembleProvider[" + connectionString + "]";
    }
}
