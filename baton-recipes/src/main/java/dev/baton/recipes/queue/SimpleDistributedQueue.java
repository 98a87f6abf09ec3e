package dev.baton.recipes.queue;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Requests;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue of byte arrays with a {@link java.util.Queue}-like API, on Apache Curator's layout: each item is a
 * persistent-sequential child {@code <path>/qn-<seq>} holding the bytes as they are; the path is a container node
 * (created on the first offer), so Baton and Curator {@code SimpleDistributedQueue}s share a queue.
 *
 * <pre>{@code
 * SimpleDistributedQueue queue = new SimpleDistributedQueue(client, "/jobs/simple");
 * queue.offer("job-1".getBytes(UTF_8));
 * byte[] next = queue.poll(5, TimeUnit.SECONDS);        // null if none came
 * queue.takeAsync().thenAccept(bytes -> run(bytes));      // no thread waits meanwhile
 * }</pre>
 *
 * <h2>Semantics</h2>
 * FIFO by sequence. Taking an item ({@code poll}, {@code remove}, {@code take}) reads it and deletes it with
 * both requests sent back to back; whoever deletes it has it, so each item is taken at most once. The instance
 * remembers its last listing and takes those items in order until they run out before it lists again (new items
 * always have higher sequences), so a busy queue costs one round trip per item, not a listing per item. Waiting
 * ({@code take}, {@code poll} with a timeout, {@code takeAsync}) is a child watch, not a thread; if the container
 * node is reaped while a take waits (Curator's CURATOR-308) the wait goes on, on an existence watch. There is no
 * lifecycle: nothing to start or close; a wait given up removes its watch.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class SimpleDistributedQueue {
    private static final Logger LOG = LoggerFactory.getLogger(SimpleDistributedQueue.class);
    private static final String PREFIX = "qn-";
    private static final Duration RETRY = Duration.ofMillis(250);
    /** A round's answer for "the queue is empty" (never a real item: compared by identity). */
    private static final byte[] EMPTY = new byte[0];

    private final BatonClient client;
    private final String path;
    // Guarded by itself: the names of the last listing not yet known to be gone, in order.
    private final ArrayDeque<String> known = new ArrayDeque<>();

    /**
     * @param client the client
     * @param path the queue's node
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public SimpleDistributedQueue(BatonClient client, String path) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = BatonPaths.validate(Objects.requireNonNull(path, "path"));
    }

    /**
     * Adds an item at the end of the queue. After a connection loss the put is not repeated (it may have been
     * applied; a second one would queue the item twice): the caller gets the {@link KeeperException}.
     *
     * @param data the item
     * @return true
     * @throws KeeperException if ZooKeeper fails the create
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code data} is null
     */
    public boolean offer(byte[] data) throws KeeperException, InterruptedException {
        Objects.requireNonNull(data, "data");
        client.create().creatingParentContainersIfNeeded().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath(BatonPaths.makePath(path, PREFIX), data);
        return true;
    }

    /**
     * @return the first item, left in the queue
     * @throws NoSuchElementException if the queue is empty
     * @throws KeeperException if ZooKeeper fails a read
     * @throws InterruptedException if interrupted while waiting
     */
    public byte[] element() throws KeeperException, InterruptedException {
        byte[] b = peek();
        if (b == null) {
            throw new NoSuchElementException("queue " + path + " is empty");
        }
        return b;
    }

    /**
     * @return the first item, taken out of the queue
     * @throws NoSuchElementException if the queue is empty
     * @throws KeeperException if ZooKeeper fails a request
     * @throws InterruptedException if interrupted while waiting
     */
    public byte[] remove() throws KeeperException, InterruptedException {
        byte[] b = poll();
        if (b == null) {
            throw new NoSuchElementException("queue " + path + " is empty");
        }
        return b;
    }

    /**
     * @return the first item, left in the queue, or null if the queue is empty
     * @throws KeeperException if ZooKeeper fails a read
     * @throws InterruptedException if interrupted while waiting
     */
    public byte[] peek() throws KeeperException, InterruptedException {
        return Failures.await(next(true, false, null));
    }

    /**
     * @return the first item, taken out of the queue, or null if the queue is empty
     * @throws KeeperException if ZooKeeper fails a request
     * @throws InterruptedException if interrupted while waiting
     */
    public byte[] poll() throws KeeperException, InterruptedException {
        return Failures.await(next(true, true, null));
    }

    /**
     * Takes the first item, waiting up to the given time for one.
     *
     * @param timeout how long to wait, {@code >= 0}
     * @param unit its unit
     * @return the item, or null if none came in time
     * @throws KeeperException if ZooKeeper fails a request
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalArgumentException if {@code timeout} is negative
     */
    public byte[] poll(long timeout, TimeUnit unit) throws KeeperException, InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        return await(new Take(System.nanoTime() + unit.toNanos(timeout)));
    }

    /**
     * Takes the first item, waiting as long as it takes for one.
     *
     * @return the item
     * @throws KeeperException if ZooKeeper fails a request
     * @throws InterruptedException if interrupted while waiting
     */
    public byte[] take() throws KeeperException, InterruptedException {
        return await(new Take(Long.MAX_VALUE));
    }

    /**
     * Takes the first item without holding a thread while waiting: a child watch drives the wait. Cancelling the
     * future gives the wait up and removes its watch; should an item have been taken at that very moment, it is
     * put back at the end of the queue rather than lost.
     *
     * @return a future that completes with the item, or fails with the {@link KeeperException} of a request
     *         that failed for good
     */
    public CompletableFuture<byte[]> takeAsync() {
        Take take = new Take(Long.MAX_VALUE);
        take.attempt();
        return take.result;
    }

    private byte[] await(Take take) throws KeeperException, InterruptedException {
        take.attempt();
        if (!take.result.isDone() && client.isEventThread()) {
            take.result.cancel(false);
            Requests.requireNotEventThread(client, "wait for an item of the queue " + path);
        }
        try {
            return take.result.get();
        } catch (InterruptedException e) {
            take.result.cancel(false);
            throw e;
        } catch (ExecutionException e) {
            throw Failures.rethrow(e);
        } catch (CancellationException e) {
            return null;
        }
    }

    /**
     * The first item (taken if {@code remove}), or null if the queue is empty. Tries the remembered names first;
     * lists (with {@code watcher} as its watch, if given) when they run out.
     */
    private CompletableFuture<byte[]> next(boolean blocking, boolean remove, Watcher watcher) {
        return Requests.repeat(() -> {
            String name;
            synchronized (known) {
                name = known.peek();
            }
            if (name == null) {
                return list(blocking, watcher).thenApply(found -> found ? null : EMPTY);
            }
            String itemPath = BatonPaths.makePath(path, name);
            CompletableFuture<byte[]> data = Requests.send(blocking, client.getData(), itemPath);
            CompletableFuture<Void> delete = remove ? Requests.send(blocking, client.delete(), itemPath) : null;
            return data.handle((bytes, readError) -> (Object) null).thenCompose(x -> delete == null
                    ? data.handle((bytes, e) -> decide(name, bytes, e, null, false))
                    : delete.handle((v, deleteError) -> decide(name, data.isCompletedExceptionally() ? null
                            : data.join(), data.isCompletedExceptionally() ? failure(data) : null, deleteError,
                            true)));
        }, null).thenApply(b -> b == EMPTY ? null : b);
    }

    private static Throwable failure(CompletableFuture<?> f) {
        try {
            f.join();
            return null;
        } catch (RuntimeException e) {
            return Failures.unwrap(e);
        }
    }

    /**
     * One try's outcome: the bytes, or null to try the next name; throws what ends the call. A name taken (by
     * this try or another) leaves {@link #known}, so that the next take does not try it again.
     */
    private byte[] decide(String name, byte[] bytes, Throwable readError, Throwable deleteError, boolean taken) {
        Throwable error = deleteError != null ? deleteError : readError;
        if (error == null) {
            if (taken) {
                synchronized (known) {
                    known.remove(name);
                }
            }
            return bytes;
        }
        if (Failures.code(error) == KeeperException.Code.NONODE) {
            synchronized (known) {
                known.remove(name); // taken by another
            }
            return null;
        }
        if (deleteError == null && readError != null) {
            LOG.warn("queue item {}/{} was taken but could not be read", path, name, readError);
            synchronized (known) {
                known.remove(name);
            }
            return null;
        }
        throw Failures.asCompletion(error);
    }

    /** Lists the queue into {@link #known}; completes with true if it found items. */
    private CompletableFuture<Boolean> list(boolean blocking, Watcher watcher) {
        if (watcher instanceof Take take) {
            take.watched = true;
        }
        var request = watcher == null ? client.getChildren() : client.getChildren().usingWatcher(watcher);
        return Requests.send(blocking, request, path).handle((children, error) -> {
            if (error != null) {
                if (Failures.code(error) != KeeperException.Code.NONODE) {
                    throw Failures.asCompletion(error);
                }
                if (watcher == null) {
                    return CompletableFuture.completedFuture(false);
                }
                // The container is not there (never made, or reaped): wait for it to come. Should it have come
                // just now, list again (a watch on an existing node would not see its children come).
                return Requests.send(blocking, client.checkExists().usingWatcher(watcher), path)
                        .thenApply(stat -> stat != null);
            }
            List<String> items = new ArrayList<>(children.size());
            for (String c : children) {
                if (c.startsWith(PREFIX)) {
                    items.add(c);
                }
            }
            Collections.sort(items);
            synchronized (known) {
                known.clear();
                known.addAll(items);
            }
            return CompletableFuture.completedFuture(!items.isEmpty());
        }).thenCompose(f -> f);
    }

    /** One waiting take: tries, and when the queue is empty waits for its watch (or its deadline). */
    private final class Take implements Watcher, ConnectionStateListener {
        final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final long deadline;
        // Whether a listing set this take's watch: only then is there one to remove when the take is over (a take
        // answered from the remembered names, as on a busy queue, sets none and sends no removal).
        private volatile boolean watched;
        // Guarded by this.
        private boolean trying;
        private boolean again;

        Take(long deadline) {
            this.deadline = deadline;
            if (deadline != Long.MAX_VALUE) {
                client.schedule(this::timeUp, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            }
            client.getConnectionStateListenable().addListener(this);
            result.whenComplete((bytes, error) -> {
                client.getConnectionStateListenable().removeListener(this);
                if (watched && client.getState() == BatonClient.State.STARTED) {
                    client.watchers().remove(this).ofType(WatcherType.Any).quietly().forPathAsync(path)
                            .exceptionally(e -> null);
                }
            });
        }

        void attempt() {
            synchronized (this) {
                if (result.isDone()) {
                    return;
                }
                if (trying) {
                    again = true;
                    return;
                }
                trying = true;
                again = false;
            }
            next(false, true, this).whenComplete((bytes, error) -> {
                boolean retry;
                synchronized (this) {
                    trying = false;
                    retry = again;
                }
                if (error != null && !Failures.isConnectionProblem(error)) {
                    result.completeExceptionally(Failures.unwrap(error));
                } else if (bytes != null) {
                    if (!result.complete(bytes)) {
                        putBack(bytes);
                    }
                } else if (System.nanoTime() - deadline >= 0 && deadline != Long.MAX_VALUE) {
                    result.complete(null);
                } else if (error != null) {
                    client.schedule(this::attempt, RETRY);
                } else if (retry) {
                    attempt();
                }
            });
        }

        private void timeUp() {
            synchronized (this) {
                if (trying) {
                    return; // the try in flight completes the result, as its answer says
                }
            }
            result.complete(null);
        }

        @Override
        public void process(WatchedEvent event) {
            if (event.getType() != Event.EventType.None) {
                attempt();
            }
        }

        @Override
        public void stateChanged(BatonClient c, ConnectionState newState) {
            if (newState == ConnectionState.RECONNECTED) {
                attempt(); // a new session has none of the old watches
            }
        }

        private void putBack(byte[] bytes) {
            LOG.warn("a take from {} was given up just as it took an item: putting the item back", path);
            client.create().creatingParentContainersIfNeeded().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPathAsync(BatonPaths.makePath(path, PREFIX), bytes)
                    .exceptionally(e -> {
                        LOG.error("could not put back an item of {}", path, e);
                        return null;
                    });
        }
    }

    @Override
    public String toString() {
        return "SimpleDistributedQueue[" + path + "]";
    }
}
