package dev.baton.bench;

import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.client.ZKClientConfig;

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
     * A recipe instance a scenario started through a hook ({@link #startLatch}, {@link #startSelector}).
     * {@link #close()} leaves the recipe the way the library's {@code close()} does.
     */
    interface Recipe extends AutoCloseable {
        /** Closes the recipe; never throws. */
        @Override
        void close();

        /**
         * The path of the recipe's own znode, where the library tells it ({@code getOurPath()}).
         *
         * @return the path, or null before the node is created or when the library does not tell
         */
        default String ourPath() {
            return null;
        }
    }

    /**
     * What a leader selector does while it leads: called inside the library's {@code takeLeadership}, whose
     * leadership ends when this returns.
     */
    @FunctionalInterface
    interface Turn {
        /**
         * Runs one turn of leadership.
         *
         * @throws InterruptedException when the selector is closed while the turn waits
         */
        void lead() throws InterruptedException;
    }

    /**
     * A new, unopened adapter of the same library, for scenarios whose participants each need their own session
     * (a leader election with one client per participant). The caller opens and closes it.
     *
     * @return a fresh adapter
     */
    BenchClient another();

    /**
     * Tells whether this library has Curator-style recipes (leader latch, leader selector, ...). Scenarios built
     * on a recipe leave out libraries without one: the bare ZooKeeper client has none.
     *
     * @return true if the recipe hooks are implemented; false by default
     */
    default boolean hasRecipes() {
        return false;
    }

    /**
     * Starts a leader latch with its library's defaults and returns at once.
     *
     * @param path the election's path; its parent may be missing
     * @param id the participant's id
     * @param isLeader called, on the library's thread, each time this latch becomes leader
     * @return the started latch
     * @throws UnsupportedOperationException if {@link #hasRecipes()} is false
     */
    default Recipe startLatch(String path, String id, Runnable isLeader) {
        throw new UnsupportedOperationException(name() + " has no leader latch");
    }

    /**
     * Starts a leader selector with {@code autoRequeue()} and returns at once; each turn of leadership runs
     * {@code turn}.
     *
     * @param path the election's path; its parent may be missing
     * @param id the participant's id
     * @param turn what each turn does; leadership ends when it returns
     * @return the started selector
     * @throws UnsupportedOperationException if {@link #hasRecipes()} is false
     */
    default Recipe startSelector(String path, String id, Turn turn) {
        throw new UnsupportedOperationException(name() + " has no leader selector");
    }

    /**
     * A started subtree cache ({@link #startCache}): Baton's {@code BatonCache}, Curator's {@code CuratorCache}.
     * {@link #close()} closes the cache the way the library's {@code close()} does.
     */
    interface Cache extends Recipe {
        /**
         * Waits until the initial load is done (the library's "initialized" callback has run).
         *
         * @param timeout how long to wait at most
         * @param unit the unit of {@code timeout}
         * @return true if initialized, false on timeout
         * @throws InterruptedException if interrupted
         */
        boolean awaitInitialized(long timeout, TimeUnit unit) throws InterruptedException;

        /** {@return how many nodes the cache holds, its root included} */
        int size();
    }

    /** Hears a cached node's data change, on whatever thread the cache calls its listeners. */
    @FunctionalInterface
    interface CacheChange {
        /**
         * Called with a node's new data.
         *
         * @param path the changed node
         * @param data its new data
         */
        void changed(String path, byte[] data);
    }

    /**
     * Builds and starts a cache of the subtree at {@code path} with the library's defaults, listening for data
     * changes, and returns at once.
     *
     * @param path the subtree's root; it exists
     * @param onChange called for every data change the cache reports (not for creations or deletions)
     * @return the started cache
     * @throws UnsupportedOperationException if {@link #hasRecipes()} is false
     */
    default Cache startCache(String path, CacheChange onChange) {
        throw new UnsupportedOperationException(name() + " has no cache");
    }

    /**
     * A started service discovery on one base path (Baton's {@code baton-discovery}, Curator's
     * {@code curator-x-discovery}), with instances of payload-less services registered as the library writes them.
     */
    interface Discovery extends Recipe {
        /**
         * Registers (or re-registers with new data) a {@code DYNAMIC} instance and waits until it is on the server.
         *
         * @param name the service
         * @param id the instance's id
         * @param port the instance's port: the field scenarios change
         */
        void register(String name, String id, int port);

        /**
         * Changes the port of an instance registered by this discovery, and waits for the write.
         *
         * @param name the service
         * @param id the instance's id
         * @param port the new port
         */
        void update(String name, String id, int port);

        /**
         * Starts a provider (round robin, the library's defaults) of a service and waits for its initial load.
         *
         * @param name the service
         * @return the provider
         */
        Provider provider(String name);

        /**
         * Starts a service cache and waits for its initial load.
         *
         * @param name the service
         * @param onChange called with the cached instances' ports by id after every change the cache reports
         * @return the cache; {@link Provider#getInstance()} of it is unused
         */
        Provider cache(String name, java.util.function.Consumer<java.util.Map<String, Integer>> onChange);
    }

    /** A started service provider or cache of one service. */
    interface Provider extends Recipe {
        /** {@return the id of the instance the provider hands out now, or null if none} */
        String getInstance();

        /** {@return how many instances are cached} */
        int size();
    }

    /**
     * Starts a service discovery on {@code basePath}.
     *
     * @param basePath the base path
     * @return the started discovery
     * @throws UnsupportedOperationException if {@link #hasRecipes()} is false
     */
    default Discovery discovery(String basePath) {
        throw new UnsupportedOperationException(name() + " has no service discovery");
    }

    /**
     * Sets a node's data, any version, and waits for the answer.
     *
     * @param path the node's path
     * @param data the new data
     * @throws KeeperException what the server answered
     * @throws InterruptedException if interrupted while waiting
     * @throws UnsupportedOperationException if the adapter does not implement it
     */
    default void setData(String path, byte[] data) throws KeeperException, InterruptedException {
        throw new UnsupportedOperationException(name() + " has no setData hook");
    }

    /** One member of a double barrier a scenario made through {@link #doubleBarrier}. */
    interface DoubleBarrier {
        /**
         * Enters and waits until every member has entered.
         *
         * @throws KeeperException from the server
         * @throws InterruptedException if interrupted
         */
        void enter() throws KeeperException, InterruptedException;

        /**
         * Leaves and waits until every member has left.
         *
         * @throws KeeperException from the server
         * @throws InterruptedException if interrupted
         */
        void leave() throws KeeperException, InterruptedException;
    }

    /** A distributed atomic long a scenario made through {@link #atomicLong}. */
    @FunctionalInterface
    interface AtomicCounter {
        /**
         * One optimistic increment attempt sequence, as the library's {@code increment()} runs it under its retry
         * policy.
         *
         * @return true if the increment succeeded ({@code AtomicValue.succeeded()})
         * @throws KeeperException from the server
         * @throws InterruptedException if interrupted
         */
        boolean increment() throws KeeperException, InterruptedException;
    }

    /**
     * A member of the library's {@code DistributedDoubleBarrier} on this adapter's session.
     *
     * @param path the barrier's path; its parent exists, the path itself may not
     * @param memberQty how many members the barrier waits for
     * @return a new member
     * @throws UnsupportedOperationException if {@link #hasRecipes()} is false
     */
    default DoubleBarrier doubleBarrier(String path, int memberQty) {
        throw new UnsupportedOperationException(name() + " has no double barrier");
    }

    /**
     * The library's {@code DistributedAtomicLong} (optimistic only) on this adapter's session, retrying a lost
     * race up to {@code retries} times without sleeping.
     *
     * @param path the counter's path (8-byte big-endian long)
     * @param retries how many retries one {@code increment()} may use
     * @return the counter
     * @throws UnsupportedOperationException if {@link #hasRecipes()} is false
     */
    default AtomicCounter atomicLong(String path, int retries) {
        throw new UnsupportedOperationException(name() + " has no atomic long");
    }

    /** A lock a scenario made through {@link #mutex} or {@link #readWriteLock}, used by one thread. */
    interface Lock {
        /**
         * Acquires the lock, waiting as long as it takes.
         *
         * @throws KeeperException from the server
         * @throws InterruptedException if interrupted
         */
        void acquire() throws KeeperException, InterruptedException;

        /**
         * Releases the lock the calling thread holds.
         *
         * @throws KeeperException from the server
         * @throws InterruptedException if interrupted
         */
        void release() throws KeeperException, InterruptedException;
    }

    /** A read-write lock a scenario made through {@link #readWriteLock}. */
    interface ReadWriteLock {
        /** {@return the shared half} */
        Lock readLock();

        /** {@return the exclusive half} */
        Lock writeLock();
    }

    /** A counting semaphore a scenario made through {@link #semaphore}. */
    @FunctionalInterface
    interface Semaphore {
        /**
         * Acquires one lease, waiting as long as it takes.
         *
         * @return the lease; {@link AutoCloseable#close() close} returns it (the library's {@code returnLease})
         * @throws KeeperException from the server
         * @throws InterruptedException if interrupted
         */
        Recipe acquire() throws KeeperException, InterruptedException;
    }

    /**
     * The library's re-entrant {@code InterProcessMutex} on this adapter's session.
     *
     * @param path the lock's path; its parent exists
     * @return the mutex
     * @throws UnsupportedOperationException if {@link #hasRecipes()} is false
     */
    default Lock mutex(String path) {
        throw new UnsupportedOperationException(name() + " has no mutex");
    }

    /**
     * The library's {@code InterProcessReadWriteLock} on this adapter's session.
     *
     * @param path the lock's path; its parent exists
     * @return the lock
     * @throws UnsupportedOperationException if {@link #hasRecipes()} is false
     */
    default ReadWriteLock readWriteLock(String path) {
        throw new UnsupportedOperationException(name() + " has no read-write lock");
    }

    /**
     * The library's {@code InterProcessSemaphoreV2} on this adapter's session.
     *
     * @param path the semaphore's path; its parent exists
     * @param maxLeases how many leases may be out at once
     * @return the semaphore
     * @throws UnsupportedOperationException if {@link #hasRecipes()} is false
     */
    default Semaphore semaphore(String path, int maxLeases) {
        throw new UnsupportedOperationException(name() + " has no semaphore");
    }

    /** A queue: its put side (a consumer, if one was given, consumes in the background). */
    interface Queue extends Recipe {
        /**
         * Puts an item, the library's default way (both put in the background by default).
         *
         * @param item the item's bytes
         * @throws KeeperException from the server
         * @throws InterruptedException if interrupted
         */
        void put(byte[] item) throws KeeperException, InterruptedException;
    }

    /**
     * Starts a distributed queue on {@code path}, on Curator's layout.
     *
     * @param path the queue's path
     * @param lockPath the lock path (at least once, one consumer at a time), or null (at most once)
     * @param consumer called with each item consumed, or null for a producer only
     * @return the started queue, closed by {@link Recipe#close()}
     */
    default Queue queue(String path, String lockPath, java.util.function.Consumer<byte[]> consumer) {
        throw new UnsupportedOperationException(name() + " has no queue");
    }

    /** A {@code SimpleDistributedQueue}: blocking offer and take on one session. */
    interface SimpleQueue extends Recipe {
        /**
         * Adds an item at the end of the queue.
         *
         * @param item the item's bytes
         * @throws KeeperException from the server
         * @throws InterruptedException if interrupted
         */
        void offer(byte[] item) throws KeeperException, InterruptedException;

        /**
         * Takes the first item, waiting as long as it takes for one.
         *
         * @return the item's bytes
         * @throws KeeperException from the server
         * @throws InterruptedException if interrupted
         */
        byte[] take() throws KeeperException, InterruptedException;
    }

    /**
     * The library's {@code SimpleDistributedQueue} on {@code path} (Curator's layout: {@code qn-<seq>} items).
     *
     * @param path the queue's path
     * @return the queue; {@link Recipe#close()} does nothing (the recipe has no lifecycle)
     * @throws UnsupportedOperationException if {@link #hasRecipes()} is false
     */
    default SimpleQueue simpleQueue(String path) {
        throw new UnsupportedOperationException(name() + " has no simple queue");
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
     * @param clientConfig the ZooKeeper client settings to connect with (TLS), given to the library the way its
     *     users give them; null for the library's defaults
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if no session could be established in time
     */
    void open(String connectString, ZKClientConfig clientConfig) throws InterruptedException;

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
