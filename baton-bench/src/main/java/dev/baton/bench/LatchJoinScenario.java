package dev.baton.bench;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * {@code latch-join}: one client starts a leader latch on an election path that exists and has no other
 * participant, and waits for its {@code isLeader()}; then it closes the latch. One op = that start and close; its
 * latency runs from {@code start()} to {@code isLeader()} (the close is in ops/s, not in the latency). A new latch
 * object per op, as a service that joins an election once per start would have.
 */
final class LatchJoinScenario implements Scenario {

    private static final long WAIT_SECONDS = 30;

    @Override
    public String name() {
        return "latch-join";
    }

    @Override
    public String description() {
        return "1 client, a new LeaderLatch on an existing path with no other participant; 1 op = start(), wait for"
                + " isLeader() (p50/p99 = start() to isLeader()), close()";
    }

    @Override
    public boolean supports(BenchClient client) {
        return client.hasRecipes();
    }

    static String latchPath(RunContext run) {
        return run.basePath() + "/latch";
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        run.admin().ensurePath(latchPath(run));
        run.awaitQuiet();
    }

    @Override
    public void run(BenchClient client, RunContext run) throws InterruptedException {
        Semaphore led = new Semaphore(0);
        for (int i = 0; run.more(i); i++) {
            long start = System.nanoTime();
            BenchClient.Recipe latch = client.startLatch(latchPath(run), "join-" + i, led::release);
            try {
                if (!led.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(client.name() + ": latch " + i + " did not lead after "
                            + WAIT_SECONDS + " s");
                }
                run.latencies().add(System.nanoTime() - start);
            } finally {
                latch.close();
            }
        }
    }
}
