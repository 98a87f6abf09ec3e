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

/**
 * A plain ZooKeeper handle that records its connection states, with waits long enough for a loaded 2-core
 * machine running several server JVMs. Connected when constructed.
 */
final class WatchedClient implements AutoCloseable {

    static final Duration WAIT = Duration.ofSeconds(60);

    private final List<KeeperState> states = new CopyOnWriteArrayList<>();
    private final ZooKeeper zk;

    WatchedClient(String connectString, Duration sessionTimeout) {
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
            awaitState(KeeperState.SyncConnected, 1);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    ZooKeeper zk() {
        return zk;
    }

    List<KeeperState> states() {
        return List.copyOf(states);
    }

    long count(KeeperState state) {
        return states.stream().filter(state::equals).count();
    }

    /** Waits until {@code state} has been seen at least {@code times} times. */
    void awaitState(KeeperState state, int times) {
        await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                .until(() -> count(state) >= times);
    }

    @Override
    public void close() {
        try {
            zk.close(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
