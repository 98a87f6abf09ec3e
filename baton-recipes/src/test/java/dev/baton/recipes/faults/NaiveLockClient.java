package dev.baton.recipes.faults;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.state.ConnectionState;
import dev.baton.testing.GuardedResource;
import dev.baton.testing.History;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * One participant of the first real fault run: a naive lock on the foundation client only. Acquire = create the
 * ephemeral node {@value #LOCK}; fencing token = that node's czxid; hold for a short random time, using a
 * {@link GuardedResource} with the token; release = delete. On {@code SUSPENDED} or {@code LOST} it records
 * {@code DISCONNECTED} and {@code LOST} and stops believing at once; on {@code CONNECTED}/{@code RECONNECTED} it
 * records {@code CONNECTED}.
 *
 * <p>Ordering, so that the history never shows a false double holder: {@code ACQUIRED} is recorded after the
 * server granted the create, {@code RELEASED} before the delete is sent, and belief changes, history records and
 * resource uses all happen under one monitor shared with the connection-state listener, so no resource use
 * follows a recorded {@code LOST}.
 *
 * <p>Deletes go through the ZooKeeper handle of the session that created the node, never through the client's
 * retrying {@code delete()}: after a session expiry the client retries on its new session, and a delete by path
 * could then remove a later holder's node — a bug of the naive lock, not of the client, that would drown the
 * findings.
 */
final class NaiveLockClient implements AutoCloseable {

    /** The lock node. */
    static final String LOCK = "/lock";

    private final String id;
    private final BatonClient client;
    private final History.Recorder recorder;
    private final GuardedResource resource;
    private final Random random;
    private final Thread worker;
    private final Object monitor = new Object();
    private final AtomicLong acquisitions = new AtomicLong();
    private final AtomicLong uses = new AtomicLong();

    private volatile boolean stopping;
    /** Guarded by {@link #monitor}. */
    private boolean connected;
    /** The current hold, guarded by {@link #monitor}; null when this client does not believe it holds. */
    private Hold current;

    private record Hold(long token, ZooKeeper handle) {
    }

    NaiveLockClient(String id, String connectString, Duration sessionTimeout, History history,
            GuardedResource resource, long seed) {
        this.id = id;
        this.recorder = history.recorder(id);
        this.resource = resource;
        this.random = new Random(seed);
        this.client = Baton.builder()
                .connectString(connectString)
                .sessionTimeout(sessionTimeout)
                .connectionTimeout(sessionTimeout)
                .retryPolicy(new ExponentialBackoffRetry(100, 2, 500))
                // The connect string is this client's private link (proxies): never leave it for the servers'
                // own ports, or partitions would not reach the client.
                .ensembleTracker(false)
                .build();
        client.getConnectionStateListenable().addListener(this::stateChanged);
        this.worker = new Thread(this::run, "naive-lock-" + id);
        worker.setDaemon(true);
    }

    /** Starts the client and the acquire/hold/release loop. */
    void start() {
        client.start();
        worker.start();
    }

    /** Returns the client's id in the history. */
    String id() {
        return id;
    }

    /** Returns the Baton client. */
    BatonClient client() {
        return client;
    }

    /** Returns how many times this client acquired the lock. */
    long acquisitions() {
        return acquisitions.get();
    }

    /** Returns how many resource operations this client attempted. */
    long uses() {
        return uses.get();
    }

    private void stateChanged(BatonClient c, ConnectionState state) {
        synchronized (monitor) {
            switch (state) {
                case CONNECTED, RECONNECTED -> {
                    connected = true;
                    recorder.connected(state.name());
                }
                case SUSPENDED, LOST -> {
                    connected = false;
                    recorder.disconnected(state.name());
                    if (current != null) {
                        recorder.lost(LOCK, current.token(), state.name());
                        current = null;
                    }
                }
                default -> recorder.note("connection state " + state);
            }
        }
    }

    private void run() {
        while (!stopping) {
            try {
                if (!isConnected()) {
                    client.blockUntilConnected(200, TimeUnit.MILLISECONDS);
                    continue;
                }
                Hold hold = tryAcquire();
                if (hold == null) {
                    continue;
                }
                holdAndUse(hold);
                release(hold);
                pause(0, 30);
            } catch (KeeperException e) {
                pauseQuietly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (IllegalStateException e) {
                if (stopping) {
                    return; // the client closed under us
                }
                pauseQuietly();
            }
        }
    }

    private boolean isConnected() {
        synchronized (monitor) {
            return connected;
        }
    }

    /** Returns the new hold, or null if the lock is busy or the grant cannot be trusted. */
    private Hold tryAcquire() throws KeeperException, InterruptedException {
        Stat stat = new Stat();
        try {
            client.create().withMode(CreateMode.EPHEMERAL).storingStatIn(stat).forPath(LOCK, id.getBytes(UTF_8));
        } catch (KeeperException.NodeExistsException e) {
            waitWhileBusy();
            return null;
        }
        ZooKeeper handle = client.getZooKeeper();
        synchronized (monitor) {
            if (connected && handle.getSessionId() == stat.getEphemeralOwner()) {
                Hold hold = new Hold(stat.getCzxid(), handle);
                recorder.acquired(LOCK, hold.token());
                acquisitions.incrementAndGet();
                current = hold;
                return hold;
            }
        }
        // Granted, but a SUSPENDED/LOST came in between (or the session changed): do not believe; the node, if
        // still ours, is removed by waitWhileBusy() on a later attempt.
        recorder.note("create of " + LOCK + " succeeded (czxid " + stat.getCzxid() + ") but the connection was"
                + " lost meanwhile: not believed");
        return null;
    }

    private void holdAndUse(Hold hold) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20 + random.nextInt(180));
        while (!stopping && System.nanoTime() < end) {
            synchronized (monitor) {
                if (current != hold) {
                    return; // lost
                }
                uses.incrementAndGet();
                resource.use(id, hold.token());
            }
            pause(5, 30);
        }
    }

    private void release(Hold hold) {
        synchronized (monitor) {
            if (current != hold) {
                return; // lost meanwhile; LOST was recorded
            }
            recorder.released(LOCK, hold.token());
            current = null;
        }
        deleteOwnNode(hold.handle());
    }

    /** The lock is taken: if by this client's own session (a hold it gave up), delete it; else wait a little. */
    private void waitWhileBusy() throws KeeperException, InterruptedException {
        CountDownLatch changed = new CountDownLatch(1);
        Stat stat = client.checkExists().usingWatcher(e -> changed.countDown()).forPath(LOCK);
        if (stat == null) {
            return;
        }
        ZooKeeper handle = client.getZooKeeper();
        if (stat.getEphemeralOwner() == handle.getSessionId()) {
            recorder.note("deleting own abandoned " + LOCK + " (czxid " + stat.getCzxid() + ")");
            deleteOwnNode(handle);
            return;
        }
        changed.await(500, TimeUnit.MILLISECONDS);
    }

    /**
     * Deletes {@link #LOCK} through {@code handle}, whose session owns (or owned) it: if that session is gone,
     * the call fails instead of deleting another session's node.
     */
    private void deleteOwnNode(ZooKeeper handle) {
        try {
            handle.delete(LOCK, -1);
        } catch (KeeperException e) {
            // NoNode: the session ended and took it; ConnectionLoss/SessionExpired: retried by waitWhileBusy().
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pause(int minMs, int maxMs) throws InterruptedException {
        Thread.sleep(minMs + random.nextInt(maxMs - minMs + 1));
    }

    private void pauseQuietly() {
        try {
            pause(50, 150);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
    }

    /**
     * Stops the loop (releasing a held lock the normal way) and closes the client.
     */
    @Override
    public void close() {
        stopping = true;
        try {
            worker.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        worker.interrupt();
        synchronized (monitor) {
            if (current != null) {
                recorder.released(LOCK, current.token());
                current = null;
            }
        }
        client.close();
    }
}
