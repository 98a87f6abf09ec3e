package dev.baton.recipes.leader;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.DriverMain;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A LeaderLatch in its own JVM, for pause (SIGSTOP) tests. Commands: {@code start <connectString> <path> <id>
 * <sessionTimeoutMs>}, {@code leader} (true/false), {@code safe} (safeFor in ms). Events: {@code leader <token>},
 * {@code notleader}, {@code state <ConnectionState>}.
 */
public final class LatchDriver {
    private LatchDriver() {
    }

    /**
     * @param args unused
     */
    public static void main(String[] args) {
        DriverMain driver = DriverMain.create();
        LeaderLatch[] latch = new LeaderLatch[1];
        driver.on("start", a -> {
            BatonClient client = Baton.builder().connectString(a.get(0))
                    .sessionTimeout(Duration.ofMillis(Long.parseLong(a.get(3))))
                    .retryPolicy(new RetryOneTime(10)).ensembleTracker(false).build();
            client.getConnectionStateListenable().addListener((c, s) -> driver.event("state " + s));
            client.start();
            if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not connected");
            }
            latch[0] = new LeaderLatch(client, a.get(1), a.get(2));
            latch[0].addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    driver.event("leader " + latch[0].fencingToken().orElse(-1));
                }

                @Override
                public void notLeader() {
                    driver.event("notleader");
                }
            });
            latch[0].start();
            return "";
        });
        driver.on("leader", a -> Boolean.toString(latch[0].hasLeadership()));
        driver.on("safe", a -> Long.toString(latch[0].safeFor().toMillis()));
        driver.run();
    }
}
