package dev.baton.examples.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.micrometer.BatonMetrics;
import dev.baton.spring.BatonLeadership;
import dev.baton.spring.BatonLockRegistry;
import dev.baton.spring.LeaderOnly;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** The starter jar (built for Boot 4) in a Boot 3.5 application context: what works, and what backs off. */
@Timeout(120)
class Boot3CompatibilityTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void everythingButTheHealthIndicatorWorksOnBoot35() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        // As an application sees the starter: through its auto-configuration imports, with Boot 3.5's own.
        new ApplicationContextRunner()
                .withUserConfiguration(App.class)
                .withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.wait-for-connection=10s",
                        "baton.leader.path=/boot3/leader", "baton.session-timeout=10s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BatonClient client = context.getBean(BatonClient.class);
                    assertThat(client.isConnected()).isTrue();
                    BatonLeadership leadership = context.getBean(BatonLeadership.class);
                    await().until(leadership::isLeader);
                    Job job = context.getBean(Job.class);
                    await().until(() -> job.runs() > 3);

                    Lock lock = context.getBean(BatonLockRegistry.class).obtain("k");
                    assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
                    lock.unlock();

                    assertThat(context).hasSingleBean(BatonMetrics.class);
                    assertThat(context).hasSingleBean(BatonLockRegistry.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("baton.leader").tag("path", "/boot3/leader").gauge().value())
                            .isEqualTo(1);
                    assertThat(registry.get("baton.lock.acquire").tag("result", "acquired").timer().count())
                            .isEqualTo(1);
                    assertThat(context).as("Boot 3.5 has no org.springframework.boot.health.contributor")
                            .doesNotHaveBean("batonHealthIndicator");
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class App {
        @Bean
        Job job() {
            return new Job();
        }
    }

    static class Job {
        private final AtomicInteger runs = new AtomicInteger();

        @LeaderOnly
        @Scheduled(fixedDelay = 20)
        public void run() {
            runs.incrementAndGet();
        }

        public int runs() {
            return runs.get();
        }
    }
}
