package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The wait-for-a-condition loop of a private monitor, without a server. */
@Timeout(30)
class MonitorTest {
    private final Monitor lock = new Monitor();
    private boolean done; // guarded by lock

    @Test
    void returnsAtOnceWhenTheConditionHolds() throws InterruptedException {
        synchronized (lock) {
            done = true;
            lock.await(() -> done);
            assertThat(lock.await(() -> done, System.nanoTime())).isTrue();
        }
    }

    @Test
    void timesOutWhenTheConditionNeverHolds() throws InterruptedException {
        synchronized (lock) {
            assertThat(lock.await(() -> done, System.nanoTime())).isFalse();
            long start = System.nanoTime();
            assertThat(lock.await(() -> done, start + TimeUnit.MILLISECONDS.toNanos(50))).isFalse();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    @Test
    void wakesOnSignalAndWaitsThroughSignalsThatChangeNothing() throws Exception {
        AtomicInteger checks = new AtomicInteger();
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            synchronized (lock) {
                try {
                    return lock.await(() -> {
                        waiting.countDown();
                        checks.incrementAndGet();
                        return done;
                    }, System.nanoTime() + TimeUnit.SECONDS.toNanos(20));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
        synchronized (lock) {
            lock.signalAll(); // a wake-up with the condition still false: waits on
        }
        synchronized (lock) {
            done = true;
            lock.signalAll();
        }
        assertThat(waiter).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
        assertThat(checks.get()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void anInterruptEndsTheWait() throws Exception {
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            synchronized (lock) {
                try {
                    lock.await(() -> done);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
            }
        });
        waiter.start();
        waiter.interrupt();
        waiter.join(10_000);
        assertThat(interrupted).isTrue();
    }

    @Test
    void requiresTheMonitorHeld() {
        assertThatThrownBy(() -> lock.await(() -> false)).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(lock::signalAll).isInstanceOf(IllegalMonitorStateException.class);
    }
}
