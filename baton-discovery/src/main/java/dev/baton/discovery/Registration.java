package dev.baton.discovery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.recipes.cache.BatonCache;
import dev.baton.recipes.cache.BatonCacheListener;
import dev.baton.recipes.nodes.PersistentNode;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance registered by a {@link ServiceDiscovery}: its znode, kept on the server with the latest data.
 *
 * <p>{@link ServiceType#DYNAMIC}, {@link ServiceType#DYNAMIC_SEQUENTIAL} and {@link ServiceType#STATIC} sit on a
 * {@link PersistentNode}: re-created (with the data last given to it) when deleted or when the session that owned it
 * ended, deleted on {@link #remove()}. {@link ServiceType#PERMANENT} is a plain persistent node written with
 * create-or-set; a write that failed for a connection reason is done again on the next (re)connection
 * ({@link #retryIfPending()}), and {@link #abandon()} leaves the node where it is.
 *
 * <p>With {@code watchInstances}, a single-node {@link BatonCache} sees writes made to the registration by others,
 * and adopts them: they become the data it re-creates the node with. The cache starts once this registration's
 * own first write is on the server, so whatever it finds there from then on (at its first read or later) is this
 * registration's data or someone else's newer write, never a node left over from before.
 *
 * <p>Thread-safe; no thread of its own.
 */
final class Registration<T> {
    private static final Logger LOG = LoggerFactory.getLogger(Registration.class);

    private final Object lock = new Object();
    private final BatonClient client;
    private final InstanceSerializer<T> serializer;
    private final String path;
    private final ServiceType type;
    /** The kept node; null for a {@link ServiceType#PERMANENT} registration. */
    private final @Nullable PersistentNode node;
    /** The watch on the registration's own node; null without {@code watchInstances}. */
    private final @Nullable BatonCache watch;

    @GuardedBy("lock")
    private ServiceInstance<T> instance;
    @GuardedBy("lock")
    private byte[] bytes;
    @GuardedBy("lock")
    private boolean pending;
    @GuardedBy("lock")
    private boolean removed;
    @GuardedBy("lock")
    private boolean watching;

    Registration(BatonClient client, InstanceSerializer<T> serializer, String path, ServiceInstance<T> instance,
            byte[] bytes, boolean watchInstances) {
        this.client = client;
        this.serializer = serializer;
        this.path = path;
        this.type = instance.getServiceType();
        this.instance = instance;
        this.bytes = bytes;
        this.node = switch (type) {
            case DYNAMIC -> new PersistentNode(client, CreateMode.EPHEMERAL, false, path, bytes);
            case DYNAMIC_SEQUENTIAL -> new PersistentNode(client, CreateMode.EPHEMERAL_SEQUENTIAL, false, path, bytes);
            case STATIC -> new PersistentNode(client, CreateMode.PERSISTENT, false, path, bytes);
            case PERMANENT -> null;
        };
        this.watch = watchInstances && type != ServiceType.DYNAMIC_SEQUENTIAL
                ? BatonCache.build(client, path, BatonCache.Option.SINGLE_NODE_CACHE) : null;
    }

    ServiceInstance<T> instance() {
        synchronized (lock) {
            return instance;
        }
    }

    ServiceType type() {
        return type;
    }

    /**
     * {@return the path of the node now (for a sequential registration, with its sequence number); null while a kept
     *         node is not on the server}
     */
    @Nullable String actualPath() {
        return node != null ? node.getActualPath() : path;
    }

    /**
     * Starts keeping the node, and waits until it is on the server, at most {@code wait}.
     *
     * @return true if it is on the server
     */
    boolean start(Duration wait) throws InterruptedException {
        if (watch != null) {
            watch.listenable().addListener(BatonCacheListener.builder()
                    .forCreates(now -> adopt(now.data()))
                    .forChanges((old, now) -> adopt(now.data()))
                    .build());
        }
        if (node != null) {
            node.getListenable().addListener(path -> startWatch());
            node.start();
            return node.waitForInitialCreate(wait.toMillis(), TimeUnit.MILLISECONDS);
        }
        try {
            writePermanent().get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** Writes new data now, and uses it for every later re-creation. */
    void update(ServiceInstance<T> newInstance, byte[] newBytes) throws KeeperException, InterruptedException {
        synchronized (lock) {
            instance = newInstance;
            bytes = newBytes;
        }
        try {
            if (node != null) {
                node.setData(newBytes);
            } else {
                Failures.await(writePermanent());
            }
        } catch (KeeperException e) {
            if (!Failures.isConnectionProblem(e)) {
                throw e;
            }
            // Written on reconnecting (PersistentNode keeps it as dirty; a permanent registration as pending).
            LOG.debug("Registration {}: update deferred until reconnected: {}", path, e.toString());
        }
    }

    /** Deletes the node: the registration is over, and nothing of it re-creates the node. */
    void remove() throws KeeperException, InterruptedException {
        synchronized (lock) {
            removed = true;
            pending = false;
        }
        closeWatch();
        if (node != null) {
            node.close(); // a guaranteed delete, in the background if the server cannot be reached now
        } else if (client.isConnected()) {
            client.delete().guaranteed().quietly().forPath(path);
        } else {
            client.delete().guaranteed().quietly().forPathAsync(path).exceptionally(e -> null);
        }
    }

    /** Stops keeping the node; a {@link ServiceType#PERMANENT} node stays on the server, any other is deleted. */
    void abandon() {
        if (node != null) {
            closeWatch();
            node.close();
            return;
        }
        synchronized (lock) {
            removed = true;
            pending = false;
        }
        closeWatch();
    }

    /** After a (re)connection: writes a permanent registration whose last write failed. */
    // The write's outcome is handled in writePermanent: a failure is logged, or left pending for the next connection.
    @SuppressWarnings("FutureReturnValueIgnored")
    void retryIfPending() {
        boolean retry;
        synchronized (lock) {
            retry = pending && !removed;
        }
        if (retry) {
            writePermanent();
        }
    }

    /** Create-or-set of a permanent registration's node with the latest data. */
    private CompletableFuture<String> writePermanent() {
        byte[] data;
        synchronized (lock) {
            if (removed) {
                return CompletableFuture.completedFuture(path);
            }
            data = bytes;
            pending = true;
        }
        CompletableFuture<String> write;
        try {
            write = client.create().creatingParentContainersIfNeeded().orSetData().forPathAsync(path, data);
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        return write.whenComplete((written, error) -> {
            if (error == null) {
                startWatch();
            }
            synchronized (lock) {
                if (error == null && bytes == data) {
                    pending = false;
                }
                if (error != null && !Failures.isConnectionProblem(error)) {
                    pending = false;
                    LOG.error("Registration {}: could not write the permanent registration", path,
                            Failures.unwrap(error));
                }
            }
        });
    }

    /** Someone wrote the registration's node: that data is the registration's from now on. */
    private void adopt(byte @Nullable [] data) {
        if (data == null) {
            return;
        }
        ServiceInstance<T> adopted;
        synchronized (lock) {
            if (removed || Arrays.equals(data, bytes)) {
                return; // our own write
            }
        }
        try {
            adopted = serializer.deserialize(data);
        } catch (RuntimeException e) {
            LOG.warn("Registration {}: ignoring data written by someone else that does not decode: {}", path,
                    e.toString());
            return;
        }
        synchronized (lock) {
            if (removed) {
                return;
            }
            instance = adopted;
            bytes = data;
        }
        LOG.debug("Registration {}: adopted data written by someone else", path);
        PersistentNode kept = node;
        if (kept != null) {
            // PersistentNode keeps the data it re-creates with, and takes it only through a (blocking) write:
            // write the same bytes back, off the event thread.
            Futures.whenDone(CompletableFuture.runAsync(() -> {
                try {
                    kept.setData(data);
                } catch (KeeperException | IllegalStateException e) {
                    LOG.debug("Registration {}: could not keep the adopted data: {}", path, e.toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }), (ignored, error) -> {
                if (error != null) {
                    LOG.warn("Registration {}: could not keep the adopted data", path, error);
                }
            });
        }
    }

    /** After this registration's first write reached the server: starts the watch, once. */
    private void startWatch() {
        synchronized (lock) {
            if (watch == null || watching || removed) {
                return;
            }
            watching = true;
        }
        try {
            watch.start();
        } catch (IllegalStateException e) {
            LOG.debug("Registration {}: closed before its watch started", path); // closeWatch() came first
        }
    }

    private void closeWatch() {
        if (watch != null) {
            watch.close();
        }
    }
}
