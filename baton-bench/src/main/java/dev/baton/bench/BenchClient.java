package dev.baton.bench;

import org.apache.zookeeper.KeeperException;

/**
 * One ZooKeeper library seen through the operations the scenarios need. Each library has one implementation in
 * {@code dev.baton.bench.impl}; each uses its library the way its users would (blocking calls for the blocking
 * hooks, the library's own asynchronous style for {@link #createAsync}), with default settings.
 *
 * <p>A scenario that needs an operation not listed here (a lock, a leader latch, a cache) adds a hook with a
 * {@code default} body that throws {@link UnsupportedOperationException}, and each adapter that can, overrides
 * it.
 *
 * <p>Not thread-safe for {@link #open}/{@link #close}; the operations may be called from any thread once open.
 */
public interface BenchClient extends AutoCloseable {

    /**
     * Receives the outcome of an asynchronous operation, on whatever thread the library completes it.
     */
    @FunctionalInterface
    interface Completion {
        /**
         * Called once per operation.
         *
         * @param failure null on success, otherwise what the operation failed with
         */
        void complete(Throwable failure);
    }

    /**
     * The library's name as it appears in the report ({@code "Baton"}, {@code "Curator"}, {@code "ZooKeeper"}).
     *
     * @return the display name
     */
    String name();

    /**
     * Connects to the server and waits (up to 30 seconds) until the session is established.
     *
     * @param connectString the server, such as {@code "127.0.0.1:2181"}
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if no session could be established in time
     */
    void open(String connectString) throws InterruptedException;

    /** Closes the session. Calling it before {@link #open} or twice does nothing. */
    @Override
    void close();

    /**
     * Creates a persistent node and waits for the answer.
     *
     * @param path the node's path; its parent exists
     * @param data the node's data
     * @throws KeeperException what the server answered
     * @throws InterruptedException if interrupted while waiting
     */
    void create(String path, byte[] data) throws KeeperException, InterruptedException;

    /**
     * Starts creating a persistent node and returns at once; {@code done} is called when the server answered.
     * Never throws: a failure to even send the request is reported through {@code done} too.
     *
     * @param path the node's path; its parent exists
     * @param data the node's data
     * @param done called once with the outcome
     */
    void createAsync(String path, byte[] data, Completion done);

    /**
     * Deletes a node, any version, and waits for the answer.
     *
     * @param path the node's path
     * @throws KeeperException what the server answered
     * @throws InterruptedException if interrupted while waiting
     */
    void delete(String path) throws KeeperException, InterruptedException;

    /**
     * Reads a node's data and waits for the answer.
     *
     * @param path the node's path
     * @return the data
     * @throws KeeperException what the server answered
     * @throws InterruptedException if interrupted while waiting
     */
    byte[] getData(String path) throws KeeperException, InterruptedException;
}
