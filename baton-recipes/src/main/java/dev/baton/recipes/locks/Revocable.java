package dev.baton.recipes.locks;

import java.util.concurrent.Executor;

/**
 * A lock whose holders can be asked to give it up, with Curator's protocol: {@link Revoker#attemptRevoke} sets
 * the holder's node data to {@code __REVOKE__}, and a holder made revocable watches its node's data. A Curator
 * holder hears a Baton revoker and the reverse.
 *
 * @param <T> what the listener is given
 */
public interface Revocable<T> {

    /**
     * Makes every later hold revocable: its listener is told when someone asks for the hold to be given up. A
     * request made while this instance was still waiting for the hold is told as soon as the hold is granted.
     *
     * @param listener told of revocation requests, on ZooKeeper's event thread
     * @throws NullPointerException if {@code listener} is null
     */
    void makeRevocable(RevocationListener<T> listener);

    /**
     * As {@link #makeRevocable(RevocationListener)}, the listener running on {@code executor}.
     *
     * @param listener told of revocation requests
     * @param executor where the listener runs
     * @throws NullPointerException if an argument is null
     */
    void makeRevocable(RevocationListener<T> listener, Executor executor);
}
