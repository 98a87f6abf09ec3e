package dev.baton.recipes.queue;

import dev.baton.BatonClient;
import dev.baton.state.ConnectionState;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A string serializer and a recording consumer for the queue tests. */
final class Queues {
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

    private Queues() {
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
