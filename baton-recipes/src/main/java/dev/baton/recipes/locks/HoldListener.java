package dev.baton.recipes.locks;

/**
 * Told when a hold of a lock, semaphore lease or leadership may be lost, is lost, or is confirmed again after a
 * reconnection. Curator's locks never tell their holder; Baton's do. Calls for one lock arrive in order.
 */
@FunctionalInterface
public interface HoldListener {

    /**
     * Called with the new state of a hold, in order for one lock.
     *
     * @param hold the hold whose state changed
     * @param state the new state
     */
    void holdStateChanged(Hold hold, HoldState state);
}
