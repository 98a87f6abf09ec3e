package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.queue.DistributedDelayQueue;
import dev.baton.recipes.queue.DistributedPriorityQueue;
import dev.baton.recipes.queue.DistributedQueue;
import dev.baton.recipes.queue.QueueBuilder;
import dev.baton.recipes.queue.QueueSerializer;
import dev.baton.recipes.queue.SimpleDistributedQueue;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(value = 90, unit = TimeUnit.SECONDS)
class QueueCliTest {

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static final QueueSerializer<String> TEXT = Utf8Text.SERIALIZER;

    @Test
    void queueDemoShowsTheDeadConsumersJobDeliveredToAnother() {
        Cli.Result result = baton("demo", "queue", "--speed", "10");
        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).contains("carol dies holding").containsPattern("was delivered again, to (alice|bob)")
                .contains("all 10 jobs done, none lost");
        assertThat(Demos.find("queue")).isPresent();
    }

    @Test
    void inspectShowsAQueuesDepthAndNextItemsInDeliveryOrder() throws Exception {
        try (BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(100))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            try (DistributedQueue<String> fifo = QueueBuilder.builder(client, null, TEXT, "/iq/fifo")
                    .putInBackground(false).buildQueue();
                    DistributedPriorityQueue<String> prio = QueueBuilder.builder(client, null, TEXT, "/iq/prio")
                            .putInBackground(false).buildPriorityQueue(0);
                    DistributedDelayQueue<String> delay = QueueBuilder.builder(client, null, TEXT, "/iq/delay")
                            .putInBackground(false).buildDelayQueue()) {
                fifo.start();
                prio.start();
                delay.start();
                for (int i = 1; i <= 7; i++) {
                    fifo.put("job-" + i);
                }
                List<String> batch = new java.util.ArrayList<>(List.of("a", "b"));
                fifo.putMulti(() -> batch.isEmpty() ? null : batch.remove(0));
                prio.put("later", 9);
                prio.put("first", -2);
                delay.put("tomorrow", System.currentTimeMillis() + 86_400_000L);
                delay.put("now", System.currentTimeMillis());
                new SimpleDistributedQueue(client, "/iq/simple").offer("plain".getBytes(StandardCharsets.UTF_8));

                Cli.Result result = baton("inspect", "/iq/fifo", "--connect", zk.connectString());
                assertThat(result.exitCode()).as(result.toString()).isZero();
                List<String> lines = result.outLines();
                assertThat(lines.get(1)).contains("[queue: 8 items, queue (FIFO); next 5:]");
                assertThat(lines.get(2)).contains("#1 queue-").contains("\"job-1\"");
                assertThat(lines.get(6)).contains("#5").contains("\"job-5\"");
                assertThat(lines).hasSize(7);

                lines = baton("inspect", "/iq/prio", "--connect", zk.connectString()).outLines();
                assertThat(lines.get(1)).contains("2 items, priority queue (lowest first)");
                assertThat(lines.get(2)).contains("\"first\"").contains("priority -2");
                assertThat(lines.get(3)).contains("\"later\"").contains("priority 9");

                lines = baton("inspect", "/iq/delay", "--connect", zk.connectString()).outLines();
                assertThat(lines.get(1)).contains("delay queue (earliest due first)");
                assertThat(lines.get(2)).contains("\"now\"").contains("due ");
                assertThat(lines.get(3)).contains("\"tomorrow\"");

                lines = baton("inspect", "/iq/simple", "--connect", zk.connectString()).outLines();
                assertThat(lines.get(1)).contains("1 item, simple queue (FIFO)");
                assertThat(lines.get(2)).contains("qn-").contains("\"plain\"");
            }
        }
    }

    @Test
    void multiItemNodesAreUnpacked() {
        byte[] two = {0, 1, 0, 1, 1, 0, 0, 0, 1, 'x', 1, 0, 0, 0, 1, 'y', 2};
        assertThat(QueueView.items(two)).isEqualTo("2 items: \"x\", \"y\"");
        assertThat(QueueView.items(new byte[] {1, 2, 3})).startsWith("0x010203");
    }
}
