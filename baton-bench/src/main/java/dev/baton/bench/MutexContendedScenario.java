package dev.baton.bench;

/**
 * {@code mutex-8}: {@value ContendedScenario#CLIENTS} clients, each with its own session and
 * {@code InterProcessMutex} on one path, loop {@code acquire()} + {@code release()} (nothing done while held).
 * One op = one acquire + release by any client; ops/s is the total.
 */
final class MutexContendedScenario extends ContendedScenario {

    @Override
    public String name() {
        return "mutex-8";
    }

    @Override
    public String description() {
        return CLIENTS + " clients, one session and InterProcessMutex each, one path; 1 op = acquire() + release()"
                + " by any client (ops/s = total; latency includes the wait)";
    }

    @Override
    Worker worker(BenchClient session, String path) {
        BenchClient.Lock lock = session.mutex(path);
        return index -> {
            lock.acquire();
            lock.release();
        };
    }
}
