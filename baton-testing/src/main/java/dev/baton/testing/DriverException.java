package dev.baton.testing;

import java.util.Objects;

/**
 * A command sent to a {@link DriverProcess} did not succeed: the driver answered {@code ERR}, did not answer in
 * time (it may be paused), or its process ended.
 */
public final class DriverException extends RuntimeException {

    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** Why the command did not succeed. */
    public enum Reason {
        /** The driver answered {@code ERR}; the message is its answer. */
        ERROR_REPLY,
        /** No answer within the timeout (the process may be paused or busy). */
        TIMEOUT,
        /** The driver's process ended. */
        EXITED
    }

    private final Reason reason;

    DriverException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /**
     * Why the command did not succeed.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }
}
