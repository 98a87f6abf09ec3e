package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.queue.DistributedQueue;
import dev.baton.recipes.queue.QueueBuilder;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The servers' account of the queue nodes each item was put in, read from a real server's transaction log. */
@Timeout(60)
class QueueCopiesTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void anItemPutTwiceIsCountedInTwoNodesAndOthersInOne() throws Exception {
        try (BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            // Real puts (Baton's go through a multi), and one item created a second time as a retried
            // sequential create would.
            DistributedQueue<String> queue = QueueBuilder.<String>builder(client, null, Utf8Text.SERIALIZER, "/q")
                    .buildQueue();
            queue.start();
            queue.put("q/c1-baton-1");
            queue.put("q/c2-curator-1");
            client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath("/q/queue-", item("q/c2-curator-1"));
            client.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath("/other/queue-", item("q/c1-baton-1")); // not a queue counted here
            queue.close();

            Map<String, Integer> copies = QueueCopies.count(List.of(zk.server().dataDirectory()), List.of("/q"));

            assertThat(copies).containsOnly(Map.entry("q/c1-baton-1", 1), Map.entry("q/c2-curator-1", 2));
        }
    }

    @Test
    void dataOutsideTheItemFormatHoldsNoItem() throws IOException {
        assertThat(QueueCopies.items(item("a"))).containsExactly("a");
        assertThat(QueueCopies.items(new byte[] {1, 2})).isEmpty();
        assertThat(QueueCopies.items(null)).isEmpty();
        assertThat(QueueCopies.items("plain text, not an item".getBytes(StandardCharsets.UTF_8))).isEmpty();
    }

    /** A queue node's data with one item, in the format both libraries write. */
    private static byte[] item(String item) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            byte[] b = item.getBytes(StandardCharsets.UTF_8);
            out.writeInt(0x00010001);
            out.writeByte(0x01);
            out.writeInt(b.length);
            out.write(b);
            out.writeByte(0x02);
        }
        return bytes.toByteArray();
    }
}
