package dev.baton.recipes.locks;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.listen.Listenable;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.DriverMain;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A lock-like recipe in its own JVM, for pause (SIGSTOP) tests. Commands: {@code start <connectString> <recipe>
 * <path> <sessionTimeoutMs>}, where {@code recipe} is {@code mutex}, {@code write} or {@code read} (the halves of
 * an {@link InterProcessReadWriteLock}) or {@code semaphore:<maxLeases>}; {@code acquire} (waits, then answers the
 * fencing token); {@code held} (whether this process believes it holds); {@code safe} (how long it may still act,
 * in ms); {@code token} (the hold's token, or -1 when not held). Events: {@code hold <HoldState>}.
 */
public final class LockDriver {

    /** The recipe under test; every call comes from the driver's one command thread. */
    private interface Held {
        long acquire() throws Exception;

        boolean held();

        Duration safeFor();

        long token();

        Listenable<HoldListener> holdListenable();
    }

    private LockDriver() {
    }

    /**
     * @param args unused
     */
    public static void main(String[] args) {
        DriverMain driver = DriverMain.create();
        Held[] held = new Held[1];
        driver.on("start", a -> {
            BatonClient client = Baton.builder().connectString(a.get(0))
                    .sessionTimeout(Duration.ofMillis(Long.parseLong(a.get(3))))
                    .retryPolicy(new RetryOneTime(10)).ensembleTracker(false).build();
            client.start();
            if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not connected");
            }
            held[0] = recipe(client, a.get(1), a.get(2));
            held[0].holdListenable().addListener((hold, state) -> driver.event("hold " + state));
            return "";
        });
        driver.on("acquire", a -> Long.toString(held[0].acquire()));
        driver.on("held", a -> Boolean.toString(held[0].held()));
        driver.on("safe", a -> Long.toString(held[0].safeFor().toMillis()));
        driver.on("token", a -> Long.toString(held[0].token()));
        driver.run();
    }

    private static Held recipe(BatonClient client, String kind, String path) {
        return switch (kind) {
            case "mutex" -> lock(new InterProcessMutex(client, path));
            case "write" -> lock(new InterProcessReadWriteLock(client, path).writeLock());
            case "read" -> lock(new InterProcessReadWriteLock(client, path).readLock());
            default -> {
                if (!kind.startsWith("semaphore:")) {
                    throw new IllegalArgumentException("unknown recipe " + kind);
                }
                int maxLeases = Integer.parseInt(kind.substring("semaphore:".length()));
                yield semaphore(new InterProcessSemaphoreV2(client, path, maxLeases));
            }
        };
    }

    /** A blocking, thread-owned hold: acquire and the queries share the command thread. */
    private static Held lock(InterProcessMutex lock) {
        return new Held() {
            @Override
            public long acquire() throws Exception {
                lock.acquire();
                return lock.fencingToken().getAsLong();
            }

            @Override
            public boolean held() {
                return lock.isAcquiredInThisProcess();
            }

            @Override
            public Duration safeFor() {
                return lock.safeFor();
            }

            @Override
            public long token() {
                return lock.fencingToken().orElse(-1);
            }

            @Override
            public Listenable<HoldListener> holdListenable() {
                return lock.getHoldListenable();
            }
        };
    }

    /** One lease at a time. */
    private static Held semaphore(InterProcessSemaphoreV2 semaphore) {
        return new Held() {
            private Lease lease;

            @Override
            public long acquire() throws Exception {
                lease = semaphore.acquire();
                return lease.fencingToken().getAsLong();
            }

            @Override
            public boolean held() {
                return lease != null && lease.isHeld();
            }

            @Override
            public Duration safeFor() {
                return lease == null ? Duration.ZERO : lease.safeFor();
            }

            @Override
            public long token() {
                return lease == null ? -1 : lease.fencingToken().orElse(-1);
            }

            @Override
            public Listenable<HoldListener> holdListenable() {
                return semaphore.getHoldListenable();
            }
        };
    }
}
