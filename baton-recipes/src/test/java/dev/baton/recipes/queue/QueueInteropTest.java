package dev.baton.recipes.queue;

import static dev.baton.recipes.queue.Queues.STRINGS;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every queue kind, Curator 5.9 and Baton on one path: each consumes what the other produced. */
@Timeout(90)
class QueueInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    private static final org.apache.curator.framework.recipes.queue.QueueSerializer<String> CURATOR_STRINGS =
            new org.apache.curator.framework.recipes.queue.QueueSerializer<>() {
                @Override
                public byte[] serialize(String item) {
                    return item.getBytes(UTF_8);
                }

                @Override
                public String deserialize(byte[] bytes) {
                    return new String(bytes, UTF_8);
                }
            };

    private BatonClient baton;
    private CuratorFramework curator;

    @BeforeEach
    void setUp() throws Exception {
        baton = resources.untrackedClient();
        curator = resources.curator();
    }

    /** Curator's consumer, recording. */
    private static final class Theirs implements org.apache.curator.framework.recipes.queue.QueueConsumer<String> {
        final List<String> consumed = new CopyOnWriteArrayList<>();

        @Override
        public void consumeMessage(String message) {
            consumed.add(message);
        }

        @Override
        public void stateChanged(CuratorFramework client, ConnectionState newState) {
        }
    }

    private static List<String> items(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + i).toList();
    }

    @Test
    void plainQueueWithALockPathBothWays() throws Exception {
        var theirProducer = QueueBuilder.builder(curator, null, CURATOR_STRINGS, "/iq/plain")
                .lockPath("/iq/plain-locks").buildQueue();
        theirProducer.start();
        for (String item : items("c", 20)) {
            theirProducer.put(item);
        }
        theirProducer.putMulti(new org.apache.curator.framework.recipes.queue.MultiItem<>() {
            final java.util.Iterator<String> it = List.of("cm1", "cm2").iterator();

            @Override
            public String nextItem() {
                return it.hasNext() ? it.next() : null;
            }
        });
        assertThat(theirProducer.flushPuts(10, TimeUnit.SECONDS)).isTrue();
        Queues.Recording ours = new Queues.Recording();
        DistributedQueue<String> ourQueue = resources.open(dev.baton.recipes.queue.QueueBuilder
                .builder(baton, ours, STRINGS, "/iq/plain").lockPath("/iq/plain-locks").buildQueue());
        ourQueue.start();
        await().until(() -> ours.consumed.size() == 22);
        List<String> expected = new java.util.ArrayList<>(items("c", 20));
        expected.addAll(List.of("cm1", "cm2"));
        assertThat(ours.consumed).containsExactlyElementsOf(expected);
        ourQueue.close();
        theirProducer.close();

        DistributedQueue<String> ourProducer = resources.open(dev.baton.recipes.queue.QueueBuilder
                .builder(baton, null, STRINGS, "/iq/plain").buildQueue());
        ourProducer.start();
        for (String item : items("b", 20)) {
            ourProducer.put(item);
        }
        assertThat(ourProducer.flushPuts(10, TimeUnit.SECONDS)).isTrue();
        Theirs theirs = new Theirs();
        var theirQueue = QueueBuilder.builder(curator, theirs, CURATOR_STRINGS, "/iq/plain")
                .lockPath("/iq/plain-locks").buildQueue();
        theirQueue.start();
        try {
            await().until(() -> theirs.consumed.size() == 20);
            assertThat(theirs.consumed).containsExactlyElementsOf(items("b", 20));
        } finally {
            theirQueue.close();
        }
    }

    /**
     * Curator's consumer logs every child of the queue's node that is not an item ("Foreign node in queue path")
     * on every listing. With Baton's producers open beside Curator's on one path, the queue's node holds only items
     * and Curator logs nothing: Baton's markers live beside the queue's node.
     */
    @Test
    void curatorMeetsNoForeignNodeWhileBatonProducersAreOpen() throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        // slf4j-simple (the tests' logger) writes each line to the System.err of the moment.
        System.setErr(new PrintStream(new TeeStream(err, logged), true, UTF_8));
        try {
            DistributedQueue<String> ourProducer = resources.open(dev.baton.recipes.queue.QueueBuilder
                    .builder(baton, null, STRINGS, "/iq/clean").buildQueue());
            ourProducer.start();
            var theirProducer = QueueBuilder.builder(curator, null, CURATOR_STRINGS, "/iq/clean").buildQueue();
            theirProducer.start();
            for (String item : items("b", 10)) {
                ourProducer.put(item);
            }
            assertThat(ourProducer.flushPuts(10, TimeUnit.SECONDS)).isTrue();

            Theirs theirs = new Theirs();
            var theirQueue = QueueBuilder.builder(curator, theirs, CURATOR_STRINGS, "/iq/clean").buildQueue();
            theirQueue.start();
            try {
                await().until(() -> theirs.consumed.size() == 10);
                assertThat(theirs.consumed).containsExactlyElementsOf(items("b", 10));
                // Drained, with a Baton producer open: nothing at all under the queue's node.
                await().until(() -> baton.getChildren().forPath("/iq/clean").isEmpty());
            } finally {
                theirQueue.close();
            }

            Queues.Recording ours = new Queues.Recording();
            DistributedQueue<String> ourQueue = resources.open(dev.baton.recipes.queue.QueueBuilder
                    .builder(baton, ours, STRINGS, "/iq/clean").buildQueue());
            ourQueue.start();
            for (String item : items("c", 10)) {
                theirProducer.put(item);
            }
            await().until(() -> ours.consumed.size() == 10);
            assertThat(ours.consumed).containsExactlyElementsOf(items("c", 10));
            theirProducer.close();
        } finally {
            System.setErr(err);
        }
        assertThat(logged.toString(UTF_8)).doesNotContain("Foreign node");
    }

    /** Writes to two streams. */
    private static final class TeeStream extends OutputStream {
        private final OutputStream first;
        private final OutputStream second;

        TeeStream(OutputStream first, OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }
    }

    @Test
    void mixedConsumersWithALockPathShareTheItems() throws Exception {
        Queues.Recording ours = new Queues.Recording();
        Theirs theirs = new Theirs();
        DistributedQueue<String> ourQueue = resources.open(dev.baton.recipes.queue.QueueBuilder
                .builder(baton, ours, STRINGS, "/iq/mixed").lockPath("/iq/mixed-locks").buildQueue());
        var theirQueue = QueueBuilder.builder(curator, theirs, CURATOR_STRINGS, "/iq/mixed")
                .lockPath("/iq/mixed-locks").buildQueue();
        ourQueue.start();
        theirQueue.start();
        try {
            for (String item : items("x", 100)) {
                ourQueue.put(item);
                theirQueue.put(item + "'");
            }
            await().until(() -> ours.consumed.size() + theirs.consumed.size() >= 200);
            List<String> all = new java.util.ArrayList<>(ours.consumed);
            all.addAll(theirs.consumed);
            assertThat(all).hasSize(200).doesNotHaveDuplicates();
        } finally {
            theirQueue.close();
        }
    }

    @Test
    void idQueueBothWays() throws Exception {
        var theirProducer = QueueBuilder.builder(curator, null, CURATOR_STRINGS, "/iq/id").buildIdQueue();
        theirProducer.start();
        theirProducer.put("c1", "one");
        theirProducer.put("c2", "two");
        theirProducer.put("c3", "one");
        assertThat(theirProducer.flushPuts(10, TimeUnit.SECONDS)).isTrue();
        Queues.Recording ours = new Queues.Recording();
        DistributedIdQueue<String> ourQueue = resources.open(dev.baton.recipes.queue.QueueBuilder
                .builder(baton, null, STRINGS, "/iq/id").buildIdQueue());
        ourQueue.start();
        assertThat(ourQueue.remove("one")).isEqualTo(2); // removes Curator's items by their id
        ourQueue.put("b1", "three");
        ourQueue.put("b2", "four");
        assertThat(ourQueue.flushPuts(10, TimeUnit.SECONDS)).isTrue();
        assertThat(theirProducer.remove("four")).isEqualTo(1); // Curator removes Baton's item by its id
        theirProducer.close();

        Theirs theirs = new Theirs();
        var theirQueue = QueueBuilder.builder(curator, theirs, CURATOR_STRINGS, "/iq/id").buildIdQueue();
        theirQueue.start();
        try {
            await().until(() -> theirs.consumed.size() == 2);
            assertThat(theirs.consumed).containsExactly("c2", "b1");
        } finally {
            theirQueue.close();
        }
        var again = QueueBuilder.builder(curator, null, CURATOR_STRINGS, "/iq/id").buildIdQueue();
        again.start();
        again.put("c4", "five");
        again.flushPuts(10, TimeUnit.SECONDS);
        again.close();
        DistributedIdQueue<String> consumer = resources.open(dev.baton.recipes.queue.QueueBuilder
                .builder(baton, ours, STRINGS, "/iq/id").buildIdQueue());
        consumer.start();
        await().until(() -> ours.consumed.size() == 1);
        assertThat(ours.consumed).containsExactly("c4");
    }

    @Test
    void priorityQueueBothWays() throws Exception {
        var theirProducer = QueueBuilder.builder(curator, null, CURATOR_STRINGS, "/iq/prio").buildPriorityQueue(0);
        theirProducer.start();
        theirProducer.put("c-low", 50);
        theirProducer.put("c-neg", -3);
        assertThat(theirProducer.flushPuts(10, TimeUnit.SECONDS)).isTrue();
        DistributedPriorityQueue<String> ourProducer = resources.open(dev.baton.recipes.queue.QueueBuilder
                .builder(baton, null, STRINGS, "/iq/prio").putInBackground(false).buildPriorityQueue(0));
        ourProducer.start();
        ourProducer.put("b-mid", 7);
        ourProducer.put("b-first", Integer.MIN_VALUE);
        theirProducer.close();

        Queues.Recording ours = new Queues.Recording();
        DistributedPriorityQueue<String> ourQueue = resources.open(dev.baton.recipes.queue.QueueBuilder
                .builder(baton, ours, STRINGS, "/iq/prio").buildPriorityQueue(0));
        ourQueue.start();
        await().until(() -> ours.consumed.size() == 4);
        assertThat(ours.consumed).containsExactly("b-first", "c-neg", "b-mid", "c-low");
        ourQueue.close();

        ourProducer.put("b-2", 2);
        ourProducer.put("b-1", 1);
        Theirs theirs = new Theirs();
        var theirQueue = QueueBuilder.builder(curator, theirs, CURATOR_STRINGS, "/iq/prio").buildPriorityQueue(0);
        theirQueue.start();
        try {
            await().until(() -> theirs.consumed.size() == 2);
            assertThat(theirs.consumed).containsExactly("b-1", "b-2");
        } finally {
            theirQueue.close();
        }
    }

    @Test
    void delayQueueBothWays() throws Exception {
        long now = System.currentTimeMillis();
        var theirProducer = QueueBuilder.builder(curator, null, CURATOR_STRINGS, "/iq/delay").buildDelayQueue();
        theirProducer.start();
        theirProducer.put("c-later", now + 800);
        theirProducer.put("c-now", now);
        assertThat(theirProducer.flushPuts(10, TimeUnit.SECONDS)).isTrue();
        theirProducer.close();
        Queues.Recording ours = new Queues.Recording();
        DistributedDelayQueue<String> ourQueue = resources.open(dev.baton.recipes.queue.QueueBuilder
                .builder(baton, ours, STRINGS, "/iq/delay").buildDelayQueue());
        ourQueue.start();
        await().until(() -> ours.consumed.size() == 2);
        assertThat(ours.consumed).containsExactly("c-now", "c-later");
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(now + 800);
        ourQueue.close();

        DistributedDelayQueue<String> ourProducer = resources.open(dev.baton.recipes.queue.QueueBuilder
                .builder(baton, null, STRINGS, "/iq/delay").putInBackground(false).buildDelayQueue());
        ourProducer.start();
        long then = System.currentTimeMillis();
        ourProducer.put("b-later", then + 800);
        ourProducer.put("b-now", then);
        List<Long> at = new CopyOnWriteArrayList<>();
        Theirs theirs = new Theirs();
        var theirQueue = QueueBuilder.builder(curator, new org.apache.curator.framework.recipes.queue
                .QueueConsumer<String>() {
            @Override
            public void consumeMessage(String message) {
                theirs.consumed.add(message);
                at.add(System.currentTimeMillis());
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
            }
        }, CURATOR_STRINGS, "/iq/delay").buildDelayQueue();
        theirQueue.start();
        try {
            await().until(() -> theirs.consumed.size() == 2);
            assertThat(theirs.consumed).containsExactly("b-now", "b-later");
            assertThat(at.get(1)).isGreaterThanOrEqualTo(then + 800);
        } finally {
            theirQueue.close();
        }
    }

    @Test
    void simpleQueueBothWays() throws Exception {
        var theirs = new org.apache.curator.framework.recipes.queue.SimpleDistributedQueue(curator, "/iq/simple");
        SimpleDistributedQueue ours = new SimpleDistributedQueue(baton, "/iq/simple");
        theirs.offer("c1".getBytes(UTF_8));
        theirs.offer("c2".getBytes(UTF_8));
        ours.offer("b1".getBytes(UTF_8));
        assertThat(new String(ours.poll(), UTF_8)).isEqualTo("c1");
        assertThat(new String(theirs.poll(), UTF_8)).isEqualTo("c2");
        assertThat(new String(theirs.take(), UTF_8)).isEqualTo("b1");
        var waiting = ours.takeAsync();
        theirs.offer("c3".getBytes(UTF_8));
        assertThat(new String(waiting.get(10, TimeUnit.SECONDS), UTF_8)).isEqualTo("c3");
        assertThat(theirs.poll()).isNull();
    }
}
