package dev.baton.cli;

import dev.baton.recipes.queue.QueueSerializer;
import java.nio.charset.StandardCharsets;

/** Queue items as UTF-8 text, for the queue demo and the chaos queue workload. Stateless and thread-safe. */
final class Utf8Text implements QueueSerializer<String> {
    /** The one instance. */
    static final Utf8Text SERIALIZER = new Utf8Text();

    private Utf8Text() {
    }

    @Override
    public byte[] serialize(String item) {
        return item.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String deserialize(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
