package dev.baton.examples.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.spring.BatonLeadership;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The example's two halves: one instance leads and runs the batch scheduler, the next takes over on shutdown. */
@Timeout(60)
class SchedulerApplicationTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static ConfigurableApplicationContext instance(String id) {
        return new SpringApplicationBuilder(SchedulerApplication.class)
                .properties("baton.connect-string=" + zk.connectString(), "baton.leader.id=" + id).run();
    }

    private static boolean leadsAndSchedules(ConfigurableApplicationContext c) {
        return c.getBean(BatonLeadership.class).isLeader()
                && c.getBean(SchedulerApplication.BatchScheduler.class).isRunning();
    }

    @Test
    void oneInstanceSchedulesAndTheNextTakesOver() {
        try (ConfigurableApplicationContext first = instance("first");
                ConfigurableApplicationContext second = instance("second")) {
            await().atMost(Duration.ofSeconds(20)).until(() -> leadsAndSchedules(first) != leadsAndSchedules(second));
            ConfigurableApplicationContext leader = leadsAndSchedules(first) ? first : second;
            ConfigurableApplicationContext follower = leader == first ? second : first;
            assertThat(follower.getBean(SchedulerApplication.BatchScheduler.class).isRunning()).isFalse();

            leader.close();
            await().atMost(Duration.ofSeconds(20)).until(() -> leadsAndSchedules(follower));
        }
    }
}
