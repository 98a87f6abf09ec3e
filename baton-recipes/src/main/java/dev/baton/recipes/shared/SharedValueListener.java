package dev.baton.recipes.shared;

import dev.baton.state.ConnectionStateListener;

/**
 * Told when a {@link SharedValue}'s value changes, and (as a {@link ConnectionStateListener}) about the client's
 * connection states, so a listener knows when the value it holds may be stale ({@code SUSPENDED}, {@code LOST}).
 * Curator's {@code SharedValueListener} shape.
 */
public interface SharedValueListener extends ConnectionStateListener {

    /**
     * Called with each new value the shared value learns of, in order, once per value. Values written by others
     * in quick succession may be skipped (ZooKeeper tells that the node changed, and the value reads the latest).
     *
     * @param sharedValue the shared value
     * @param newValue its new value (a copy: the listener may keep or change it)
     * @throws Exception anything; it is reported to the log and does not stop other listeners
     */
    void valueHasChanged(SharedValueReader sharedValue, byte[] newValue) throws Exception;
}
