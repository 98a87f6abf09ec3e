package dev.baton.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.state.ConnectionState;
import dev.baton.recipes.faults.FaultClients;
import dev.baton.testing.Checkers;
import dev.baton.testing.ClientLink;
import dev.baton.testing.DriverProcess;
import dev.baton.testing.History;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * LeaderLatch under faults on a real 3-server ensemble (separate JVMs, every client behind its own proxies):
 * the leader's session expired on the server, its server killed, it partitioned beyond its session timeout, its
 * JVM paused past its session and resumed. Each run's history goes through the checkers: never two leaders
 * that both believe it while connected and not paused, fencing tokens strictly increasing across leaders, and
 * a leader again within the session timeout + 2 s after a fault.
 */
@Timeout(180)
@Tag("fault")
class LeaderLatchFaultsTest {
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Duration NEW_LEADER_BOUND = SESSION.plusSeconds(2);
    private static final String LEADERSHIP = "leader";

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

    private final History history = new History();
    private final List<Participant> participants = new ArrayList<>();

    /** One in-process latch with its own client and network link, recording what it believes. */
    private final class Participant implements AutoCloseable {
        final String name;
        final ClientLink link;
        final BatonClient client;
        final LeaderLatch latch;

        Participant(String name, String path) throws InterruptedException {
            this.name = name;
            this.link = zk.newClientLink();
            History.Recorder recorder = history.recorder(name);
            this.client = FaultClients.open(link, SESSION, recorder);
            this.latch = new LeaderLatch(client, path, name);
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    recorder.becameLeader(LEADERSHIP, latch.fencingToken().orElse(History.NO_TOKEN));
                }

                @Override
                public void notLeader() {
                    recorder.lostLeadership(LEADERSHIP, History.NO_TOKEN, "notLeader");
                }
            });
            latch.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> latch.getOurPath() != null);
        }

        /** The id of the server this participant's client is connected to, through its link's proxies. */
        int serverId() {
            return FaultClients.serverId(client, link);
        }

        @Override
        public void close() {
            latch.close(LeaderLatch.CloseMode.NOTIFY_LEADER); // so the history sees leadership end
            client.close();
            link.close();
        }
    }

    private Participant join(String name, String path) throws InterruptedException {
        Participant p = new Participant(name, path);
        participants.add(p);
        return p;
    }

    private List<Participant> leaders() {
        return participants.stream().filter(p -> p.latch.hasLeadership()).toList();
    }

    private Participant awaitSingleLeader(Duration bound) {
        // One read of the participants: leadership can change between two reads (a leader whose server just
        // died keeps believing until its client notices the disconnection).
        return await().atMost(bound).until(this::leaders, now -> now.size() == 1).get(0);
    }

    @AfterEach
    void checkHistory() {
        participants.forEach(Participant::close);
        Checkers.assertValid(history, Checkers.mutualExclusion(), Checkers.fencingTokensIncrease(),
                Checkers.liveness(NEW_LEADER_BOUND, LEADERSHIP));
    }

    @Test
    void leaderSessionExpiredOnTheServer() throws Exception {
        Participant first = join("p1", "/faults/expiry");
        join("p2", "/faults/expiry");
        join("p3", "/faults/expiry");
        assertThat(awaitSingleLeader(Duration.ofSeconds(20))).isSameAs(first);

        // A real expiry follows a session timeout of silence, by which time the client has suspended itself;
        // expiring on demand ends the session while the client is still connected for a few milliseconds.
        history.recorder("p1").disconnected("session expired on the server (forced)");
        history.faultInjected("expire", "expire p1's session on the server");
        zk.ensemble().expireSession(first.client.getZooKeeper());
        history.faultHealed("expire", "session gone");

        Participant next = awaitSingleLeader(NEW_LEADER_BOUND);
        assertThat(next.name).isEqualTo("p2");
        await().atMost(Duration.ofSeconds(30)).until(() -> first.latch.getParticipants().size() == 3
                && first.client.getConnectionState() == ConnectionState.RECONNECTED);
        assertThat(first.latch.hasLeadership()).isFalse();
        // Through the leader's own session, whose server may apply p1's new node a moment later than p1's.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(next.latch.getParticipants())
                .extracting(dev.baton.recipes.leader.Participant::id).containsExactly("p2", "p3", "p1"));
    }

    @Test
    void leadersServerKilled() throws Exception {
        Participant first = join("p1", "/faults/kill");
        join("p2", "/faults/kill");
        join("p3", "/faults/kill");
        assertThat(awaitSingleLeader(Duration.ofSeconds(20))).isSameAs(first);
        long token = first.latch.fencingToken().getAsLong();

        int server = first.serverId();
        history.faultInjected("kill", "kill server " + server + " (p1's)");
        zk.ensemble().kill(server);
        // Wait for p1's client to notice, or the next line could still see p1 leading on the dead connection.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> first.client.getConnectionState() != ConnectionState.CONNECTED);
        // Usually p1's session survives on the other servers and p1 leads again on the same node and token. If an
        // election took longer than the sessions, whoever re-created its node first leads (p1 included) with a
        // larger token. Either way: one leader, and the token never goes back.
        Participant leader = awaitSingleLeader(NEW_LEADER_BOUND.plusSeconds(10));
        if (leader == first) {
            assertThat(leader.latch.fencingToken().getAsLong()).isGreaterThanOrEqualTo(token);
        } else {
            assertThat(leader.latch.fencingToken().getAsLong()).isGreaterThan(token);
        }
        zk.ensemble().start(server);
        history.faultHealed("kill", "server " + server + " restarted");
        awaitSingleLeader(NEW_LEADER_BOUND);
    }

    @Test
    void leaderPartitionedBeyondItsSessionTimeout() throws Exception {
        Participant first = join("p1", "/faults/partition");
        join("p2", "/faults/partition");
        join("p3", "/faults/partition");
        assertThat(awaitSingleLeader(Duration.ofSeconds(20))).isSameAs(first);
        long token = first.latch.fencingToken().getAsLong();

        history.faultInjected("partition", "black-hole p1 from every server");
        long cutAt = System.nanoTime();
        first.link.partition(TcpProxy.Mode.BLACKHOLE);
        // p1 must stop leading before its session can expire (and someone else take over).
        await().atMost(SESSION).until(() -> !first.latch.hasLeadership());
        Participant next = awaitSingleLeader(NEW_LEADER_BOUND);
        assertThat(Duration.ofNanos(System.nanoTime() - cutAt)).isLessThan(NEW_LEADER_BOUND);
        assertThat(next).isNotSameAs(first);
        assertThat(next.latch.fencingToken().getAsLong()).isGreaterThan(token);

        first.link.heal();
        history.faultHealed("partition", "p1 healed");
        await().atMost(Duration.ofSeconds(30)).until(() -> first.latch.getParticipants().size() == 3);
        assertThat(leaders()).containsExactly(next);
    }

    @Test
    void leaderJvmPausedPastItsSessionAndResumed() throws Exception {
        DriverProcess driver = zk.startDriver(DriverProcess.builder(LatchDriver.class).name("paused-leader"));
        ClientLink link = zk.newClientLink();
        zk.register(link);
        driver.call("start", link.connectString(), "/faults/pause", "jvm", Long.toString(SESSION.toMillis()));
        String becameLeader = driver.awaitEvent(e -> e.startsWith("leader "), Duration.ofSeconds(20));
        History.Recorder jvm = history.recorder("jvm");
        jvm.becameLeader(LEADERSHIP, Long.parseLong(becameLeader.substring("leader ".length())));
        Participant p2 = join("p2", "/faults/pause");
        join("p3", "/faults/pause");
        await().until(() -> p2.latch.getParticipants().size() == 3);
        assertThat(leaders()).isEmpty();

        history.faultInjected("pause", "SIGSTOP the leader's JVM");
        jvm.paused();
        driver.pause();
        Participant next = awaitSingleLeader(NEW_LEADER_BOUND);
        assertThat(next).isSameAs(p2);

        driver.resume();
        jvm.resumed();
        history.faultHealed("pause", "SIGCONT");
        driver.awaitEvent(e -> e.equals("notleader"), Duration.ofSeconds(20));
        jvm.lostLeadership(LEADERSHIP, History.NO_TOKEN, "notLeader after resume");
        assertThat(driver.call("leader")).isEqualTo("false");
        assertThat(driver.call("safe")).isEqualTo("0");
        await().atMost(Duration.ofSeconds(30)).until(() -> p2.latch.getParticipants().size() == 3);
        assertThat(leaders()).containsExactly(p2);
        assertThat(p2.latch.getParticipants()).extracting(dev.baton.recipes.leader.Participant::id)
                .containsExactly("p2", "p3", "jvm");
    }
}
