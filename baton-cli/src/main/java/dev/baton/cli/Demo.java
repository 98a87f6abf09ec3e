package dev.baton.cli;

import java.util.List;

/**
 * One scenario that {@code baton demo <name>} can run. A recipe's demo is one class implementing this and one
 * entry in {@link Demos#ALL}.
 *
 * <p>A demo prints what happens as it happens through {@link DemoContext#log}, waits for what it expects with
 * {@link Recorder}s (never with sleeps: {@link DemoContext#pause} is for pacing the show only), and registers
 * every client and recipe it opens with {@link DemoContext#closeOnExit} so nothing outlives it. Implementations
 * are stateless; {@link #run} may be called more than once, one call at a time.
 */
interface Demo {

    /**
     * The name users type after {@code baton demo}.
     *
     * @return a short lower-case name, such as {@code "client"} or {@code "leader-latch"}
     */
    String name();

    /**
     * Other names {@code baton demo} accepts for this demo, such as the recipe's class name.
     *
     * @return the aliases, compared ignoring case; none by default
     */
    default List<String> aliases() {
        return List.of();
    }

    /**
     * A one-line description for {@code baton demo --list}.
     *
     * @return the description, without a trailing period
     */
    String description();

    /**
     * Runs the scenario to its end.
     *
     * @param ctx the server, the output and the pacing
     * @throws Exception if a step fails; the command prints it and exits with 1
     */
    void run(DemoContext ctx) throws Exception;
}
