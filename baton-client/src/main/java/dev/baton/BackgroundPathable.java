package dev.baton;

/** The last step of a background operation that takes a path; failures arrive in the {@link BatonEvent}. */
public interface BackgroundPathable {

    /**
     * Starts the operation and returns at once.
     *
     * @param path the node's path
     * @throws IllegalArgumentException if the path is invalid
     * @throws IllegalStateException if the client is not started or is closed
     */
    void forPath(String path);
}
