package dev.baton.recipes.leader;

import dev.baton.BatonClient;
import dev.baton.state.ConnectionStateListener;

/**
 * The work a {@link LeaderSelector} does while it leads. It is also told about connection state changes; to
 * give up leadership when the connection is in trouble, throw {@link CancelLeadershipException} from
 * {@link #stateChanged} (as {@link LeaderSelectorListenerAdapter} does), which interrupts
 * {@link #takeLeadership}.
 */
public interface LeaderSelectorListener extends ConnectionStateListener {

    /**
     * Called when this instance becomes leader; leadership lasts until this method returns or throws. Runs on
     * the selector's executor. Respond to interruption: it is how leadership is taken away
     * ({@link LeaderSelector#interruptLeadership()}, {@link LeaderSelector#close()}, a cancelled connection).
     *
     * @param client the selector's client
     * @throws Exception anything; leadership ends either way
     */
    void takeLeadership(BatonClient client) throws Exception;
}
