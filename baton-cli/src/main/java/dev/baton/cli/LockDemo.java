package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.recipes.locks.HoldState;
import dev.baton.recipes.locks.InterProcessMutex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code baton demo lock}: three workers increment a shared in-memory counter guarded by an
 * {@link InterProcessMutex} and its fencing token; then a holder's session is expired while it "pauses", another
 * worker takes the lock, and the paused worker's late write is refused by the counter because its token is old.
 */
final class LockDemo implements Demo {

    static final String PATH = "/demo-lock";
    private static final String[] WORKERS = {"alice", "bob", "carol"};
    private static final int ROUNDS = 2;
    private static final Duration STEP = Duration.ofMillis(300);

    /** The protected resource: remembers the highest token it has seen and refuses older ones. */
    static final class FencedCounter {
        private long highestToken = Long.MIN_VALUE;
        private int value;

        synchronized int read() {
            return value;
        }

        synchronized boolean write(long token, int newValue) {
            if (token < highestToken) {
                return false;
            }
            highestToken = token;
            value = newValue;
            return true;
        }
    }

    @Override
    public String name() {
        return "lock";
    }

    @Override
    public List<String> aliases() {
        return List.of("mutex", "InterProcessMutex");
    }

    @Override
    public String description() {
        return "workers increment a counter under a mutex and its fencing token; a stale holder is refused";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        FencedCounter counter = new FencedCounter();
        List<InterProcessMutex> locks = new ArrayList<>();
        List<BatonClient> clients = new ArrayList<>();
        Recorder<HoldState> aliceStates = new Recorder<>();
        for (String worker : WORKERS) {
            BatonClient client = ctx.connect();
            clients.add(client);
            InterProcessMutex lock = new InterProcessMutex(client, PATH);
            lock.getHoldListenable().addListener((hold, state) -> {
                ctx.log("hold", "%s: %s (token %d)", worker, state, hold.fencingToken());
                if (worker.equals(WORKERS[0])) {
                    aliceStates.record(state);
                }
            });
            locks.add(lock);
        }
        ctx.claim(clients.get(1), PATH); // bob's client: alice's session is ended below
        ctx.log("lock", "%d workers, %d rounds each, counter guarded by %s", WORKERS.length, ROUNDS, PATH);

        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int w = 0; w < WORKERS.length; w++) {
            String worker = WORKERS[w];
            InterProcessMutex lock = locks.get(w);
            runs.add(CompletableFuture.runAsync(() -> {
                try {
                    for (int i = 0; i < ROUNDS; i++) {
                        ctx.log("wait", "%s wants the lock", worker);
                        lock.acquire();
                        try {
                            long token = lock.fencingToken().getAsLong();
                            int read = counter.read();
                            ctx.log("acquire", "%s holds the lock (token %d), reads %d", worker, token, read);
                            ctx.pause(STEP);
                            boolean ok = counter.write(token, read + 1);
                            ctx.log("write", "%s writes %d with token %d: %s", worker, read + 1, token,
                                    ok ? "accepted" : "REFUSED");
                        } finally {
                            lock.release();
                        }
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        ctx.log("counter", "%d after %d increments: no update lost", counter.read(), WORKERS.length * ROUNDS);

        // The stale holder: alice holds, pauses, and her session ends meanwhile.
        InterProcessMutex alice = locks.get(0);
        InterProcessMutex bob = locks.get(1);
        alice.acquire();
        long staleToken = alice.fencingToken().getAsLong();
        int read = counter.read();
        ctx.log("acquire", "alice holds the lock (token %d), reads %d, then pauses (a long GC, say)", staleToken,
                read);
        ctx.expireSession(clients.get(0));
        ctx.log("expire", "the server ends alice's session while she is paused");
        bob.acquire();
        long bobToken = bob.fencingToken().getAsLong();
        ctx.log("acquire", "bob holds the lock (token %d), reads %d", bobToken, counter.read());
        boolean bobOk = counter.write(bobToken, counter.read() + 1);
        ctx.log("write", "bob writes %d with token %d: %s", counter.read(), bobToken, bobOk ? "accepted" : "REFUSED");
        bob.release();
        boolean aliceOk = counter.write(staleToken, read + 1);
        ctx.log("write", "alice wakes and writes %d with token %d: %s", read + 1, staleToken,
                aliceOk ? "accepted" : "REFUSED (stale token: another holder came after her)");
        aliceStates.await(0, state -> state == HoldState.LOST, DemoContext.AWAIT_TIMEOUT, "alice told LOST");
        ctx.log("hold", "alice's lock after LOST: acquired in this process = %s", alice.isAcquiredInThisProcess());
        alice.release();
        ctx.log("counter", "%d", counter.read());
        if (aliceOk || !bobOk || alice.isAcquiredInThisProcess()) {
            throw new DemoException("the stale holder was not refused");
        }
    }
}
