package dev.baton.testing;

import java.util.List;
import java.util.Objects;

/**
 * A property of a {@link History} that does not hold, as found by a {@link HistoryChecker}.
 *
 * @param checker the name of the checker that found it (e.g. {@code "mutual-exclusion"})
 * @param message what is wrong, naming the clients, the lock/resource and the tokens involved
 * @param window the minimal window of the history that shows it: the events from the start of the conflicting
 *     state (e.g. the first of the conflicting holds) to the event at which the property broke
 * @param excerpt {@code window} formatted for humans, the events that matter marked with {@code >>}
 * @param marked the events that matter, in {@code window}'s order (the conflicting holds, the operations no order
 *     explains): whose clients a violation involves; empty when the checker marks none
 */
public record Violation(String checker, String message, List<History.Event> window, String excerpt,
        List<History.Event> marked) {

    /**
     * Validates and copies the fields.
     *
     * @param checker the name of the checker that found it
     * @param message what is wrong
     * @param window the events that show it; copied
     * @param excerpt {@code window} formatted for humans
     * @param marked the events that matter; copied
     * @throws NullPointerException if an argument is null or {@code window} or {@code marked} holds a null
     */
    public Violation {
        Objects.requireNonNull(checker, "checker");
        Objects.requireNonNull(message, "message");
        window = List.copyOf(window);
        Objects.requireNonNull(excerpt, "excerpt");
        marked = List.copyOf(marked);
    }

    /**
     * A violation whose checker marks no event.
     *
     * @param checker the name of the checker that found it
     * @param message what is wrong
     * @param window the events that show it; copied
     * @param excerpt {@code window} formatted for humans
     * @throws NullPointerException if an argument is null or {@code window} holds a null
     */
    public Violation(String checker, String message, List<History.Event> window, String excerpt) {
        this(checker, message, window, excerpt, List.of());
    }

    /** Returns the checker, message and excerpt, for an assertion message or a log. */
    @Override
    public String toString() {
        return "[" + checker + "] " + message + "\n" + excerpt;
    }
}
