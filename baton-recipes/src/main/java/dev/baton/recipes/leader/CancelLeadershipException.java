package dev.baton.recipes.leader;

/**
 * Thrown from {@link LeaderSelectorListener#stateChanged} to end the current leadership: the thread running
 * {@link LeaderSelectorListener#takeLeadership} is interrupted. With {@link LeaderSelector#autoRequeue()} the
 * selector queues again afterwards.
 */
public class CancelLeadershipException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception. */
    public CancelLeadershipException() {
        super("leadership cancelled");
    }

    /**
     * @param message why leadership is cancelled
     */
    public CancelLeadershipException(String message) {
        super(message);
    }
}
