package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.retry.RetryNTimes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/** Shared bits of the client's tests: connected clients, unique paths, a recording watcher. */
final class TestClients {
    private static final AtomicInteger IDS = new AtomicInteger();

    private TestClients() {
    }

    /** A started, connected client without namespace. The caller closes it. */
    static BatonClient started(String connectString) throws InterruptedException {
        return started(Baton.builder().connectString(connectString));
    }

    /**
     * Adds a retry policy and a session timeout to {@code builder}, builds, starts and waits for the connection.
     * The caller closes the client.
     */
    static BatonClient started(Baton.Builder builder) throws InterruptedException {
        BatonClient client = builder.retryPolicy(new RetryNTimes(3, 50))
                .sessionTimeout(Duration.ofSeconds(10))
                .connectionTimeout(Duration.ofSeconds(5))
                .build();
        try {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).as("connected").isTrue();
            return client;
        } catch (InterruptedException | RuntimeException | Error e) {
            client.close();
            throw e;
        }
    }

    /** A path nobody else in this JVM uses: {@code /<prefix>-<n>}. */
    static String unique(String prefix) {
        return "/" + prefix + "-" + IDS.incrementAndGet();
    }

    /** A watcher that keeps every event it is given. */
    static final class RecordingWatcher implements Watcher {
        final List<WatchedEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void process(WatchedEvent event) {
            events.add(event);
        }

        /** @return the events of the given type on the given path, so far */
        List<WatchedEvent> of(Event.EventType type, String path) {
            return events.stream().filter(e -> e.getType() == type && path.equals(e.getPath())).toList();
        }

        /** @return events other than the watch-removed notices */
        List<WatchedEvent> changes() {
            return events.stream().filter(e -> e.getType() != Event.EventType.None
                    && e.getType() != Event.EventType.DataWatchRemoved
                    && e.getType() != Event.EventType.ChildWatchRemoved
                    && e.getType() != Event.EventType.PersistentWatchRemoved).toList();
        }
    }
}
