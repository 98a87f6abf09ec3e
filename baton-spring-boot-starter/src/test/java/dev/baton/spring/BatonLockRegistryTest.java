package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@Timeout(120)
class BatonLockRegistryTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private final ApplicationContextRunner instance = new ApplicationContextRunner()
            .withConfiguration(BatonAutoConfigurationTest.ALL)
            .withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.wait-for-connection=10s",
                    "baton.lock-registry.path=/spring/locks");

    @Test
    void locksOfOneKeyExcludeEachOtherAcrossTwoContexts() {
        instance.run(a -> instance.run(b -> {
            List<BatonLockRegistry> registries = List.of(a.getBean(BatonLockRegistry.class),
                    b.getBean(BatonLockRegistry.class));
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> workers = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    BatonLockRegistry registry = registries.get(w % 2);
                    workers.add(pool.submit(() -> {
                        for (int i = 0; i < 10; i++) {
                            Lock lock = registry.obtain("invoice-42");
                            lock.lock();
                            try {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                Thread.yield();
                                done.incrementAndGet();
                                inside.decrementAndGet();
                            } finally {
                                lock.unlock();
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> worker : workers) {
                    worker.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(done).hasValue(40);
            assertThat(overlaps).hasValue(0);

            Lock held = registries.get(0).obtain("invoice-42");
            held.lock();
            try {
                assertThat(registries.get(1).obtain("invoice-42").tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
            } finally {
                held.unlock();
            }
            assertThat(registries.get(1).obtain("invoice-42").tryLock()).isTrue();
            registries.get(1).obtain("invoice-42").unlock();
            assertThat(a.getBean(BatonClient.class).getChildren().forPath("/spring/locks/invoice-42"))
                    .as("no node left behind").isEmpty();
        }));
    }

    @Test
    void unusedLocksExpireAndHeldOnesDoNot() throws Exception {
        instance.run(context -> {
            BatonLockRegistry registry = context.getBean(BatonLockRegistry.class);
            Lock idle = registry.obtain("idle");
            Lock busy = registry.obtain("busy");
            busy.lock();
            try {
                registry.expireUnusedOlderThan(0);
                assertThat(registry.size()).isEqualTo(1);
                assertThat(registry.obtain("busy")).isSameAs(busy);
                assertThat(registry.obtain("idle")).isNotSameAs(idle);
            } finally {
                busy.unlock();
            }
            registry.expireUnusedOlderThan(0);
            assertThat(registry.size()).isZero();
            assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("String");
            assertThatThrownBy(() -> registry.obtain("bad//key")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> busy.newCondition()).isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(busy::unlock).isInstanceOf(IllegalMonitorStateException.class);
        });
    }

    @Test
    void theSweepDropsUnusedLocksByItself() {
        instance.withPropertyValues("baton.lock-registry.expire-unused-after=200ms").run(context -> {
            BatonLockRegistry registry = context.getBean(BatonLockRegistry.class);
            Lock lock = registry.obtain("swept");
            lock.lock();
            lock.unlock();
            assertThat(registry.size()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> registry.size() == 0);
        });
    }
}
