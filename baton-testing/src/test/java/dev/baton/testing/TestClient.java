package dev.baton.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/** A plain ZooKeeper handle that records its connection states; connected when constructed. */
final class TestClient implements AutoCloseable {

    static final Duration WAIT = Duration.ofSeconds(15);

    private final List<KeeperState> states = new CopyOnWriteArrayList<>();
    private final ZooKeeper zk;

    TestClient(String connectString) {
        this(connectString, Duration.ofSeconds(10));
    }

    TestClient(String connectString, Duration sessionTimeout) {
        try {
            zk = new ZooKeeper(connectString, Math.toIntExact(sessionTimeout.toMillis()), event -> {
                if (event.getType() == EventType.None) {
                    states.add(event.getState());
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            awaitState(KeeperState.SyncConnected);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    ZooKeeper zk() {
        return zk;
    }

    /** Every connection state seen so far, in order. */
    List<KeeperState> states() {
        return List.copyOf(states);
    }

    /** Waits until {@code state} has been seen at least {@code times} times. */
    void awaitState(KeeperState state, int times) {
        await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).until(() -> states.stream().filter(state::equals).count() >= times);
    }

    void awaitState(KeeperState state) {
        awaitState(state, 1);
    }

    @Override
    public void close() {
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
