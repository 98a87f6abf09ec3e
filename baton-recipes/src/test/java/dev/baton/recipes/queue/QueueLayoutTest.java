package dev.baton.recipes.queue;

import static dev.baton.recipes.queue.Queues.STRINGS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The queue's node holds items and nothing else, for every kind of queue, with and without a lock path, while
 * producers are open: the producers' markers live beside it. (They once lived inside it, as
 * {@code _producer-<uuid>|...|}, so a drained queue never looked empty while a producer was open.)
 */
@Timeout(60)
class QueueLayoutTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);
    private BatonClient client;

    @BeforeEach
    void setUp() throws InterruptedException {
        client = resources.untrackedClient();
    }

    /** The four kinds, each putting through its own form of {@code put}. */
    private enum Kind {
        PLAIN, ID, PRIORITY, DELAY;

        QueueBase<String> build(QueueBuilder<String> builder) {
            return switch (this) {
                case PLAIN -> builder.buildQueue();
                case ID -> builder.buildIdQueue();
                case PRIORITY -> builder.buildPriorityQueue(0);
                case DELAY -> builder.buildDelayQueue();
            };
        }

        void put(QueueBase<String> queue, String item) throws Exception {
            switch (this) {
                case PLAIN -> ((DistributedQueue<String>) queue).put(item);
                case ID -> ((DistributedIdQueue<String>) queue).put(item, "id-" + item);
                case PRIORITY -> ((DistributedPriorityQueue<String>) queue).put(item, 3);
                case DELAY -> ((DistributedDelayQueue<String>) queue).put(item, System.currentTimeMillis() - 1);
            }
        }

        /** Puts the items in one node where the kind has {@code putMulti} (the id queue has not); returns the nodes. */
        int putMulti(QueueBase<String> queue, List<String> items) throws Exception {
            Iterator<String> it = items.iterator();
            MultiItem<String> multi = () -> it.hasNext() ? it.next() : null;
            switch (this) {
                case PLAIN -> ((DistributedQueue<String>) queue).putMulti(multi);
                case ID -> {
                    for (String item : items) {
                        put(queue, item);
                    }
                    return items.size();
                }
                case PRIORITY -> ((DistributedPriorityQueue<String>) queue).putMulti(multi, 3);
                case DELAY -> ((DistributedDelayQueue<String>) queue).putMulti(multi, System.currentTimeMillis() - 1);
            }
            return 1;
        }
    }

    @Test
    void theQueuePathHoldsOnlyItemsForEveryKindWithAndWithoutALockPath() throws Exception {
        for (Kind kind : Kind.values()) {
            for (boolean locked : new boolean[] {false, true}) {
                String path = "/layout/" + kind.name().toLowerCase() + (locked ? "-locked" : "");
                String lockPath = locked ? path + "-locks" : null;
                QueueBase<String> first = resources.open(kind.build(producer(path, lockPath)));
                QueueBase<String> second = resources.open(kind.build(producer(path, lockPath)));
                first.start();
                second.start();
                kind.put(first, "a");
                kind.put(second, "b");
                int nodes = 2 + kind.putMulti(first, List.of("c", "d"));

                String where = kind + (locked ? " with a lock path" : "");
                assertThat(client.getChildren().forPath(path)).as(where).hasSize(nodes)
                        .allMatch(name -> name.startsWith("queue-"));
                assertThat(client.getChildren().forPath(Producer.markerDirectory(path))).as(where).hasSize(2);

                Queues.Recording consumer = new Queues.Recording();
                QueueBuilder<String> builder = QueueBuilder.builder(client, consumer, STRINGS, path);
                QueueBase<String> consuming = resources.open(kind.build(locked ? builder.lockPath(lockPath)
                        : builder));
                consuming.start();
                await().atMost(Duration.ofSeconds(20)).until(() -> consumer.consumed.size() == 4);
                // Drained while both producers stay open: the queue's node is empty, as a person would expect.
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                        assertThat(client.getChildren().forPath(path)).as(where).isEmpty());
                if (locked) {
                    await().untilAsserted(() -> assertThat(client.getChildren().forPath(lockPath)).isEmpty());
                }
                assertThat(consumer.consumed).as(where).containsExactlyInAnyOrder("a", "b", "c", "d");

                first.close();
                second.close();
                consuming.close();
                await().atMost(Duration.ofSeconds(20)).until(() -> markers(path).isEmpty());
            }
        }
    }

    @Test
    void theMarkersContainerTakesTheQueueNodesAcl() throws Exception {
        List<ACL> acl = List.of(new ACL(ZooDefs.Perms.ALL, new Id("world", "anyone")),
                new ACL(ZooDefs.Perms.READ, new Id("ip", "127.0.0.2")));
        client.create().creatingParentContainersIfNeeded().withACL(acl).forPath("/acl/q");
        DistributedQueue<String> producer = resources.open(producer("/acl/q", null).buildQueue());
        producer.start();
        producer.put("x");
        assertThat(producer.flushPuts(10, TimeUnit.SECONDS)).isTrue();

        String markers = Producer.markerDirectory("/acl/q");
        assertThat(client.getACL().forPath(markers)).containsExactlyInAnyOrderElementsOf(acl);
        String marker = client.getChildren().forPath(markers).get(0);
        assertThat(client.getACL().forPath(markers + "/" + marker)).containsExactlyInAnyOrderElementsOf(acl);
        assertThat(client.getChildren().forPath("/acl/q")).singleElement().asString().startsWith("queue-");
    }

    @Test
    void aProducerMakesTheMarkersContainerAgainAfterTheServerRemovedIt() throws Exception {
        DistributedQueue<String> first = resources.open(producer("/again/q", null).buildQueue());
        first.start();
        first.put("one");
        first.close(); // its marker goes; the empty container is the server's to remove
        String markers = Producer.markerDirectory("/again/q");
        client.delete().forPath(markers); // as the server's container sweep would

        DistributedQueue<String> second = resources.open(producer("/again/q", null).buildQueue());
        second.start();
        second.put("two");
        assertThat(second.flushPuts(10, TimeUnit.SECONDS)).isTrue();
        assertThat(client.getChildren().forPath(markers)).hasSize(1);
        assertThat(client.getChildren().forPath("/again/q")).hasSize(2).allMatch(n -> n.startsWith("queue-"));
    }

    private QueueBuilder<String> producer(String path, String lockPath) {
        QueueBuilder<String> builder = QueueBuilder.builder(client, null, STRINGS, path).putInBackground(false);
        return lockPath == null ? builder : builder.lockPath(lockPath);
    }

    private List<String> markers(String queuePath) throws Exception {
        try {
            return client.getChildren().forPath(Producer.markerDirectory(queuePath));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }
}
