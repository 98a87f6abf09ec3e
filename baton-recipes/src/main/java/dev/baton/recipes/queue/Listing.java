package dev.baton.recipes.queue;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ZKConfig;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists a queue's items in delivery order, without ever asking for a listing too large for one reply.
 *
 * <h2>Deep queues</h2>
 * ZooKeeper answers {@code getChildren} in one packet, and the client drops its connection when a packet exceeds
 * its {@code jute.maxbuffer} (1 MB by default: about 50,000 names like {@code queue-0000000001}). A consumer
 * that asked for such a listing would lose its connection on every try. So whenever the last listing was large
 * (or on the first one), the parent's {@code Stat} is read first, and if its child count times the names'
 * length would come near half the limit, the queue is not listed: a plain queue's item names are predictable
 * ({@code queue-} and the 10-digit sequence ZooKeeper took from the parent's {@code cversion}), so the items are
 * found by asking for the names themselves, pipelined, from the newest sequence down, until every child is
 * accounted for (or the previous deep look's high mark is reached). Items put later have higher sequences, so
 * the next deep look starts where this one began. Such a look sets no watch; the consumer looks again once it
 * has consumed what it found, and goes back to a watched listing when the queue is short again. Priority, id and
 * delay queues carry data in their names and cannot be found this way: keep them shorter than one listing (with
 * {@code maxItems}); a consumer of such a queue that is too deep waits, logging an error, instead of breaking
 * the connection for its whole client.
 *
 * <p>Thread-safety: thread-safe.
 */
final class Listing {
    private static final Logger LOG = LoggerFactory.getLogger(Listing.class);
    /** Requests in flight while probing names. */
    private static final int WINDOW = 1000;
    /** Per child in a {@code getChildren} reply: the name's 4-byte length, and a margin. */
    private static final int PER_NAME = 8;

    /** What a listing found: the items in delivery order; {@code unwatched} if no watch was set. */
    record Result(List<String> items, boolean unwatched) {
    }

    private final Object lock = new Object();
    private final BatonClient client;
    private final String queuePath;
    private final Layout layout;
    @GuardedBy("lock")
    private int lastChildren = -1;
    @GuardedBy("lock")
    private int averageName = 16;
    @GuardedBy("lock")
    private int probedUpTo = -1;

    Listing(BatonClient client, String queuePath, Layout layout) {
        this.client = client;
        this.queuePath = queuePath;
        this.layout = layout;
    }

    /** Lists the items, with {@code watcher} as the child watch when the queue fits one reply. */
    CompletableFuture<Result> list(Watcher watcher) {
        boolean checkFirst;
        synchronized (lock) {
            checkFirst = lastChildren < 0 || estimate(lastChildren) > limit() / 4;
        }
        if (!checkFirst) {
            return watched(watcher);
        }
        return send(() -> client.checkExists().forPathAsync(queuePath)).thenCompose(stat -> {
            if (stat == null) {
                return recreate().thenCompose(v -> list(watcher));
            }
            synchronized (lock) {
                lastChildren = stat.getNumChildren();
            }
            if (estimate(stat.getNumChildren()) <= limit() / 2) {
                return watched(watcher);
            }
            return deep(stat);
        });
    }

    private CompletableFuture<Result> watched(Watcher watcher) {
        Stat stat = new Stat();
        CompletableFuture<List<String>> children = send(() -> client.getChildren().usingWatcher(watcher)
                .storingStatIn(stat).forPathAsync(queuePath));
        // On NONODE the queue path is made again and listed; another failure is passed on unwrapped.
        return children.thenApply(names -> listed(stat, names))
                .exceptionallyCompose(error -> Failures.code(error) == KeeperException.Code.NONODE
                        ? recreate().thenCompose(v -> list(watcher))
                        : CompletableFuture.failedFuture(Failures.unwrap(error)));
    }

    /** What a watched listing found, remembered for sizing the next one. */
    private Result listed(Stat stat, List<String> children) {
        List<String> items = items(children);
        synchronized (lock) {
            lastChildren = stat.getNumChildren();
            long total = 0;
            for (String c : children) {
                total += c.length();
            }
            averageName = children.isEmpty() ? 16 : (int) Math.max(16, total / children.size());
            probedUpTo = -1;
        }
        return new Result(items, false);
    }

    /** Finds a deep plain queue's items by their names. */
    private CompletableFuture<Result> deep(Stat parent) {
        if (layout != Layout.PLAIN) {
            LOG.error("queue {} holds {} children, more than one listing can carry; this kind of queue cannot be"
                    + " read without listing it: waiting for it to shrink", queuePath, parent.getNumChildren());
            return CompletableFuture.completedFuture(new Result(List.of(), true));
        }
        int top = parent.getCversion() - 1;
        int floor;
        synchronized (lock) {
            floor = Math.max(0, probedUpTo + 1);
            probedUpTo = top;
        }
        LOG.info("queue {} holds {} children, more than one listing can carry: looking its items up by name"
                + " from sequence {} down", queuePath, parent.getNumChildren(), top);
        List<Integer> found = new ArrayList<>();
        CompletableFuture<Void> done = probe(top, floor, parent.getNumChildren(), found);
        return done.thenApply(v -> {
            List<String> names = new ArrayList<>(found.size());
            found.sort(null);
            for (int seq : found) {
                names.add(name(seq));
            }
            return new Result(names, true);
        });
    }

    /** Probes sequences {@code from} down to {@code floor}, {@link #WINDOW} at a time, until {@code want} found. */
    private CompletableFuture<Void> probe(int from, int floor, int want, List<Integer> found) {
        if (from < floor || found.size() >= want) {
            return CompletableFuture.completedFuture(null);
        }
        int to = Math.max(floor, from - WINDOW + 1);
        List<CompletableFuture<Stat>> window = new ArrayList<>(from - to + 1);
        for (int seq = from; seq >= to; seq--) {
            String path = BatonPaths.makePath(queuePath, name(seq));
            window.add(send(() -> client.checkExists().forPathAsync(path)));
        }
        AtomicInteger i = new AtomicInteger();
        return CompletableFuture.allOf(window.toArray(new CompletableFuture<?>[0])).thenCompose(v -> {
            for (CompletableFuture<Stat> f : window) {
                int seq = from - i.getAndIncrement();
                if (f.join() != null) {
                    found.add(seq);
                }
            }
            return probe(to - 1, floor, want, found);
        });
    }

    private static String name(int seq) {
        return Layout.ITEM_PREFIX + String.format(Locale.ROOT, "%010d", seq);
    }

    private List<String> items(List<String> children) {
        List<String> items = new ArrayList<>(children.size());
        for (String c : children) {
            if (layout.isItem(c)) {
                items.add(c);
            }
        }
        items.sort(layout.order());
        return items;
    }

    /** The queue path was removed (or reaped as a container): make it again. */
    private CompletableFuture<Void> recreate() {
        return send(() -> client.create().creatingParentContainersIfNeeded().forPathAsync(queuePath))
                .handle((p, e) -> {
                    if (e != null && Failures.code(e) != KeeperException.Code.NODEEXISTS) {
                        throw Failures.asCompletion(e);
                    }
                    return null;
                });
    }

    private long estimate(int children) {
        synchronized (lock) {
            return (long) children * (averageName + PER_NAME);
        }
    }

    private int limit() {
        try {
            return client.getZooKeeper().getClientConfig().getInt(ZKConfig.JUTE_MAXBUFFER,
                    ZKClientConfig.CLIENT_MAX_PACKET_LENGTH_DEFAULT);
        } catch (RuntimeException e) {
            return ZKClientConfig.CLIENT_MAX_PACKET_LENGTH_DEFAULT;
        }
    }

    private static <R> CompletableFuture<R> send(java.util.function.Supplier<CompletableFuture<R>> request) {
        try {
            return request.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
