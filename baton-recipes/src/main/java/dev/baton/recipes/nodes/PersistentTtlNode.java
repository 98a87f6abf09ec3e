package dev.baton.recipes.nodes;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Requests;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node that lives while this instance keeps touching it, and goes by itself a while after it stops (a crashed
 * process, a process cut off from ZooKeeper), even if the session lives on: a registration that outlives its
 * owner by at most the TTL. On Apache Curator's layout for {@code PersistentTtlNode}, so either library can own
 * or read it: the node is a {@link CreateMode#CONTAINER container} kept by a {@link PersistentNode}, with one
 * {@link CreateMode#PERSISTENT_WITH_TTL TTL} child ({@value #DEFAULT_CHILD_NODE_NAME} by default) whose data is
 * set every TTL / touch schedule factor. Once the child has not been touched for the TTL, the server deletes it;
 * the container, then empty, goes at the server's next container check.
 *
 * <pre>{@code
 * try (PersistentTtlNode alive = new PersistentTtlNode(client, "/workers/host-1", 10_000, address)) {
 *     alive.start();
 *     alive.waitForInitialCreate(10, TimeUnit.SECONDS);
 *     ...
 * }
 * }</pre>
 *
 * <p>{@link #waitForInitialCreate} returns once the TTL child exists too, not only the container: the server keeps
 * a container that never had a child for good, so an owner that died between the two would leave the node behind.
 *
 * <p>While this instance is open it re-creates what goes missing: the container (through its
 * {@code PersistentNode}) and the child (at the next touch). The server must have TTL nodes enabled
 * ({@code zookeeper.extendedTypesEnabled=true}); otherwise touches fail with {@code UnimplementedException},
 * which is logged.
 *
 * <p>Thread-safe. No thread of its own: touches are short tasks on the client's scheduler
 * ({@link BatonClient#schedule}) sending asynchronous requests.
 */
public final class PersistentTtlNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PersistentTtlNode.class);

    /** The TTL child's name unless another is given: {@value}, as Curator's. */
    public static final String DEFAULT_CHILD_NODE_NAME = "touch";
    /** How many times per TTL the child is touched unless told otherwise: {@value}, as Curator's. */
    public static final int DEFAULT_TOUCH_SCHEDULE_FACTOR = 2;
    private static final byte[] NO_DATA = new byte[0];

    private final Object lock = new Object();
    private final BatonClient client;
    private final PersistentNode node;
    private final long ttlMs;
    private final String childPath;
    private final Duration touchInterval;
    private final PersistentNodeListener touchOnCreate = path -> touch();

    @GuardedBy("lock")
    private boolean started;
    @GuardedBy("lock")
    private boolean closed;
    /** The touch scheduled next; null until the first is scheduled. */
    @GuardedBy("lock")
    private @Nullable ScheduledFuture<?> nextTouch;
    @GuardedBy("lock")
    private CompletableFuture<?> touching = CompletableFuture.completedFuture(null);
    /**
     * Completes once the TTL child has been created (or touched) the first time. Until then the container has
     * never had a child, and the server keeps such a container for good: an owner that died before its first touch
     * would leave the node forever. So the initial wait waits for this too.
     */
    private final CompletableFuture<Void> firstTouch = new CompletableFuture<>();

    /**
     * A TTL node with the default child name and touch schedule factor.
     *
     * @param client the client
     * @param path the node's path
     * @param ttlMs how long the node may go untouched before the server deletes it, {@code > 0}
     * @param initData the node's data
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid or {@code ttlMs} is out of range
     */
    public PersistentTtlNode(BatonClient client, String path, long ttlMs, byte[] initData) {
        this(client, path, ttlMs, initData, DEFAULT_CHILD_NODE_NAME, DEFAULT_TOUCH_SCHEDULE_FACTOR);
    }

    /**
     * @param client the client
     * @param path the node's path
     * @param ttlMs how long the node may go untouched before the server deletes it, {@code > 0}
     * @param initData the node's data
     * @param childNodeName the TTL child's name
     * @param touchScheduleFactor how many times per TTL the child is touched, {@code > 0} and at most
     *        {@code ttlMs}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path or the child's name is invalid, or a number is out of range
     */
    public PersistentTtlNode(BatonClient client, String path, long ttlMs, byte[] initData, String childNodeName,
            int touchScheduleFactor) {
        this.client = Objects.requireNonNull(client, "client");
        BatonPaths.validate(Objects.requireNonNull(path, "path"));
        Objects.requireNonNull(initData, "initData");
        Objects.requireNonNull(childNodeName, "childNodeName");
        if (ttlMs <= 0 || ttlMs > 0xFFFFFFFFFFL) {
            throw new IllegalArgumentException("ttlMs must be > 0 and <= " + 0xFFFFFFFFFFL + " (ZooKeeper's limit), "
                    + "was " + ttlMs);
        }
        if (touchScheduleFactor <= 0 || touchScheduleFactor > ttlMs) {
            throw new IllegalArgumentException("touchScheduleFactor must be > 0 and <= ttlMs (" + ttlMs + "), was "
                    + touchScheduleFactor);
        }
        this.childPath = BatonPaths.validate(BatonPaths.makePath(path, childNodeName));
        if (!BatonPaths.parent(childPath).equals(path)) {
            throw new IllegalArgumentException("childNodeName must be one path segment, was " + childNodeName);
        }
        this.ttlMs = ttlMs;
        this.touchInterval = Duration.ofMillis(ttlMs / touchScheduleFactor);
        this.node = new PersistentNode(client, CreateMode.CONTAINER, false, path, initData);
    }

    /**
     * Starts creating the node and its TTL child in the background and returns at once; see
     * {@link #waitForInitialCreate}.
     *
     * @throws IllegalStateException if already started or closed, or if the client is not started
     */
    public void start() {
        synchronized (lock) {
            if (closed || started) {
                throw new IllegalStateException(this + " cannot be started: it is " + (closed ? "CLOSED" : "STARTED"));
            }
            node.getListenable().addListener(touchOnCreate);
            node.start();
            started = true;
        }
        scheduleTouch();
    }

    /**
     * Waits until the node and its TTL child have been created the first time. From then on the node is there
     * while this instance is open, and goes by itself within the TTL (and the server's next container check) if
     * its owner stops touching it, even if it never touches it again.
     *
     * @param timeout how long to wait, {@code >= 0}
     * @param unit the unit of {@code timeout}
     * @return true once both were created, false if the time ran out (also when the TTL child cannot be created,
     *         as on a server without TTL nodes; the failure is logged)
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws IllegalStateException if not started, or closed (also while waiting)
     */
    public boolean waitForInitialCreate(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (!node.waitForInitialCreate(timeout, unit)) {
            return false;
        }
        try {
            firstTouch.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException(this + " was closed while waiting for its initial create", e.getCause());
        }
    }

    /**
     * Waits, without a thread, until the node and its TTL child have been created the first time (see
     * {@link #waitForInitialCreate}).
     *
     * @return a future that completes when both have been created the first time, or fails with
     *         {@link IllegalStateException} if this instance is closed first
     * @throws IllegalStateException if not started, or closed
     */
    public CompletableFuture<Void> waitForInitialCreateAsync() {
        return node.waitForInitialCreateAsync().thenCompose(v -> firstTouch);
    }

    /** {@return a copy of the node's data} */
    public byte[] getData() {
        return node.getData();
    }

    /**
     * Changes the node's data (the container's; the TTL child holds none).
     *
     * @param data the data
     * @throws KeeperException if the server refused the write
     * @throws InterruptedException if interrupted while waiting for the write
     * @throws NullPointerException if {@code data} is null
     * @throws IllegalStateException if not started or closed
     */
    public void setData(byte[] data) throws KeeperException, InterruptedException {
        node.setData(data);
    }

    /** {@return the TTL child's path} */
    public String getChildPath() {
        return childPath;
    }

    /** {@return the TTL in milliseconds} */
    public long getTtlMs() {
        return ttlMs;
    }

    private void scheduleTouch() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            try {
                nextTouch = client.schedule(() -> {
                    touch();
                    scheduleTouch();
                }, touchInterval);
            } catch (IllegalStateException e) {
                LOG.debug("PersistentTtlNode {}: client closed, touches stop", childPath);
            }
        }
    }

    /** Creates the TTL child, or sets its data (which restarts its TTL), if the container is there. */
    private void touch() {
        synchronized (lock) {
            if (closed || node.getActualPath() == null) {
                return; // the container's (re-)creation touches again
            }
            try {
                touching = client.create().orSetData().withTtl(ttlMs).withMode(CreateMode.PERSISTENT_WITH_TTL)
                        .forPathAsync(childPath, NO_DATA).whenComplete((path, error) -> {
                            if (error == null) {
                                firstTouch.complete(null);
                            } else if (Failures.code(error) != KeeperException.Code.NONODE
                                    && !Failures.isConnectionProblem(error)) {
                                LOG.error("PersistentTtlNode {}: touch failed", childPath, Failures.unwrap(error));
                            }
                        });
            } catch (IllegalStateException e) {
                LOG.debug("PersistentTtlNode {}: client closed", childPath);
            }
        }
    }

    /**
     * Stops touching and deletes the TTL child and the node. Closing twice does nothing. As with
     * {@link PersistentNode#close()}, the deletes finish in the background when the server cannot be reached.
     */
    @Override
    public void close() {
        CompletableFuture<?> inFlight;
        boolean wasStarted;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            wasStarted = started;
            if (nextTouch != null) {
                nextTouch.cancel(false);
            }
            inFlight = touching;
        }
        firstTouch.completeExceptionally(new IllegalStateException(this + " was closed"));
        node.getListenable().removeListener(touchOnCreate);
        if (wasStarted) {
            if (!Requests.awaitAtClose(client, inFlight)) { // so that no touch re-creates the deleted child
                LOG.debug("PersistentTtlNode {}: the touch in flight at close did not finish", childPath);
            }
            try {
                if (client.isConnected() && !client.isEventThread()) {
                    client.delete().guaranteed().quietly().forPath(childPath);
                } else {
                    client.delete().guaranteed().quietly().forPathAsync(childPath).exceptionally(e -> null);
                }
            } catch (KeeperException e) {
                LOG.debug("PersistentTtlNode {}: delete failed; retrying in the background", childPath, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IllegalStateException e) {
                LOG.debug("PersistentTtlNode {}: client already closed", childPath);
            }
        }
        node.close();
    }

    @Override
    public String toString() {
        return "PersistentTtlNode[" + childPath + ", ttl=" + ttlMs + "ms]";
    }
}
