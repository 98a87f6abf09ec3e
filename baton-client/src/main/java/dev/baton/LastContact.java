package dev.baton;

import java.lang.reflect.Field;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads when a ZooKeeper handle last heard from its server. The handle tracks this (every reply and every
 * ping answer updates it) but does not publish it, so it is read by reflection from the handle's socket
 * ({@code ClientCnxnSocket.lastHeard}, in milliseconds of ZooKeeper's monotonic clock, which is
 * {@code System.nanoTime() / 1_000_000}). If a ZooKeeper version moves the field, the reader reports
 * "unknown" and callers fall back to a conservative estimate.
 */
final class LastContact {
    private static final Logger LOG = LoggerFactory.getLogger(LastContact.class);
    // Null when this ZooKeeper version does not have them.
    private static final @Nullable Field CNXN;
    private static final @Nullable Field SEND_THREAD;
    private static final @Nullable Field SOCKET;
    private static final @Nullable Field LAST_HEARD;

    static {
        Field cnxn = null;
        Field sendThread = null;
        Field socket = null;
        Field lastHeard = null;
        try {
            cnxn = accessible(ZooKeeper.class.getDeclaredField("cnxn"));
            sendThread = accessible(cnxn.getType().getDeclaredField("sendThread"));
            socket = accessible(sendThread.getType().getDeclaredField("clientCnxnSocket"));
            lastHeard = accessible(socket.getType().getDeclaredField("lastHeard"));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.info("Cannot read ZooKeeper's last-heard time ({}); using a conservative estimate", e.toString());
            cnxn = null;
        }
        CNXN = cnxn;
        SEND_THREAD = sendThread;
        SOCKET = socket;
        LAST_HEARD = lastHeard;
    }

    private LastContact() {
    }

    private static Field accessible(Field field) {
        field.setAccessible(true);
        return field;
    }

    /**
     * {@return the handle's last contact with a server in {@code System.nanoTime()} milliseconds, or -1 if
     *         unknown}
     */
    static long lastHeardMillis(ZooKeeper zk) {
        if (CNXN == null || SEND_THREAD == null || SOCKET == null || LAST_HEARD == null) {
            return -1;
        }
        try {
            Object socket = SOCKET.get(SEND_THREAD.get(CNXN.get(zk)));
            return socket == null ? -1 : LAST_HEARD.getLong(socket);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }
}
