package dev.baton;

/** The last step of a background operation that takes a path and data. */
public interface BackgroundPathAndBytesable extends BackgroundPathable {

    /**
     * Starts the operation and returns at once.
     *
     * @param path the node's path
     * @param data the data, not null
     * @throws IllegalArgumentException if the path is invalid
     * @throws IllegalStateException if the client is not started or is closed
     */
    void forPath(String path, byte[] data);
}
