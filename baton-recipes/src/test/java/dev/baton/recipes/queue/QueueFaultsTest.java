package dev.baton.recipes.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.faults.FaultClients;
import dev.baton.state.ConnectionState;
import dev.baton.testing.Checkers;
import dev.baton.testing.ClientLink;
import dev.baton.testing.DriverProcess;
import dev.baton.testing.History;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Queues under faults on a real 3-server ensemble (separate JVMs, each client behind its own proxies): a
 * consumer's session expired on the server mid-message, its server killed mid-message, it partitioned past its
 * session, its JVM paused past its session, and a producer cut off with puts in flight. The history checkers
 * then find every item put consumed to the end (nothing lost), no item consumed by two connected consumers at
 * once (with a lock path), and, where no consumer failed, no item consumed twice (no put doubled).
 */
@Timeout(180)
@Tag("fault")
class QueueFaultsTest {
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Duration TAKEOVER_BOUND = SESSION.plusSeconds(4);
    private static final int ITEMS = 10;

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

    private final History history = new History();
    private final List<AutoCloseable> open = new ArrayList<>();
    private boolean exactlyOnce;

    @AfterEach
    void checkHistory() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (exactlyOnce) {
            Checkers.assertValid(history, Checkers.queueNothingLost(), Checkers.queueExclusive(),
                    Checkers.queueAtMostOnce());
        } else {
            Checkers.assertValid(history, Checkers.queueNothingLost(), Checkers.queueExclusive());
        }
    }

    /** A consumer with a lock path; it blocks on the first item it takes until {@link #finish()}. */
    private final class Consumer implements QueueConsumer<String>, AutoCloseable {
        final String name;
        final ClientLink link;
        final BatonClient client;
        final History.Recorder recorder;
        final DistributedQueue<String> queue;
        final CountDownLatch firstTaken = new CountDownLatch(1);
        final List<ConnectionState> states = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final CountDownLatch release;
        private volatile String first;
        private String current;

        Consumer(String name, String path, boolean blockOnFirst) throws Exception {
            this.name = name;
            this.link = zk.newClientLink();
            this.recorder = history.recorder(name);
            this.client = FaultClients.open(link, SESSION, recorder);
            this.release = new CountDownLatch(blockOnFirst ? 1 : 0);
            this.queue = QueueBuilder.builder(client, this, Queues.STRINGS, path).lockPath(path + "-locks")
                    .finalFlushTime(0, TimeUnit.SECONDS).buildQueue();
            open.add(this);
            queue.start();
        }

        @Override
        public void consumeMessage(String message) throws InterruptedException {
            synchronized (this) {
                current = message;
                recorder.itemTaken(message);
            }
            if (first == null) {
                first = message;
                firstTaken.countDown();
                release.await();
            }
            synchronized (this) {
                if (current == null) {
                    return; // told LOST meanwhile: not ours any more
                }
                current = null;
                recorder.itemDone(message);
            }
        }

        @Override
        public synchronized void stateChanged(BatonClient c, ConnectionState newState) {
            states.add(newState);
            if (newState == ConnectionState.LOST && current != null) {
                recorder.itemDropped(current, "LOST while consuming");
                current = null;
            }
        }

        void finish() {
            release.countDown();
        }

        int serverId() {
            return FaultClients.serverId(client, link);
        }

        @Override
        public void close() {
            finish();
            queue.close();
            client.close();
            link.close();
        }
    }

    /** Puts {@link #ITEMS} items through a fault-free client and records them. */
    private void produce(String path) throws Exception {
        ClientLink link = zk.newClientLink();
        History.Recorder recorder = history.recorder("producer");
        BatonClient client = FaultClients.open(link, SESSION, recorder);
        open.add(link);
        open.add(client);
        DistributedQueue<String> queue = QueueBuilder.builder(client, null, Queues.STRINGS, path)
                .putInBackground(false).buildQueue();
        queue.start();
        open.add(queue);
        for (int i = 0; i < ITEMS; i++) {
            queue.put("item-" + i);
            recorder.itemPut("item-" + i);
        }
    }

    /** Produces the items, starts a consumer that takes one and holds it, then a second consumer. */
    private Consumer victimHoldingAnItem(String path) throws Exception {
        produce(path);
        Consumer victim = new Consumer("victim", path, true);
        assertThat(victim.firstTaken.await(20, TimeUnit.SECONDS)).isTrue();
        new Consumer("other", path, false);
        return victim;
    }

    private void awaitAllDone() {
        await().atMost(Duration.ofSeconds(60)).until(() -> history.events().stream()
                .filter(e -> e.kind() == History.Kind.ITEM_DONE).map(History.Event::name).distinct().count()
                == ITEMS);
    }

    private boolean takenBy(String client, String item) {
        return history.events().stream().anyMatch(e -> e.kind() == History.Kind.ITEM_TAKEN
                && e.client().equals(client) && e.name().equals(item));
    }

    @Test
    void consumerSessionExpiredOnTheServerMidMessage() throws Exception {
        String path = "/faults/queue-expiry";
        Consumer victim = victimHoldingAnItem(path);

        // A real expiry follows a session timeout of silence, by which time the consumer has been suspended.
        victim.recorder.disconnected("session expired on the server (forced)");
        zk.ensemble().expireSession(victim.client.getZooKeeper());
        await().atMost(TAKEOVER_BOUND).until(() -> takenBy("other", victim.first));
        await().atMost(Duration.ofSeconds(20)).until(() -> victim.states.contains(ConnectionState.LOST));
        victim.finish(); // its late finish must not remove the item the other consumer holds
        awaitAllDone();
    }

    @Test
    void consumersServerKilledMidMessage() throws Exception {
        String path = "/faults/queue-kill";
        Consumer victim = victimHoldingAnItem(path);
        await().atMost(Duration.ofSeconds(30)).until(() -> history.events().stream()
                .filter(e -> e.kind() == History.Kind.ITEM_DONE).count() == ITEMS - 1);

        int server = victim.serverId();
        if (server == zk.ensemble().leaderId()) {
            victim.link.partition(server, TcpProxy.Mode.DROP); // move off the leader: a kill then keeps quorum
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> victim.client.isConnected() && victim.serverId() != server);
            victim.link.heal(server);
        }
        int killed = victim.serverId();
        zk.ensemble().kill(killed);
        await().atMost(Duration.ofSeconds(20)).until(() -> victim.states.contains(ConnectionState.SUSPENDED));
        await().atMost(Duration.ofSeconds(30)).until(() -> victim.client.isConnected());
        zk.ensemble().start(killed);
        if (!victim.states.contains(ConnectionState.LOST)) {
            // Same session: the lock node lived on, so the item stayed the victim's alone.
            assertThat(takenBy("other", victim.first)).isFalse();
        }
        victim.finish();
        awaitAllDone();
    }

    @Test
    void consumerPartitionedPastItsSession() throws Exception {
        String path = "/faults/queue-partition";
        Consumer victim = victimHoldingAnItem(path);

        victim.link.partition(TcpProxy.Mode.BLACKHOLE);
        await().atMost(SESSION).until(() -> victim.states.contains(ConnectionState.SUSPENDED));
        await().atMost(TAKEOVER_BOUND).until(() -> takenBy("other", victim.first));
        victim.link.heal();
        await().atMost(Duration.ofSeconds(30)).until(() -> victim.states.contains(ConnectionState.LOST));
        victim.finish();
        awaitAllDone();
    }

    @Test
    void consumerJvmPausedPastItsSession() throws Exception {
        String path = "/faults/queue-pause";
        produce(path);
        DriverProcess jvm = zk.startDriver(DriverProcess.builder(QueueDriver.class).name("jvm"));
        ClientLink link = zk.newClientLink();
        open.add(link);
        History.Recorder recorder = history.recorder("jvm");
        jvm.call("start", link.connectString(), path, path + "-locks", Long.toString(SESSION.toMillis()));
        String taken = jvm.awaitEvent(e -> e.startsWith("taken "), Duration.ofSeconds(20)).substring(6);
        recorder.itemTaken(taken);
        Consumer other = new Consumer("other", path, false);

        recorder.paused();
        jvm.pause();
        await().atMost(TAKEOVER_BOUND.plusSeconds(2)).until(() -> takenBy("other", taken));
        jvm.resume();
        recorder.resumed();
        jvm.awaitEvent(("dropped " + taken)::equals, Duration.ofSeconds(20));
        recorder.itemDropped(taken, "LOST reported by the driver");
        jvm.call("finish");
        awaitAllDone();
        // Whatever the paused consumer finished later is recorded as done too, in the driver's own words.
        for (String e : jvm.events()) {
            if (e.startsWith("done ")) {
                recorder.itemDone(e.substring(5));
            }
        }
    }

    @Test
    void producerCutOffMidPutNeitherDoublesNorLosesAPut() throws Exception {
        exactlyOnce = true;
        String path = "/faults/queue-producer";
        Consumer consumer = new Consumer("consumer", path, false);
        ClientLink link = zk.newClientLink();
        open.add(link);
        History.Recorder recorder = history.recorder("producer");
        BatonClient client = FaultClients.open(link, SESSION, recorder);
        open.add(client);
        DistributedQueue<String> producer = QueueBuilder.builder(client, null, Queues.STRINGS, path).buildQueue();
        producer.start();
        open.add(producer);

        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 40; i++) {
                String item = "r" + round + "-" + i;
                puts.add(producer.putAsync(item).thenRun(() -> recorder.itemPut(item)));
            }
            if (round == 1) {
                link.partition(TcpProxy.Mode.BLACKHOLE); // puts in flight, their answers never come
            }
            if (round == 3) {
                link.heal(); // well within the session: the marker tells which puts were applied
            }
        }
        CompletableFuture.allOf(puts.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(60)).until(() -> history.events().stream()
                .filter(e -> e.kind() == History.Kind.ITEM_DONE).count() >= 200);
        assertThat(history.events().stream().filter(e -> e.kind() == History.Kind.ITEM_PUT).count()).isEqualTo(200);
    }

    /**
     * Found by {@code baton chaos --recipe queue --seed 1}: with the quorum lost past the producer's session, the
     * client gave up its session and opened a new one while the old one (and with it the producer's marker)
     * still lived on the servers. The marker's create answered "exists", the producer took that marker for its
     * own at version 0, and a put refused by the marker's version check was then counted as applied: put
     * returned, and the item was never in the queue.
     */
    @Test
    void quorumLostPastTheProducersSessionLosesNoPut() throws Exception {
        exactlyOnce = true;
        String path = "/faults/queue-new-session";
        ClientLink link = zk.newClientLink();
        open.add(link);
        History.Recorder recorder = history.recorder("producer");
        BatonClient client = FaultClients.open(link, Duration.ofSeconds(8), recorder);
        open.add(client);
        DistributedQueue<String> producer = QueueBuilder.builder(client, null, Queues.STRINGS, path)
                .putInBackground(false).buildQueue();
        producer.start();
        open.add(producer);
        for (int i = 0; i < 3; i++) {
            producer.put("before-" + i);
            recorder.itemPut("before-" + i);
        }
        long oldSession = client.getZooKeeper().getSessionId();

        zk.ensemble().loseQuorum(); // no leader: no session can end on the servers
        await().atMost(Duration.ofSeconds(60)).until(() -> history.events().stream().anyMatch(e ->
                e.client().equals("producer") && e.kind() == History.Kind.DISCONNECTED && e.detail().equals("LOST")));
        zk.ensemble().regainQuorum();
        assertThat(client.blockUntilConnected(60, TimeUnit.SECONDS)).isTrue();
        assertThat(client.getZooKeeper().getSessionId()).isNotEqualTo(oldSession);
        // The old session would live on (a new leader gives every session its whole timeout again), but the client
        // closed it on the servers before it reported the new one: its marker is gone, and no put of it can land.
        String markers = Producer.markerDirectory(path);
        assertThat(markersOf(client, markers).stream().map(n -> ownerOf(client, markers + "/" + n)))
                .doesNotContain(oldSession);

        for (int i = 0; i < 3; i++) {
            producer.put("after-" + i);
            recorder.itemPut("after-" + i);
        }
        new Consumer("consumer", path, false);
        await().atMost(Duration.ofSeconds(60)).until(() -> history.events().stream()
                .filter(e -> e.kind() == History.Kind.ITEM_DONE).count() >= 6);
    }

    /** The producers' markers of a queue; none if their container is gone (reaped once empty). */
    private static List<String> markersOf(BatonClient client, String directory) throws Exception {
        try {
            return client.getChildren().forPath(directory);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    private static long ownerOf(BatonClient client, String node) {
        try {
            org.apache.zookeeper.data.Stat stat = client.checkExists().forPath(node);
            return stat == null ? 0 : stat.getEphemeralOwner();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
