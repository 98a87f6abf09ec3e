package dev.baton.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * {@code selector-rotation}: {@link #SELECTORS} leader selectors with {@code autoRequeue()} on one path, each on
 * its own session, whose {@code takeLeadership} returns at once. One op is one turn: the leader's
 * {@code takeLeadership} returns, the selector releases and queues again behind the others, and the next one's
 * {@code takeLeadership} starts.
 *
 * <p>To count exactly {@code ops} turns, each {@code takeLeadership} takes a permit before it returns: the set-up
 * leaves the first leader waiting without one; the loop hands out one permit at a time and waits for the next
 * turn to start, which then waits for the next permit. An op's latency runs from handing out the permit to the
 * start of the next turn. Every run so starts and ends in the same state, and the requests counted between are
 * exactly those of {@code ops} turns.
 */
final class SelectorRotationScenario implements Scenario {

    /** Participants in the election. */
    static final int SELECTORS = 3;
    private static final long WAIT_SECONDS = 30;

    /** The turn's selectors and what they report. */
    private static final class Rotation {
        final String path;
        final List<BenchClient> sessions = new ArrayList<>();
        final List<BenchClient.Recipe> selectors = new ArrayList<>();
        final Semaphore permits = new Semaphore(0);
        /** The {@code System.nanoTime()} at which each turn started. */
        final BlockingQueue<Long> turnStarts = new LinkedBlockingQueue<>();

        Rotation(String path) {
            this.path = path;
        }

        long awaitTurn(String name) throws InterruptedException {
            Long start = turnStarts.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            if (start == null) {
                throw new IllegalStateException(name + ": no new turn after " + WAIT_SECONDS + " s");
            }
            return start;
        }
    }

    @Override
    public String name() {
        return "selector-rotation";
    }

    @Override
    public String description() {
        return SELECTORS + " leader selectors with autoRequeue(), one session each, takeLeadership returns at once;"
                + " 1 op = one turn (release, requeue, next leader's takeLeadership starts)";
    }

    @Override
    public boolean supports(BenchClient client) {
        return client.hasRecipes();
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        String path = run.basePath() + "/selector";
        Rotation rotation = new Rotation(path);
        run.state(rotation);
        for (int i = 0; i < SELECTORS; i++) {
            BenchClient session = client.another();
            rotation.sessions.add(session);
            session.open(run.connectString(), run.clientConfig());
        }
        for (int i = 0; i < SELECTORS; i++) {
            rotation.selectors.add(rotation.sessions.get(i).startSelector(path, "s" + i, () -> {
                rotation.turnStarts.add(System.nanoTime());
                rotation.permits.acquire();
            }));
        }
        rotation.awaitTurn(client.name()); // the first leader, now waiting for a permit
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (run.admin().children(path).size() < SELECTORS) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(client.name() + ": not all " + SELECTORS + " selectors queued");
            }
            TimeUnit.MILLISECONDS.sleep(1);
        }
        run.awaitQuiet();
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Rotation rotation = run.state(Rotation.class);
        Latencies latencies = run.latencies();
        for (int i = 0; run.more(i); i++) {
            long released = System.nanoTime();
            rotation.permits.release();
            latencies.add(rotation.awaitTurn(client.name()) - released);
        }
        run.awaitQuiet(); // the last turn's leader waits for a permit: nothing more follows
    }

    @Override
    public void tearDown(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Rotation rotation = run.state(Rotation.class);
        if (rotation == null) {
            return;
        }
        rotation.selectors.forEach(BenchClient.Recipe::close);
        // A closed selector that was leading releases its node once its interrupted turn returns, on its own
        // thread; closing its session before that makes the library log the failed release.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!run.admin().children(rotation.path).isEmpty() && System.nanoTime() - deadline < 0) {
            TimeUnit.MILLISECONDS.sleep(1);
        }
        rotation.sessions.forEach(BenchClient::close);
    }
}
