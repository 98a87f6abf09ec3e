package dev.baton.recipes.queue;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Requests;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

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
 * FIFO by sequence: an instance hands out items in increasing sequence order, to its waiting takes in the order
 * they came, so each caller gets its items in order. Taking an item ({@code poll}, {@code remove}, {@code take},
 * {@code takeAsync}) reads it and deletes it with both requests sent back to back; whoever deletes it has it, so
 * each item is taken at most once.
 *
 * <p>The takes waiting on one instance share its listing: it lists the queue, claims the listed items in order
 * (up to 8 claims in flight, never more than there are takes waiting, so that every item deleted has a caller to
 * go to), and lists again only when the listed items have run out (new items always have higher sequences). A claim
 * lost to another consumer moves on to the next listed item, and the next few claims then read the item first and
 * delete it only if the read found it, so that a race lost costs a read rather than a failed delete (a write the
 * servers log). From then on the instance takes turns with the other consumer instead of chasing the same first
 * item: each claim leaves the next listed item to it and takes the one after, then reads the item left behind
 * (once its own delete is applied); should that item still be there, it takes it too and hands it out first, so
 * that no item is handed out while an earlier one it listed is left behind. So a busy queue costs one
 * {@code getData} and one {@code delete} per item (plus, with other consumers, a read per item and now and then a
 * failed delete), whether the takes come one after another or many at once, not a listing per item. An item taken
 * with no take left to go to (the second of such a pair, or one claimed for a take given up at that moment) waits
 * a second for the next take, and is then put back at the end of the queue rather than lost.
 *
 * <p>Delivery is at most once, as with Curator's simple queue: an item is gone from the server once deleted, so
 * one deleted just before its process crashes, or before its client closes, is lost with it; that includes an item
 * waiting its second for the next take when the client closes.
 *
 * <p>Waiting ({@code take}, {@code poll} with a timeout, {@code takeAsync}) is one child watch per instance, not a
 * thread, removed when no take waits any more; if the container node is reaped while a take waits (Curator's
 * CURATOR-308) the wait goes on, on an existence watch. On ZooKeeper's event thread (in a watcher or a callback),
 * where no asynchronous answer can arrive, {@code poll()} lists and claims with blocking requests, one at a time,
 * and the waiting calls fail with {@link IllegalStateException}. {@code peek} lists the queue and reads the first
 * item still there. There is no lifecycle: nothing to start or close.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class SimpleDistributedQueue {
    private final BatonClient client;
    private final String path;
    private final SimpleQueueTakes takes;

    /**
     * @param client the client
     * @param path the queue's node
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public SimpleDistributedQueue(BatonClient client, String path) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = BatonPaths.validate(Objects.requireNonNull(path, "path"));
        this.takes = new SimpleQueueTakes(client, this.path);
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
                .forPath(BatonPaths.makePath(path, SimpleQueueTakes.PREFIX), data);
        return true;
    }

    /**
     * {@return the first item, left in the queue}
     *
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
     * {@return the first item, taken out of the queue}
     *
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
     * {@return the first item, left in the queue, or null if the queue is empty}
     *
     * @throws KeeperException if ZooKeeper fails a read
     * @throws InterruptedException if interrupted while waiting
     */
    public byte @Nullable [] peek() throws KeeperException, InterruptedException {
        return first(false);
    }

    /**
     * {@return the first item, taken out of the queue, or null if the queue is empty}
     *
     * @throws KeeperException if ZooKeeper fails a request
     * @throws InterruptedException if interrupted while waiting
     */
    public byte @Nullable [] poll() throws KeeperException, InterruptedException {
        if (client.isEventThread()) {
            return pollHere(); // answers come on that very thread: wait for none
        }
        return await(new SimpleQueueTakes.Take(System.nanoTime()));
    }

    /**
     * A poll with blocking requests, none asynchronous, for a caller on ZooKeeper's event thread (a watcher or a
     * callback), where the answers of asynchronous requests would never come.
     */
    private byte @Nullable [] pollHere() throws KeeperException, InterruptedException {
        return first(true);
    }

    /**
     * The first item, with blocking requests and without the shared state of the waiting takes: a listing, then
     * each item's read (and, to take it, its delete) in turn, until one is found or none is left.
     *
     * @param take true to delete the item read; whoever deletes it has it
     */
    private byte @Nullable [] first(boolean take) throws KeeperException, InterruptedException {
        while (true) {
            List<String> items;
            try {
                items = SimpleQueueTakes.items(client.getChildren().forPath(path));
            } catch (KeeperException.NoNodeException e) {
                return null;
            }
            if (items.isEmpty()) {
                return null;
            }
            for (String name : items) {
                String itemPath = BatonPaths.makePath(path, name);
                try {
                    byte[] bytes = client.getData().forPath(itemPath);
                    if (take) {
                        Takes.deleteOnceBlocking(client, itemPath);
                    }
                    return bytes;
                } catch (KeeperException.NoNodeException e) {
                    // taken by another meanwhile: the next one
                } catch (KeeperException e) {
                    if (!Failures.isConnectionProblem(e)) {
                        throw e;
                    }
                    // The delete's answer went with the connection: not known to be ours, so not taken (at most
                    // once); the next listing finds the item if it is still there.
                    break;
                }
            }
            // Every item listed was taken meanwhile: look again.
        }
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
    public byte @Nullable [] poll(long timeout, TimeUnit unit) throws KeeperException, InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        long now = System.nanoTime();
        long nanos = unit.toNanos(timeout);
        return await(new SimpleQueueTakes.Take(nanos >= Long.MAX_VALUE / 2 ? Long.MAX_VALUE : now + nanos));
    }

    /**
     * Takes the first item, waiting as long as it takes for one.
     *
     * @return the item
     * @throws KeeperException if ZooKeeper fails a request
     * @throws InterruptedException if interrupted while waiting
     */
    public byte[] take() throws KeeperException, InterruptedException {
        return Objects.requireNonNull(await(new SimpleQueueTakes.Take(Long.MAX_VALUE)),
                "a take without a deadline is answered with an item, or fails");
    }

    /**
     * Takes the first item without holding a thread while waiting: a child watch drives the wait. Cancelling the
     * future gives the wait up (and removes the watch, if no other take of this instance waits); should an item
     * have been taken for it at that very moment, it is put back at the end of the queue rather than lost.
     *
     * @return a future that completes with the item, or fails with the {@link KeeperException} of a request
     *         that failed for good
     */
    public CompletableFuture<byte[]> takeAsync() {
        SimpleQueueTakes.Take take = new SimpleQueueTakes.Take(Long.MAX_VALUE);
        takes.add(take);
        return take.result;
    }

    /** {@return the item, or null if the take gave up (its deadline passed, or it was cancelled)} */
    private byte @Nullable [] await(SimpleQueueTakes.Take take) throws KeeperException, InterruptedException {
        takes.add(take);
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

    @Override
    public String toString() {
        return "SimpleDistributedQueue[" + path + "]";
    }
}
