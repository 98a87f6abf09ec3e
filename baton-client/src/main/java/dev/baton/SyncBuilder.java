package dev.baton;

/**
 * Waits until the server this client is connected to has caught up with the leader, so that a following read
 * sees every write committed before the sync. Not thread-safe: one builder per call.
 */
public interface SyncBuilder extends Pathable<Void>, Backgroundable<BackgroundPathable> {
}
