package dev.baton.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The temporary directory an {@link EmbeddedZooKeeper} keeps its snapshots and transaction log in, from the
 * server's construction to its {@code close()}. A JVM shutdown hook deletes it if a test forgets to close the
 * server.
 */
final class ServerDataDirectory {

    private final Path path;
    private final Thread cleanupHook;

    /**
     * Creates the directory and registers its shutdown hook.
     *
     * @throws UncheckedIOException if the directory cannot be created
     */
    ServerDataDirectory() {
        try {
            this.path = Files.createTempDirectory("baton-zk-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for ZooKeeper", e);
        }
        Path dir = path;
        this.cleanupHook = new Thread(() -> Directories.deleteRecursively(dir), "baton-zk-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanupHook);
    }

    /** The directory. */
    Path path() {
        return path;
    }

    /**
     * Deletes the directory and everything in it, and unregisters the shutdown hook.
     *
     * @throws UncheckedIOException if a file cannot be deleted
     */
    void delete() {
        try {
            Runtime.getRuntime().removeShutdownHook(cleanupHook);
        } catch (IllegalStateException e) {
            // The JVM is shutting down; the hook deletes the directory anyway.
        }
        Directories.deleteRecursively(path);
    }
}
