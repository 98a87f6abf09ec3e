package dev.baton.micrometer;

import dev.baton.listen.Listenable;
import dev.baton.recipes.locks.HoldListener;
import dev.baton.recipes.locks.InterProcessLock;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Iterator;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;

/**
 * A lock that records its acquisitions: the time each took and its result, and one long task per acquisition
 * until its release. A release by the thread that acquired ends that thread's latest task; a release from
 * another thread (a semaphore mutex allows it) ends the oldest.
 */
final class MeteredLock implements InterProcessLock {
    private final InterProcessLock lock;
    private final LockMeters meters;
    private final ConcurrentLinkedDeque<Held> held = new ConcurrentLinkedDeque<>();

    private record Held(Thread thread, LongTaskTimer.Sample sample) {
    }

    MeteredLock(InterProcessLock lock, LockMeters meters) {
        this.lock = lock;
        this.meters = meters;
    }

    @Override
    public void acquire() throws KeeperException, InterruptedException {
        long start = System.nanoTime();
        try {
            lock.acquire();
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            record(meters.failed(), start);
            throw e;
        }
        acquired(start);
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws KeeperException, InterruptedException {
        long start = System.nanoTime();
        boolean acquired;
        try {
            acquired = lock.acquire(time, unit);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw e; // bad input: nothing was attempted
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            record(meters.failed(), start);
            throw e;
        }
        if (acquired) {
            acquired(start);
        } else {
            record(meters.timedOut(), start);
        }
        return acquired;
    }

    private void acquired(long start) {
        record(meters.acquired(), start);
        if (!meters.closed().get()) {
            held.add(new Held(Thread.currentThread(), meters.held().start()));
        }
    }

    private void record(Timer timer, long start) {
        if (!meters.closed().get()) {
            timer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void release() {
        lock.release();
        Thread me = Thread.currentThread();
        for (Iterator<Held> it = held.descendingIterator(); it.hasNext(); ) {
            Held h = it.next();
            if (h.thread() == me && held.remove(h)) {
                h.sample().stop();
                return;
            }
        }
        Held oldest = held.pollFirst();
        if (oldest != null) {
            oldest.sample().stop();
        }
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return lock.isAcquiredInThisProcess();
    }

    @Override
    public OptionalLong fencingToken() {
        return lock.fencingToken();
    }

    @Override
    public Duration safeFor() {
        return lock.safeFor();
    }

    @Override
    public Listenable<HoldListener> getHoldListenable() {
        return lock.getHoldListenable();
    }

    @Override
    public String toString() {
        return "metered " + lock;
    }
}
