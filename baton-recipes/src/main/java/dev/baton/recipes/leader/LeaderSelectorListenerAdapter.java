package dev.baton.recipes.leader;

import dev.baton.BatonClient;
import dev.baton.state.ConnectionState;

/**
 * A {@link LeaderSelectorListener} that gives up leadership when the client's connection-state error policy says
 * the connection is in trouble: {@code SUSPENDED} or {@code LOST} under the standard policy, {@code LOST} only
 * under the session policy. Extend it and implement {@link #takeLeadership}.
 */
public abstract class LeaderSelectorListenerAdapter implements LeaderSelectorListener {

    /** For subclasses. */
    protected LeaderSelectorListenerAdapter() {
    }

    /**
     * @throws CancelLeadershipException when {@code newState} is an error state under the client's policy
     */
    @Override
    public void stateChanged(BatonClient client, ConnectionState newState) {
        if (client.getConnectionStateErrorPolicy().isErrorState(newState)) {
            throw new CancelLeadershipException("connection " + newState);
        }
    }
}
