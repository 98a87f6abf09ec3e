package dev.baton.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * A ready-made driver (see {@link DriverMain}) around one plain ZooKeeper handle, for tests that need a
 * ZooKeeper client in another JVM: {@code DriverProcess.builder(ZooKeeperClientDriver.class).start()}.
 *
 * <p>Commands:
 * <ul>
 *   <li>{@code connect <connectString> <sessionTimeoutMs>}: opens the handle and returns at once;</li>
 *   <li>{@code await-state <KeeperState> <timeoutMs>}: waits until the last connection state is that one;</li>
 *   <li>{@code state}: the last connection state ({@code SyncConnected}, {@code Disconnected},
 *       {@code Expired}, ...; {@code None} before the first);</li>
 *   <li>{@code session}: {@code <session id hex> <password hex>};</li>
 *   <li>{@code create <path> [data]}, {@code create-ephemeral <path> [data]}: the created path;</li>
 *   <li>{@code exists <path>}: {@code true} or {@code false};</li>
 *   <li>{@code get <path>}: the data as UTF-8; {@code delete <path>};</li>
 *   <li>{@code close}: closes the handle; plus the built-in {@code ping}, {@code pid}, {@code quit}.</li>
 * </ul>
 * Every connection state change is also sent as the event {@code state <KeeperState>}.
 */
public final class ZooKeeperClientDriver {

    /** The handle; null before {@code connect} and after {@code close}. */
    private static volatile @Nullable ZooKeeper zk;
    /** Signalled when {@link #lastState} changes. Static, as the state it guards is. */
    private static final Object STATE_SIGNAL = new Object();
    /** The last connection state; null before the first. */
    @GuardedBy("STATE_SIGNAL")
    private static @Nullable KeeperState lastState;

    private ZooKeeperClientDriver() {
    }

    /**
     * Runs the driver until {@code quit} or the end of standard input.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        DriverMain driver = DriverMain.create();
        driver.on("connect", a -> {
            requireArgs(a, 2, "connect <connectString> <sessionTimeoutMs>");
            if (zk != null) {
                throw new IllegalStateException("already connected; close first");
            }
            zk = new ZooKeeper(a.get(0), Integer.parseInt(a.get(1)), event -> {
                if (event.getType() == EventType.None) {
                    synchronized (STATE_SIGNAL) {
                        lastState = event.getState();
                        STATE_SIGNAL.notifyAll();
                    }
                    driver.event("state " + event.getState());
                }
            });
            return "";
        });
        driver.on("await-state", a -> {
            requireArgs(a, 2, "await-state <KeeperState> <timeoutMs>");
            KeeperState wanted = KeeperState.valueOf(a.get(0));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(a.get(1)));
            synchronized (STATE_SIGNAL) {
                while (lastState != wanted) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new IllegalStateException("state is " + lastState + ", not " + wanted);
                    }
                    TimeUnit.NANOSECONDS.timedWait(STATE_SIGNAL, left);
                }
            }
            return wanted.name();
        });
        driver.on("state", a -> {
            synchronized (STATE_SIGNAL) {
                return lastState == null ? "None" : lastState.name();
            }
        });
        driver.on("session", a -> {
            ZooKeeper z = handle();
            return Long.toHexString(z.getSessionId()) + " " + HexFormat.of().formatHex(z.getSessionPasswd());
        });
        driver.on("create", a -> create(a, CreateMode.PERSISTENT));
        driver.on("create-ephemeral", a -> create(a, CreateMode.EPHEMERAL));
        driver.on("exists", a -> {
            requireArgs(a, 1, "exists <path>");
            return Boolean.toString(handle().exists(a.get(0), false) != null);
        });
        driver.on("get", a -> {
            requireArgs(a, 1, "get <path>");
            byte[] data = handle().getData(a.get(0), false, null);
            return data == null ? "" : new String(data, StandardCharsets.UTF_8);
        });
        driver.on("delete", a -> {
            requireArgs(a, 1, "delete <path>");
            handle().delete(a.get(0), -1);
            return "";
        });
        driver.on("close", a -> {
            ZooKeeper z = zk;
            zk = null;
            if (z != null) {
                z.close();
            }
            return "";
        });
        driver.onExit(() -> {
            ZooKeeper z = zk;
            if (z != null) {
                try {
                    z.close(1_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        driver.run();
    }

    private static String create(List<String> a, CreateMode mode) throws Exception {
        if (a.isEmpty() || a.size() > 2) {
            throw new IllegalArgumentException("usage: create[-ephemeral] <path> [data]");
        }
        byte[] data = a.size() == 2 ? a.get(1).getBytes(StandardCharsets.UTF_8) : new byte[0];
        return handle().create(a.get(0), data, Ids.OPEN_ACL_UNSAFE, mode);
    }

    private static ZooKeeper handle() {
        ZooKeeper z = zk;
        if (z == null) {
            throw new IllegalStateException("not connected; send connect first");
        }
        return z;
    }

    private static void requireArgs(List<String> a, int count, String usage) {
        if (a.size() != count) {
            throw new IllegalArgumentException("usage: " + usage);
        }
    }
}
