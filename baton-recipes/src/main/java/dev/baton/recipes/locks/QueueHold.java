package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.internal.Futures;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.time.Duration;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A hold of a {@link LockQueue}'s lock: its node, its fencing token, what the holder knows of it. */
final class QueueHold implements Hold, ConnectionStateListener {
    private static final Logger LOG = LoggerFactory.getLogger(QueueHold.class);

    private final Object lock = new Object();
    private final LockQueue queue;
    private final String nodePath;
    private final long czxid;
    private final long session;
    private volatile HoldState state = HoldState.HELD;
    private volatile boolean released;

    QueueHold(LockQueue queue, String nodePath, long czxid, long session) {
        this.queue = queue;
        this.nodePath = nodePath;
        this.czxid = czxid;
        this.session = session;
    }

    /**
     * Starts following the connection. What happened between the attempt's decision and now reached no listener
     * of this hold, so it looks once after subscribing: a session that ended makes the hold lost, a connection
     * that dropped puts it in doubt until RECONNECTED confirms it. A holder must never be told HELD while its
     * client is already cut off: its session could expire, and the next holder get in, before it hears.
     */
    void watchConnection() {
        queue.client.getConnectionStateListenable().addListener(this);
        if (!queue.client.isConnected()) {
            setState(HoldState.SUSPENDED);
        } else if (!queue.isCurrentSession(session)) {
            setState(HoldState.LOST);
        }
    }

    @Override
    public String nodePath() {
        return nodePath;
    }

    @Override
    public long fencingToken() {
        return czxid;
    }

    @Override
    public HoldState state() {
        return state;
    }

    @Override
    public boolean isHeld() {
        return !released && state != HoldState.LOST;
    }

    @Override
    public Duration safeFor() {
        return isHeld() && queue.isCurrentSession(session) ? queue.client.safeFor() : Duration.ZERO;
    }

    @Override
    public void stateChanged(BatonClient c, ConnectionState newState) {
        if (released) {
            return;
        }
        switch (newState) {
            case SUSPENDED -> setState(HoldState.SUSPENDED);
            case LOST -> setState(HoldState.LOST);
            case RECONNECTED -> Futures.whenDone(queue.client.checkExists().forPathAsync(nodePath), (stat, e) -> {
                if (e == null) {
                    boolean ours = stat != null && stat.getEphemeralOwner() == session
                            && queue.isCurrentSession(session);
                    setState(ours ? HoldState.HELD : HoldState.LOST);
                }
            });
            default -> {
            }
        }
    }

    private void setState(HoldState newState) {
        synchronized (lock) {
            if (state == newState || state == HoldState.LOST || released) {
                return;
            }
            state = newState;
        }
        queue.notifications.execute(() -> queue.holdListeners.forEach(l -> l.holdStateChanged(this, newState)));
    }

    @Override
    public void release() {
        synchronized (lock) {
            if (released) {
                return;
            }
            released = true;
        }
        queue.client.getConnectionStateListenable().removeListener(this);
        if (!queue.client.isConnected()) {
            queue.deleteQuietly(nodePath); // retried until connected; don't block the releasing thread
            return;
        }
        try {
            queue.client.delete().guaranteed().quietly().forPath(nodePath);
        } catch (KeeperException e) {
            LOG.debug("Delete of {} failed; it is retried in the background", nodePath, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IllegalStateException e) {
            LOG.debug("Client closed before {} was deleted; the session's end removes it", nodePath);
        }
    }

    @Override
    public String toString() {
        return "Hold[" + nodePath + ", token=" + czxid + ", " + (released ? "released" : state) + "]";
    }
}
