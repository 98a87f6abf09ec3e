package dev.baton.recipes.queue;

import dev.baton.BatonClient;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Requests;
import dev.baton.listen.Listenable;
import dev.baton.internal.ListenerContainer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A FIFO queue of items in ZooKeeper, on Apache Curator's layout: each put is a persistent-sequential child
 * {@code <queuePath>/queue-<seq>} holding the item in Curator's multi-item format, so Baton and Curator producers
 * and consumers share a queue. Built by {@link QueueBuilder#buildQueue()}.
 *
 * <pre>{@code
 * QueueConsumer<String> consumer = new QueueConsumer<>() {
 *     public void consumeMessage(String job) { run(job); }
 *     public void stateChanged(BatonClient c, ConnectionState s) { }
 * };
 * try (DistributedQueue<String> queue = QueueBuilder.builder(client, consumer, serializer, "/jobs/queue")
 *         .lockPath("/jobs/locks").buildQueue()) {
 *     queue.start();
 *     queue.put("job-1");
 * }
 * }</pre>
 *
 * <h2>Delivery</h2>
 * FIFO by sequence for one consumer. Without a lock path, at most once: an item is removed before it is consumed.
 * With a lock path, at least once: an item leaves the queue only after {@code consumeMessage} returns; a consumer
 * whose session ends mid-message leaves the item for another consumer, and no item is consumed by two connected
 * consumers at once (a consumer told {@code LOST} must stop; its late finish does not remove an item another
 * consumer may now hold). Nothing is lost: a put is a transaction that also bumps the version of this
 * producer's ephemeral marker node {@code <queuePath>-producers/<uuid>}, so after a connection loss the queue
 * tells applied puts from the others and sends only those again — a put is never doubled. Only if the session
 * itself ends with puts unanswered do they fail, with the {@link KeeperException} that ended them. Puts made
 * from one thread enter the queue in the order of the calls, also when some are sent again.
 *
 * <h2>Layout</h2>
 * The queue's node holds item nodes and nothing else. The producers' markers live in a container node beside it,
 * {@code <queuePath>-producers}, created with the queue node's ACL when a producer first puts and removed by the
 * server once the last producer has closed; the lock path, if any, is the one given to the builder.
 *
 * <h2>No thread while idle</h2>
 * The consumer is a state machine driven by a child watch and the answers to its requests; {@code
 * consumeMessage} runs on the builder's executor (by default a shared pool whose threads exist only while there
 * are items). It takes the items of one listing in order until they run out, and lists again only when the
 * watch says the queue changed: a claim and a settle per item, each one round trip. A queue too deep for one
 * {@code getChildren} reply is read without listing it (see the package documentation).
 *
 * <p>Thread-safety: thread-safe.
 *
 * @param <T> the item type
 */
public final class DistributedQueue<T> implements QueueBase<T> {
    private static final Logger LOG = LoggerFactory.getLogger(DistributedQueue.class);

    private final QueueBuilder.Config<T> config;
    private final BatonClient client;
    private final Layout layout;
    private final Producer producer;
    /** The consumer side; null for a queue built without a consumer (it only puts). */
    private final @Nullable Delivery<T> delivery;
    private final ListenerContainer<QueuePutListener<T>> putListeners;
    private final Lifecycle state;

    DistributedQueue(QueueBuilder.Config<T> config, Layout layout, int minItemsBeforeRefresh) {
        this.config = config;
        this.state = new Lifecycle("queue " + config.queuePath());
        this.client = config.client();
        this.layout = layout;
        this.producer = new Producer(client, config.queuePath());
        this.delivery = config.consumer() == null ? null
                : new Delivery<>(client, config.queuePath(), config.lockPath(), layout, config.serializer(),
                        config.consumer(), config.executor(), minItemsBeforeRefresh);
        this.putListeners = new ListenerContainer<>(Runnable::run,
                (what, error) -> LOG.error("queue put listener of {}: {}", config.queuePath(), what, error));
    }

    @Override
    public void start() throws KeeperException, InterruptedException {
        state.start();
        ensure(config.queuePath());
        producer.start(client.getACL().forPath(config.queuePath()));
        if (config.lockPath() != null) {
            ensure(config.lockPath());
        }
        if (delivery != null) {
            client.getConnectionStateListenable().addListener(delivery.consumer());
            delivery.start();
        }
    }

    private void ensure(String path) throws KeeperException, InterruptedException {
        try {
            client.create().creatingParentContainersIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException e) {
            // made by another instance: fine
        }
    }

    @Override
    public void close() {
        if (state.close() != Lifecycle.State.STARTED) {
            return;
        }
        long deadline = System.nanoTime() + config.finalFlushNanos();
        try {
            producer.flush(config.finalFlushNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (delivery != null) {
            delivery.close(Math.max(0, deadline - System.nanoTime()));
            client.getConnectionStateListenable().removeListener(delivery.consumer());
        }
        producer.close();
        putListeners.clear();
    }

    /**
     * Puts an item: in the background if so built (returns once sent; see {@link #flushPuts}), else waits until it
     * is in the queue. With {@code maxItems}, first waits while the queue is full.
     *
     * @param item the item
     * @throws KeeperException if ZooKeeper fails the put (foreground puts)
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code item} is null
     * @throws IllegalStateException if the queue is not started or is closed
     */
    public void put(T item) throws KeeperException, InterruptedException {
        Objects.requireNonNull(item, "item");
        internalPut(Layout.ITEM_PREFIX, item, -1);
    }

    /**
     * As {@link #put(Object)}, waiting at most the given time for room in a bounded queue.
     *
     * @param item the item
     * @param maxWait how long to wait for room, {@code >= 0}
     * @param unit its unit
     * @return true if the item was put, false if the queue stayed full for the whole time (nothing was put)
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code item} or {@code unit} is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws IllegalStateException if the queue is not started or is closed
     */
    public boolean put(T item, long maxWait, TimeUnit unit) throws KeeperException, InterruptedException {
        Objects.requireNonNull(item, "item");
        return internalPut(Layout.ITEM_PREFIX, item, nanos(maxWait, unit));
    }

    /**
     * Puts several items in one item node; a consumer receives them one by one, in order.
     *
     * @param items the items, read until {@code nextItem()} returns null
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code items} is null
     * @throws IllegalStateException if the queue is not started or is closed
     */
    public void putMulti(MultiItem<T> items) throws KeeperException, InterruptedException {
        Objects.requireNonNull(items, "items");
        internalPutMulti(Layout.ITEM_PREFIX, items, -1);
    }

    /**
     * As {@link #putMulti(MultiItem)}, waiting at most the given time for room in a bounded queue.
     *
     * @param items the items
     * @param maxWait how long to wait for room, {@code >= 0}
     * @param unit its unit
     * @return true if put, false if the queue stayed full for the whole time
     * @throws KeeperException if ZooKeeper fails the put
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     */
    public boolean putMulti(MultiItem<T> items, long maxWait, TimeUnit unit)
            throws KeeperException, InterruptedException {
        Objects.requireNonNull(items, "items");
        return internalPutMulti(Layout.ITEM_PREFIX, items, nanos(maxWait, unit));
    }

    /**
     * Puts an item without holding a thread, whatever {@code putInBackground} says; with {@code maxItems}, the
     * wait for room is a watch, not a thread.
     *
     * @param item the item
     * @return a future that completes once the item is in the queue, or fails with the {@link KeeperException}
     *         ZooKeeper answered, or with {@link IllegalStateException} if the queue is not started or is closed
     * @throws NullPointerException if {@code item} is null
     */
    public CompletableFuture<Void> putAsync(T item) {
        Objects.requireNonNull(item, "item");
        try {
            checkStarted();
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        byte[] data = ItemCodec.encodeOne(item, config.serializer());
        return Failures.unwrapped(room(Long.MAX_VALUE)
                .thenCompose(ok -> send(Layout.ITEM_PREFIX, data, l -> l.putCompleted(item)))
                .thenApply(path -> null));
    }

    /** Puts one item under a name prefix; {@code waitNanos < 0}: wait for room without limit. */
    boolean internalPut(String namePrefix, T item, long waitNanos) throws KeeperException, InterruptedException {
        checkPut();
        return put(namePrefix, ItemCodec.encodeOne(item, config.serializer()), l -> l.putCompleted(item), waitNanos);
    }

    /** Puts several items in one node under a name prefix; {@code waitNanos < 0}: wait for room without limit. */
    boolean internalPutMulti(String namePrefix, MultiItem<T> items, long waitNanos)
            throws KeeperException, InterruptedException {
        checkPut();
        return put(namePrefix, ItemCodec.encode(items, config.serializer()), l -> l.putMultiCompleted(items),
                waitNanos);
    }

    private void checkPut() {
        checkStarted();
        if (config.maxItems() != QueueBuilder.NOT_SET || !config.putInBackground()) {
            Requests.requireNotEventThread(client, "put to the queue " + config.queuePath());
        }
    }

    /** Puts an encoded item node; {@code told} tells a put listener of it once it is in the queue. */
    private boolean put(String namePrefix, byte[] data, Consumer<QueuePutListener<T>> told, long waitNanos)
            throws KeeperException, InterruptedException {
        if (config.maxItems() != QueueBuilder.NOT_SET) {
            CompletableFuture<Boolean> room = room(waitNanos < 0 ? Long.MAX_VALUE : System.nanoTime() + waitNanos);
            try {
                if (!room.get()) {
                    return false;
                }
            } catch (InterruptedException e) {
                room.cancel(false);
                throw e;
            } catch (ExecutionException e) {
                throw Failures.rethrow(e);
            }
        }
        CompletableFuture<String> put = send(namePrefix, data, told);
        if (!config.putInBackground()) {
            Failures.await(put);
        }
        return true;
    }

    private CompletableFuture<String> send(String namePrefix, byte[] data, Consumer<QueuePutListener<T>> told) {
        CompletableFuture<String> put = producer.put(BatonPaths.makePath(config.queuePath(), namePrefix), data);
        Futures.whenDone(put, (path, error) -> {
            if (error == null) {
                putListeners.forEach(told);
            } else if (config.putInBackground()) {
                LOG.error("a background put to queue {} failed", config.queuePath(), Failures.unwrap(error));
            }
        });
        return put;
    }

    /**
     * Completes with true once the queue holds fewer than {@code maxItems} items (at once without a bound), with
     * false at {@code deadline} ({@link System#nanoTime()}; {@code Long.MAX_VALUE}: none). A child watch drives
     * it; it is removed when the wait ends.
     */
    private CompletableFuture<Boolean> room(long deadline) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        if (config.maxItems() == QueueBuilder.NOT_SET) {
            result.complete(true);
            return result;
        }
        Watcher watcher = new Watcher() {
            @Override
            public void process(org.apache.zookeeper.WatchedEvent event) {
                if (event.getType() != Event.EventType.None) {
                    count(this, result, deadline);
                }
            }
        };
        if (deadline != Long.MAX_VALUE) {
            client.schedule(() -> result.complete(false), java.time.Duration.ofNanos(
                    Math.max(0, deadline - System.nanoTime())));
        }
        Futures.whenDone(result, (ok, error) -> client.watchers().remove(watcher).ofType(Watcher.WatcherType.Children)
                .quietly().forPathAsync(config.queuePath()).exceptionally(e -> null));
        count(watcher, result, deadline);
        return result;
    }

    private void count(Watcher watcher, CompletableFuture<Boolean> result, long deadline) {
        if (result.isDone()) {
            return;
        }
        CompletableFuture<List<String>> children;
        try {
            children = client.getChildren().usingWatcher(watcher).forPathAsync(config.queuePath());
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        Futures.whenDone(children, (names, error) -> {
            if (error != null) {
                result.completeExceptionally(Failures.unwrap(error));
                return;
            }
            long items = names.stream().filter(layout::isItem).count();
            if (items < config.maxItems()) {
                result.complete(true);
            } else if (deadline != Long.MAX_VALUE && System.nanoTime() - deadline >= 0) {
                result.complete(false);
            }
        });
    }

    @Override
    public boolean flushPuts(long waitTime, TimeUnit timeUnit) throws InterruptedException {
        return producer.flush(nanos(waitTime, timeUnit));
    }

    @Override
    public Listenable<QueuePutListener<T>> getPutListenerContainer() {
        return putListeners;
    }

    @Override
    public void setErrorMode(ErrorMode newErrorMode) {
        Objects.requireNonNull(newErrorMode, "newErrorMode");
        if (config.lockPath() == null) {
            throw new IllegalStateException("the error mode applies only to a queue with a lock path");
        }
        if (delivery != null) {
            delivery.setErrorMode(newErrorMode);
        }
    }

    @Override
    public int getLastMessageCount() {
        return delivery == null ? 0 : delivery.lastCount();
    }

    /** {@return the queue's path} */
    public String getPath() {
        return config.queuePath();
    }

    void checkStarted() {
        state.requireStarted();
    }

    QueueBuilder.Config<T> config() {
        return config;
    }

    static long nanos(long time, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (time < 0) {
            throw new IllegalArgumentException("maxWait must not be negative: " + time);
        }
        return unit.toNanos(time);
    }

    @Override
    public String toString() {
        return "DistributedQueue[" + config.queuePath() + "]";
    }
}
