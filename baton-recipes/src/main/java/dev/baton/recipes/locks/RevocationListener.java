package dev.baton.recipes.locks;

/**
 * Told that another process asked the holder of a lock (or lease) to give it up, through
 * {@link Revoker#attemptRevoke}. Curator's {@code RevocationListener} shape. Revocation is cooperative: the lock is
 * not taken away; the listener decides whether to release it, and when.
 *
 * @param <T> what was asked for: the lock, or the {@link Lease}
 */
@FunctionalInterface
public interface RevocationListener<T> {

    /**
     * Called when a revocation of a hold of {@code forLock} is requested. Runs on the executor given to
     * {@link Revocable#makeRevocable(RevocationListener, java.util.concurrent.Executor)}, else on ZooKeeper's event
     * thread (do not block there; release from another thread if releasing must wait). For a per-thread lock such
     * as {@link InterProcessMutex}, remember that {@code release()} must come from the holding thread.
     *
     * @param forLock the lock (or lease) whose release is asked for
     */
    void revocationRequested(T forLock);
}
