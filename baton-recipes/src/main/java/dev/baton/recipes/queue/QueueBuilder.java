package dev.baton.recipes.queue;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Builds the queues of this package, with Curator's options and defaults.
 *
 * <pre>{@code
 * DistributedQueue<String> queue = QueueBuilder.builder(client, consumer, serializer, "/jobs/queue")
 *         .lockPath("/jobs/locks")          // at least once, never consumed by two connected consumers at once
 *         .buildQueue();
 * queue.start();
 * queue.put("job-1");
 * }</pre>
 *
 * <p>Defaults: no lock path (at most once), no bound on the number of items, puts in the background, a final
 * flush of 5 seconds on close, and {@code consumeMessage} on a pool shared by all queues of the JVM whose threads
 * ({@code baton-queue-N}, daemons) exist only while there are items to consume.
 *
 * <p>Thread-safety: a builder is for one thread; {@code build...} copies its settings, so it can be reused.
 *
 * @param <T> the item type
 */
public final class QueueBuilder<T> {
    /** {@link #maxItems} not set: no bound. */
    static final int NOT_SET = Integer.MAX_VALUE;

    private static final Executor SHARED_EXECUTOR = sharedExecutor();

    /** The settings a queue is built with. */
    record Config<T>(BatonClient client, @Nullable QueueConsumer<T> consumer, QueueSerializer<T> serializer,
            String queuePath, @Nullable String lockPath, int maxItems, boolean putInBackground, Executor executor,
            long finalFlushNanos) {
    }

    private final BatonClient client;
    private final @Nullable QueueConsumer<T> consumer;
    private final QueueSerializer<T> serializer;
    private final String queuePath;
    private @Nullable String lockPath;
    private int maxItems = NOT_SET;
    private boolean putInBackground = true;
    private Executor executor = SHARED_EXECUTOR;
    private long finalFlushNanos = TimeUnit.SECONDS.toNanos(5);

    private QueueBuilder(BatonClient client, @Nullable QueueConsumer<T> consumer, QueueSerializer<T> serializer,
            String queuePath) {
        this.client = Objects.requireNonNull(client, "client");
        this.consumer = consumer;
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.queuePath = BatonPaths.validate(Objects.requireNonNull(queuePath, "queuePath"));
    }

    /**
     * Starts a builder.
     *
     * @param client the client
     * @param consumer the consumer, or null for a queue that only puts
     * @param serializer turns items into bytes and back
     * @param queuePath the queue's node; items are its children
     * @param <T> the item type
     * @return a builder
     * @throws NullPointerException if {@code client}, {@code serializer} or {@code queuePath} is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public static <T> QueueBuilder<T> builder(BatonClient client, @Nullable QueueConsumer<T> consumer,
            QueueSerializer<T> serializer, String queuePath) {
        return new QueueBuilder<>(client, consumer, serializer, queuePath);
    }

    /**
     * Takes items under a lock: the consumer creates the ephemeral node {@code <path>/<item name>} before it
     * consumes an item, and removes the item only after {@code consumeMessage} returns. The item is thus
     * consumed at least once, by one connected consumer at a time, and survives a consumer that dies
     * mid-message. Without a lock path an item is removed before it is consumed: at most once.
     *
     * @param path the lock nodes' parent
     * @return this builder
     * @throws NullPointerException if {@code path} is null
     * @throws IllegalArgumentException if the path is invalid or equals the queue path
     */
    public QueueBuilder<T> lockPath(String path) {
        BatonPaths.validate(Objects.requireNonNull(path, "path"));
        if (path.equals(queuePath)) {
            throw new IllegalArgumentException("lockPath must differ from the queue path: " + path);
        }
        this.lockPath = path;
        return this;
    }

    /**
     * Bounds the queue: a put waits while it holds {@code maxItems} items (a timed put returns false when its
     * time runs out first). The bound is approximate when several producers put at once. Also turns
     * {@link #putInBackground} off, as Curator does.
     *
     * @param maxItems the bound, {@code > 0}
     * @return this builder
     * @throws IllegalArgumentException if {@code maxItems <= 0}
     */
    public QueueBuilder<T> maxItems(int maxItems) {
        if (maxItems <= 0) {
            throw new IllegalArgumentException("maxItems must be positive: " + maxItems);
        }
        this.maxItems = maxItems;
        this.putInBackground = false;
        return this;
    }

    /**
     * With true (the default), {@code put} returns once the item is sent and the put completes in the background
     * (see {@link DistributedQueue#flushPuts}); with false, {@code put} returns once the item is in the queue.
     *
     * @param putInBackground whether to put in the background
     * @return this builder
     */
    public QueueBuilder<T> putInBackground(boolean putInBackground) {
        this.putInBackground = putInBackground;
        return this;
    }

    /**
     * Where {@code consumeMessage} runs. Items of one queue are consumed one at a time. The executor must not run
     * tasks on the submitting thread (that would be ZooKeeper's event thread).
     *
     * @param executor the executor
     * @return this builder
     * @throws NullPointerException if {@code executor} is null
     */
    public QueueBuilder<T> executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * How long {@code close()} waits for background puts and for an item being consumed (default 5 seconds).
     *
     * @param time the time, {@code >= 0}
     * @param unit its unit
     * @return this builder
     * @throws IllegalArgumentException if {@code time} is negative
     * @throws NullPointerException if {@code unit} is null
     */
    public QueueBuilder<T> finalFlushTime(long time, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (time < 0) {
            throw new IllegalArgumentException("time must not be negative: " + time);
        }
        this.finalFlushNanos = unit.toNanos(time);
        return this;
    }

    /** {@return a FIFO queue} */
    public DistributedQueue<T> buildQueue() {
        return new DistributedQueue<>(config(), Layout.PLAIN, Integer.MAX_VALUE);
    }

    /** {@return a FIFO queue whose items carry ids, by which they can be removed} */
    public DistributedIdQueue<T> buildIdQueue() {
        return new DistributedIdQueue<>(new DistributedQueue<>(config(), Layout.ID, Integer.MAX_VALUE));
    }

    /**
     * A queue in priority order (lower first, then FIFO).
     *
     * @param minItemsBeforeRefresh how many items of one listing the consumer takes before it lists again when
     *        the queue changed meanwhile (0: list again after every item that finds the queue changed), so that
     *        a more urgent item put meanwhile is seen
     * @return the queue
     * @throws IllegalArgumentException if {@code minItemsBeforeRefresh} is negative
     */
    public DistributedPriorityQueue<T> buildPriorityQueue(int minItemsBeforeRefresh) {
        if (minItemsBeforeRefresh < 0) {
            throw new IllegalArgumentException("minItemsBeforeRefresh must not be negative: " + minItemsBeforeRefresh);
        }
        return new DistributedPriorityQueue<>(new DistributedQueue<>(config(), Layout.PRIORITY,
                minItemsBeforeRefresh));
    }

    /** {@return a queue whose items are each delivered no earlier than a given time} */
    public DistributedDelayQueue<T> buildDelayQueue() {
        return new DistributedDelayQueue<>(new DistributedQueue<>(config(), Layout.DELAY, Integer.MAX_VALUE));
    }

    private Config<T> config() {
        return new Config<>(client, consumer, serializer, queuePath, lockPath, maxItems, putInBackground, executor,
                finalFlushNanos);
    }

    private static Executor sharedExecutor() {
        AtomicInteger count = new AtomicInteger();
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS, new SynchronousQueue<>(),
                runnable -> {
                    Thread t = new Thread(runnable, "baton-queue-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }
}
