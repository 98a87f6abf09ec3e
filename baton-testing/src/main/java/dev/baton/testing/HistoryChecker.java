package dev.baton.testing;

import java.util.List;

/**
 * Verifies one property of a recorded {@link History}. Instances come from {@link Checkers}; they are stateless
 * and may be reused and shared between threads.
 */
public interface HistoryChecker {

    /**
     * Returns a short name of the property, e.g. {@code "mutual-exclusion"}, used in {@link Violation#checker()}.
     *
     * @return the property's name, lower case with hyphens
     */
    String name();

    /**
     * Checks the property over {@code events} (a {@link History#events()} snapshot, in history order).
     *
     * @param events the recorded events to check
     * @return the violations found, in history order; empty if the property holds
     */
    List<Violation> check(List<History.Event> events);
}
