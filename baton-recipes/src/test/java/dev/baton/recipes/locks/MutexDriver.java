package dev.baton.recipes.locks;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.DriverMain;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * An InterProcessMutex in its own JVM, for pause (SIGSTOP) tests. Commands: {@code start <connectString> <path>
 * <sessionTimeoutMs>}, {@code acquire} (answers the fencing token), {@code held} (isAcquiredInThisProcess),
 * {@code safe} (safeFor in ms), {@code token} (the hold's token, or -1). Events: {@code hold <HoldState>}.
 */
public final class MutexDriver {
    private MutexDriver() {
    }

    /**
     * @param args unused
     */
    public static void main(String[] args) {
        DriverMain driver = DriverMain.create();
        InterProcessMutex[] lock = new InterProcessMutex[1];
        driver.on("start", a -> {
            BatonClient client = Baton.builder().connectString(a.get(0))
                    .sessionTimeout(Duration.ofMillis(Long.parseLong(a.get(2))))
                    .retryPolicy(new RetryOneTime(10)).ensembleTracker(false).build();
            client.start();
            if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not connected");
            }
            lock[0] = new InterProcessMutex(client, a.get(1));
            lock[0].getHoldListenable().addListener((hold, state) -> driver.event("hold " + state));
            return "";
        });
        // Commands run on the driver's one command thread, so acquire and the queries share an owner thread.
        driver.on("acquire", a -> {
            lock[0].acquire();
            return Long.toString(lock[0].fencingToken().getAsLong());
        });
        driver.on("held", a -> Boolean.toString(lock[0].isAcquiredInThisProcess()));
        driver.on("safe", a -> Long.toString(lock[0].safeFor().toMillis()));
        driver.on("token", a -> Long.toString(lock[0].fencingToken().orElse(-1)));
        driver.run();
    }
}
