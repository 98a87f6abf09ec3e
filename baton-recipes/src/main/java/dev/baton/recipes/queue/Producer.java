package dev.baton.recipes.queue;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Monitor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The put side of a queue: puts that are never doubled and never silently lost, pipelined.
 *
 * <p>A sequential create cannot be retried blindly after a connection loss (it may have been applied, and a
 * retry would queue the item twice), and a protected name ({@code _c_<uuid>-queue-...}) would hide the item from
 * Curator's consumers, which take only names that start with {@code queue-}. So each put is a transaction of two
 * operations: the sequential create of the item node, and a version-checked {@code setData} of this producer's
 * <em>marker</em>, an ephemeral node {@code <queuePath>-producers/<uuid>}. The markers live outside the queue's
 * node, in a container node beside it (made with the queue node's ACL when the first producer needs it, removed
 * by the server once the last marker is gone), so that the queue's node holds items and nothing else, as
 * Curator's consumers, scripts and dashboards expect. Puts are sent back to back, the n-th with the marker
 * version it expects, so a put can apply only right after the one before it: the applied puts are always a
 * prefix of those queued, and the items' sequences follow the order of the calls. After a connection loss the
 * marker's version says exactly how many were applied: those are done, the rest are sent again, in their order.
 * Only if the session itself ended with puts unanswered (the marker went with it) is their outcome unknown; they
 * fail with the {@link KeeperException} that ended them.
 *
 * <p>Thread-safety: thread-safe; requests are sent under the lock so that their order is the versions' order.
 */
final class Producer {
    private static final Logger LOG = LoggerFactory.getLogger(Producer.class);
    /** What {@link #markerDirectory} adds to the queue's path. */
    static final String MARKERS_SUFFIX = "-producers";
    /** How often a marker's create may find its container gone (reaped between two requests) before it fails. */
    private static final int CONTAINER_TRIES = 3;

    /** One put: what to create, and its outcome (the created path, or null if applied but not answered). */
    private static final class Put {
        final String pathPrefix;
        final byte[] data;
        final CompletableFuture<String> result = new CompletableFuture<>();
        int version;
        /** The marker it was sent with (its version is that marker's). */
        // Set when the put is sent; read only for the puts in `sent`.
        @SuppressWarnings("NullAway.Init")
        String marker;
        /** The failure of its last attempt; null while unanswered or after success. */
        @Nullable Throwable failure;

        Put(String pathPrefix, byte[] data) {
            this.pathPrefix = pathPrefix;
            this.data = data;
        }
    }

    private final Monitor lock = new Monitor();
    private final BatonClient client;
    private final String markerDirectory;
    /** The queue node's ACL, given to the markers and their container; set by {@link #start}, null before. */
    private volatile @Nullable List<ACL> acl;
    /** This session's marker; a new session gets a new one (see {@link #createMarker()}). */
    @GuardedBy("lock")
    private String markerPath;
    /** Whether a marker was ever created (or tried): the next one needs a fresh name. */
    @GuardedBy("lock")
    private boolean markerTried;
    @GuardedBy("lock")
    private final ArrayDeque<Put> waiting = new ArrayDeque<>();
    @GuardedBy("lock")
    private final ArrayDeque<Put> sent = new ArrayDeque<>();
    @GuardedBy("lock")
    private int unanswered;
    /** A failure among the sent puts: resynchronize once every sent put is answered. */
    @GuardedBy("lock")
    private boolean failed;
    /** The marker is being created or read: nothing is sent meanwhile. */
    @GuardedBy("lock")
    private boolean busy;
    @GuardedBy("lock")
    private long markerSession;
    @GuardedBy("lock")
    private int nextVersion;
    @GuardedBy("lock")
    private int outstanding;
    @GuardedBy("lock")
    private boolean closed;

    Producer(BatonClient client, String queuePath) {
        this.client = client;
        this.markerDirectory = markerDirectory(queuePath);
        this.markerPath = newMarkerPath();
    }

    /**
     * The container node beside a queue's node that holds its producers' markers.
     *
     * @param queuePath the queue's node
     * @return {@code <queuePath>-producers}
     */
    static String markerDirectory(String queuePath) {
        return (queuePath.equals("/") ? "" : queuePath) + MARKERS_SUFFIX;
    }

    /**
     * Takes the ACL that this producer's markers (and their container, if it makes it) are created with.
     *
     * @param queueAcl the queue node's ACL
     */
    void start(List<ACL> queueAcl) {
        acl = List.copyOf(queueAcl);
    }

    private String newMarkerPath() {
        return BatonPaths.makePath(markerDirectory, UUID.randomUUID().toString());
    }

    /**
     * {@return the ACL the markers and their container are created with}
     *
     * @throws IllegalStateException before {@link #start}
     */
    private List<ACL> acl() {
        List<ACL> queueAcl = acl;
        if (queueAcl == null) {
            throw new IllegalStateException("the queue is still starting");
        }
        return queueAcl;
    }

    /**
     * Queues a put.
     *
     * @param pathPrefix the item's path without the sequence, e.g. {@code /q/queue-}
     * @param data the item node's data
     * @return the created path (null when it was applied but its answer was lost), or the failure
     */
    CompletableFuture<String> put(String pathPrefix, byte[] data) {
        Put put = new Put(pathPrefix, data);
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the queue is closed"));
            }
            outstanding++;
            waiting.add(put);
            pump();
        }
        return put.result;
    }

    /** Sends what waits, or starts the marker's creation or a resynchronization. Holds the lock. */
    @GuardedBy("lock")
    private void pump() {
        if (busy || (waiting.isEmpty() && !failed)) {
            return;
        }
        if (failed) {
            if (unanswered == 0) {
                resync();
            }
            return;
        }
        long session = session();
        if (session == 0 || session != markerSession) {
            createMarker();
            return;
        }
        while (!waiting.isEmpty()) {
            Put put = waiting.poll();
            put.version = nextVersion++;
            put.marker = markerPath;
            put.failure = null;
            sent.add(put);
            unanswered++;
            List<BatonOp> ops = List.of(
                    client.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                            .forPath(put.pathPrefix, put.data),
                    client.transactionOp().setData().withVersion(put.version).forPath(markerPath, new byte[0]));
            Futures.whenDone(send(() -> client.transaction().forOperationsAsync(ops)), (results, error) -> answered(put,
                    error == null ? results.get(0).resultPath() : null, error));
        }
    }

    private void answered(Put put, @Nullable String path, @Nullable Throwable error) {
        Put done = null;
        synchronized (lock) {
            unanswered--;
            if (error == null) {
                sent.remove(put);
                done = put;
            } else {
                put.failure = Failures.unwrap(error);
                failed = true;
            }
            pump();
        }
        if (done != null) {
            complete(done, path, null);
        }
    }

    /**
     * Creates a marker for the current session, then sends what waits. Holds the lock.
     *
     * <p>Each session gets a marker of its own name. The last session's marker can outlive it on the servers:
     * a client that gave its session up while no server could end it (a quorum lost past the session timeout)
     * opens a new session while the old one, and its marker, live on. Checked against that marker, a put would
     * be refused by its version, and the resynchronization would then count it as applied. For the same reason
     * a create answered "exists" (a retried create whose first attempt was applied) is taken only if the node is
     * this session's, at the version it has.
     */
    @GuardedBy("lock")
    private void createMarker() {
        busy = true;
        if (markerTried) {
            markerPath = newMarkerPath();
        }
        markerTried = true;
        createMarker(markerPath, 1);
    }

    /** Creates the marker at {@code path}, and its container first if that is missing. */
    private void createMarker(String path, int attempt) {
        CompletableFuture<String> created = send(() -> client.create().withMode(CreateMode.EPHEMERAL)
                .withACL(acl()).forPathAsync(path));
        Futures.whenDone(created, (name, error) -> {
            KeeperException.Code code = error == null ? KeeperException.Code.OK : Failures.code(error);
            if (code == KeeperException.Code.NODEEXISTS) {
                adoptMarker(path);
            } else if (code == KeeperException.Code.NONODE && attempt < CONTAINER_TRIES) {
                createContainer(path, attempt);
            } else {
                // Answered just now, so the handle's session is the one that owns the marker.
                markerReady(0, error);
            }
        });
    }

    /** The markers' container is missing (no producer had a marker yet, or the server reaped it): makes it. */
    private void createContainer(String path, int attempt) {
        CompletableFuture<String> created = send(() -> client.create().withMode(CreateMode.CONTAINER).withACL(acl())
                .creatingParentContainersIfNeeded().forPathAsync(markerDirectory));
        Futures.whenDone(created, (name, error) -> {
            if (error == null || Failures.code(error) == KeeperException.Code.NODEEXISTS) {
                createMarker(path, attempt + 1);
            } else {
                markerReady(0, error);
            }
        });
    }

    private static <R> CompletableFuture<R> send(Supplier<CompletableFuture<R>> request) {
        try {
            return request.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The marker's create said it exists: takes it if this session owns it, else makes another. */
    private void adoptMarker(String path) {
        Futures.whenDone(send(() -> client.checkExists().forPathAsync(path)), (stat, error) -> {
            if (error != null) {
                markerReady(0, error);
            } else if (stat != null && stat.getEphemeralOwner() == rawSession()) {
                markerReady(stat.getVersion(), null);
            } else {
                synchronized (lock) {
                    busy = false;
                    pump(); // another session's (or gone since): a marker of a fresh name
                }
            }
        });
    }

    /** The marker exists at {@code version} in the current session (or could not be made): sends what waits. */
    private void markerReady(int version, @Nullable Throwable error) {
        List<Put> failedPuts = new ArrayList<>();
        synchronized (lock) {
            busy = false;
            if (error == null) {
                markerSession = rawSession();
                nextVersion = version;
            } else {
                failedPuts.addAll(waiting);
                waiting.clear();
            }
            if (failedPuts.isEmpty()) {
                pump();
            }
        }
        failedPuts.forEach(p -> complete(p, null, error));
    }

    /**
     * Every sent put is answered and some failed: reads the marker's version to tell the applied ones from the
     * others, completes the first, and queues the others again (in front, in their order). Holds the lock.
     */
    @GuardedBy("lock")
    private void resync() {
        busy = true;
        long session = session();
        Stat stat = new Stat();
        CompletableFuture<byte[]> f;
        if (session == markerSession && session != 0) {
            String marker = markerPath;
            f = send(() -> client.getData().storingStatIn(stat).forPathAsync(marker));
        } else {
            f = CompletableFuture.failedFuture(KeeperException.create(KeeperException.Code.SESSIONEXPIRED));
        }
        Futures.whenDone(f, (data, error) -> {
            List<Put> applied = new ArrayList<>();
            List<Put> lost = new ArrayList<>();
            synchronized (lock) {
                busy = false;
                if (error != null && Failures.isConnectionProblem(error) && session() == session
                        && Failures.code(error) != KeeperException.Code.SESSIONEXPIRED && !closed) {
                    // Still the same session: read again once the connection is back.
                    client.schedule(() -> {
                        synchronized (lock) {
                            pump();
                        }
                    }, java.time.Duration.ofMillis(100));
                    return;
                }
                boolean known = error == null && session() == session;
                int version = known ? stat.getVersion() : -1;
                ArrayDeque<Put> again = new ArrayDeque<>();
                for (Put put : sent) {
                    if (put.failure == null) {
                        continue; // answered with success already (cannot happen: sent holds only failures)
                    }
                    // A put sent with an earlier session's marker: that marker's version says nothing of it.
                    boolean current = markerPath.equals(put.marker);
                    if (known && current && put.version < version) {
                        applied.add(put);
                    } else if (isMarkerFailure(put)) {
                        again.add(put); // refused by the marker's check: not applied
                    } else if (Failures.isConnectionProblem(put.failure)) {
                        (known && current ? again : lost).add(put); // lost: the session ended with it unanswered
                    } else {
                        lost.add(put); // failed for a reason of its own, e.g. the queue path is gone
                    }
                }
                sent.clear();
                failed = false;
                if (known) {
                    nextVersion = version;
                } else {
                    markerSession = 0;
                }
                while (!again.isEmpty()) {
                    waiting.addFirst(again.pollLast());
                }
                if (closed) {
                    lost.addAll(waiting);
                    waiting.clear();
                } else {
                    pump();
                }
            }
            applied.forEach(p -> complete(p, null, null));
            lost.forEach(p -> complete(p, null, p.failure != null ? p.failure
                    : new IllegalStateException("the queue is closed")));
        });
    }

    private void complete(Put put, @Nullable String path, @Nullable Throwable error) {
        if (error == null) {
            put.result.complete(path);
        } else {
            if (LOG.isDebugEnabled()) {
                LOG.debug("put under {} failed", put.pathPrefix, error);
            }
            put.result.completeExceptionally(Failures.unwrap(error));
        }
        synchronized (lock) {
            outstanding--;
            lock.signalAll();
        }
    }

    /** The current session, or while disconnected the marker's (a request sent now waits for the connection). */
    @GuardedBy("lock")
    private long session() {
        return client.isConnected() ? rawSession() : markerSession;
    }

    private long rawSession() {
        try {
            return client.getZooKeeper().getSessionId();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /** True if a put's transaction failed on the marker: a wrong version, or the marker gone with its session. */
    private static boolean isMarkerFailure(Put put) {
        Throwable failure = put.failure;
        if (failure == null) {
            return false;
        }
        KeeperException.Code code = Failures.code(failure);
        return code == KeeperException.Code.BADVERSION
                || (code == KeeperException.Code.NONODE && failure instanceof KeeperException ke
                        && put.marker.equals(ke.getPath()));
    }

    /** Waits until no put is outstanding. */
    boolean flush(long nanos) throws InterruptedException {
        synchronized (lock) {
            // Monitor.await evaluates the condition with lock held, which Error Prone cannot see in a lambda.
            @SuppressWarnings("GuardedBy")
            boolean drained = lock.await(() -> outstanding <= 0, System.nanoTime() + nanos);
            return drained;
        }
    }

    /** Fails the puts that were not sent yet, and deletes the marker. */
    void close() {
        List<Put> dropped;
        boolean hadMarker;
        String path;
        synchronized (lock) {
            closed = true;
            dropped = new ArrayList<>(waiting);
            waiting.clear();
            hadMarker = markerSession != 0;
            path = markerPath;
        }
        dropped.forEach(p -> complete(p, null, new IllegalStateException("the queue is closed")));
        if (hadMarker && client.getState() == BatonClient.State.STARTED) {
            client.delete().guaranteed().quietly().forPathAsync(path).exceptionally(e -> null);
        }
    }

    /** {@return the marker's path} */
    String markerPath() {
        synchronized (lock) {
            return markerPath;
        }
    }
}
