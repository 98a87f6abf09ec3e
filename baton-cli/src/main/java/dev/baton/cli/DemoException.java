package dev.baton.cli;

/**
 * A demo cannot go on for a reason the user can act on (the server cannot be reached, the demo's path is
 * taken, an expected event did not come). The command prints only its message, without a stack trace.
 */
final class DemoException extends Exception {

    /**
     * @param message what went wrong and, where possible, what to do about it
     */
    DemoException(String message) {
        super(message);
    }
}
