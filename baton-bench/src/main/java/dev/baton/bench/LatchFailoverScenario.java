package dev.baton.bench;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * {@code latch-failover}: {@link #LATCHES} leader latches on one path, each on its own session. One op: close the
 * leader and time until the next latch's {@code isLeader()} fires (the op's latency); then the closed participant
 * rejoins with a new latch on its session, so the election stays at {@link #LATCHES} and the same hand-over
 * repeats. The rejoin's time is not in the op's latency (it is in the loop's wall time); its requests are counted.
 *
 * <p>The requests of each op are split into two phases: {@code failover} (from {@code close()} until the new
 * leader's {@code isLeader()} and whatever the two libraries send in its wake) and {@code rejoin} (the new latch
 * joining at the tail). Between phases the loop waits until the server has been quiet for a few milliseconds, so
 * asynchronous requests land in the phase that caused them. The failover phase's reads are the requests the new
 * leader sends after its watch notification; the close sends the delete.
 */
final class LatchFailoverScenario implements Scenario {

    /** Participants in the election. */
    static final int LATCHES = 5;
    static final String FAILOVER = "failover";
    static final String REJOIN = "rejoin";
    private static final long WAIT_SECONDS = 30;

    /** One participant: its session and its current latch. */
    private static final class Member {
        final BenchClient session;
        final String id;
        BenchClient.Recipe latch;
        int join;

        Member(BenchClient session, String id) {
            this.session = session;
            this.id = id;
        }
    }

    /** A latch's {@code isLeader()} call: who, and when it arrived. */
    private record Lead(Member member, int join, long nanos) {
    }

    /** The turn's election: members in queue order (the leader first) and the leadership calls. */
    private static final class Election {
        final String path;
        final List<Member> members = new ArrayList<>();
        final Deque<Member> queue = new ArrayDeque<>();
        final BlockingQueue<Lead> leads = new LinkedBlockingQueue<>();
        int joins;

        Election(String path) {
            this.path = path;
        }

        /** Starts a new latch for the member, at the tail of the queue, and waits until its node exists. */
        void join(Member member) throws InterruptedException {
            int join = joins++;
            String id = member.id + "-" + join;
            member.join = join;
            member.latch = member.session.startLatch(path, id, () -> leads.add(new Lead(member, join,
                    System.nanoTime())));
            queue.addLast(member);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (member.latch.ourPath() == null) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(member.session.name() + ": latch " + id + " has no node after "
                            + WAIT_SECONDS + " s");
                }
                TimeUnit.MICROSECONDS.sleep(50);
            }
        }

        /** Waits for the next {@code isLeader()} and checks it is the head of the queue's. */
        Lead awaitLeader(String name) throws InterruptedException {
            Lead lead = leads.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            if (lead == null) {
                throw new IllegalStateException(name + ": no new leader after " + WAIT_SECONDS + " s");
            }
            Member expected = queue.peekFirst();
            if (lead.member() != expected || lead.join() != expected.join) {
                throw new IllegalStateException(name + ": " + lead.member().id + " became leader, expected "
                        + expected.id + " (next in the queue)");
            }
            return lead;
        }
    }

    @Override
    public String name() {
        return "latch-failover";
    }

    @Override
    public String description() {
        return LATCHES + " leader latches, one session each; 1 op = close the leader, time until the next latch's"
                + " isLeader() (p50/p99 = failover time), then the closed one rejoins with a new latch (untimed,"
                + " counted; ops/s includes the rejoin and the quiet waits, so compare p50/p99 and requests)";
    }

    @Override
    public boolean supports(BenchClient client) {
        return client.hasRecipes();
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Election election = new Election(run.basePath() + "/latch");
        run.state(election);
        for (int i = 0; i < LATCHES; i++) {
            BenchClient session = client.another();
            election.members.add(new Member(session, "p" + i));
            session.open(run.connectString(), run.clientConfig());
        }
        for (Member member : election.members) {
            election.join(member);
        }
        election.awaitLeader(client.name());
        run.awaitQuiet();
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Election election = run.state(Election.class);
        Latencies latencies = run.latencies();
        for (int i = 0; run.more(i); i++) {
            Member leader = election.queue.pollFirst();
            Map<String, Long> before = run.requestCounts();
            long start = System.nanoTime();
            leader.latch.close();
            Lead lead = election.awaitLeader(client.name());
            latencies.add(lead.nanos() - start);
            run.awaitQuiet();
            Map<String, Long> failedOver = run.requestCounts();
            run.addPhaseRequests(FAILOVER, before, failedOver);

            election.join(leader);
            run.awaitQuiet();
            run.addPhaseRequests(REJOIN, failedOver, run.requestCounts());
        }
    }

    @Override
    public void tearDown(BenchClient client, RunContext run) {
        Election election = run.state(Election.class);
        if (election == null) {
            return;
        }
        // Tail first: nobody watches the last node, so no latch wakes up to a queue that is being torn down.
        election.queue.descendingIterator().forEachRemaining(member -> member.latch.close());
        election.members.forEach(m -> m.session.close());
    }
}
