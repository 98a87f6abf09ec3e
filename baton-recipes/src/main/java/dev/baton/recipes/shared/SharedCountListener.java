package dev.baton.recipes.shared;

import dev.baton.state.ConnectionStateListener;

/**
 * Told when a {@link SharedCount}'s value changes, and (as a {@link ConnectionStateListener}) about the client's
 * connection states, so a listener knows when the value it holds may be stale ({@code SUSPENDED}, {@code LOST}).
 */
public interface SharedCountListener extends ConnectionStateListener {

    /**
     * Called with each new value the count learns of, in order, once per value. Values written by others in
     * quick succession may be skipped (ZooKeeper tells that the node changed, and the count reads the latest).
     *
     * @param sharedCount the count
     * @param newCount its new value
     * @throws Exception anything; it is reported to the log and does not stop other listeners
     */
    void countHasChanged(SharedCountReader sharedCount, int newCount) throws Exception;
}
