package dev.baton.bench;

/**
 * {@code rwlock}: {@value ContendedScenario#CLIENTS} clients, each with its own session and
 * {@code InterProcessReadWriteLock} on one path, loop: op number {@code i} takes the write lock when
 * {@code i % 10 == 0}, the read lock otherwise (90% reads, the same ops for every library), acquire + release.
 */
final class ReadWriteLockScenario extends ContendedScenario {

    @Override
    public String name() {
        return "rwlock";
    }

    @Override
    public String description() {
        return CLIENTS + " clients, one session and InterProcessReadWriteLock each, one path; 1 op = acquire() +"
                + " release() of the write lock (every 10th op) or the read lock (90%) by any client";
    }

    @Override
    Worker worker(BenchClient session, String path) {
        BenchClient.ReadWriteLock lock = session.readWriteLock(path);
        BenchClient.Lock read = lock.readLock();
        BenchClient.Lock write = lock.writeLock();
        return index -> {
            BenchClient.Lock half = index % 10 == 0 ? write : read;
            half.acquire();
            half.release();
        };
    }
}
