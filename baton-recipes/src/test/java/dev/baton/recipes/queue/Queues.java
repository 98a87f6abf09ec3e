package dev.baton.recipes.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryNTimes;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** Clients, a string serializer and a recording consumer for the queue tests. */
final class Queues implements AutoCloseable {
    static final QueueSerializer<String> STRINGS = new QueueSerializer<>() {
        @Override
        public byte[] serialize(String item) {
            return item.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    private final EmbeddedZooKeeperExtension zk;
    private final List<AutoCloseable> open = new ArrayList<>();

    Queues(EmbeddedZooKeeperExtension zk) {
        this.zk = zk;
    }

    BatonClient client() throws InterruptedException {
        BatonClient client = Baton.builder().connectString(zk.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(5))
                .retryPolicy(new RetryNTimes(3, 100)).ensembleTracker(false).build();
        open.add(client);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    <Q extends AutoCloseable> Q closeLater(Q queue) {
        open.add(0, queue);
        return queue;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    /** A consumer that records what it consumed, in order; optionally failing on some items. */
    static class Recording implements QueueConsumer<String> {
        final List<String> consumed = new CopyOnWriteArrayList<>();
        final List<ConnectionState> states = new CopyOnWriteArrayList<>();
        volatile String failOn;

        @Override
        public void consumeMessage(String message) {
            consumed.add(message);
            if (message.equals(failOn)) {
                failOn = null;
                throw new IllegalStateException("failing once on " + message);
            }
        }

        @Override
        public void stateChanged(BatonClient client, ConnectionState newState) {
            states.add(newState);
        }
    }
}
