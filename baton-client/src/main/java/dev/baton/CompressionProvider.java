package dev.baton;

/**
 * Compresses node data on the way to the server and decompresses it on the way back, for operations marked
 * {@code compressed()} / {@code decompressed()}, or for all data when the client is built with
 * {@link Baton.Builder#enableCompression()}.
 *
 * <p>Implementations must be thread-safe.
 */
public interface CompressionProvider {

    /**
     * {@return the compressed bytes}
     *
     * @param path the node's path as the user wrote it
     * @param data the data to compress
     */
    byte[] compress(String path, byte[] data);

    /**
     * {@return the original data}
     *
     * @param path the node's path as the user wrote it
     * @param compressed bytes produced by {@link #compress}
     * @throws IllegalArgumentException if the bytes are not valid compressed data
     */
    byte[] decompress(String path, byte[] compressed);
}
