package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Two application contexts on one leader path, as two instances of a service would be. */
@Timeout(120)
class LeadershipTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);
    private static final Duration TAKEOVER = SESSION_TIMEOUT.plusSeconds(2);

    private ApplicationContextRunner instance(String id, String path) {
        return new ApplicationContextRunner().withConfiguration(BatonAutoConfigurationTest.ALL)
                .withUserConfiguration(LeaderGatedWork.class)
                .withPropertyValues("baton.connect-string=" + zk.connectString(),
                        "baton.session-timeout=" + SESSION_TIMEOUT.toMillis() + "ms",
                        "baton.connection-timeout=1s", "baton.wait-for-connection=10s",
                        "baton.leader.path=" + path, "baton.leader.id=" + id);
    }

    private static LeaderGatedWork.Job job(AssertableApplicationContext c) {
        return c.getBean(LeaderGatedWork.Job.class);
    }

    private static LeaderGatedWork.Worker worker(AssertableApplicationContext c) {
        return c.getBean(LeaderGatedWork.Worker.class);
    }

    private static LeaderGatedWork.Events events(AssertableApplicationContext c) {
        return c.getBean(LeaderGatedWork.Events.class);
    }

    private static boolean leads(AssertableApplicationContext c) {
        return c.getBean(BatonLeadership.class).isLeader();
    }

    @Test
    void oneRunsTheJobAndTheOtherTakesOverWhenTheLeadersSessionExpires() {
        instance("a", "/spring/expiry").run(a -> {
            assertThat(a).hasNotFailed();
            await().until(() -> leads(a) && worker(a).isRunning());
            instance("b", "/spring/expiry").run(b -> {
                assertThat(b).hasNotFailed();
                assertOnlyFirstWorks(a, b);

                long grantedToA = ((LeadershipGrantedEvent) events(a).seen.get(0)).fencingToken();
                assertThat(a.getBean(BatonLeadership.class).fencingToken()).hasValue(grantedToA);
                long expiredAt = System.nanoTime();
                zk.server().expireSession(a.getBean(BatonClient.class).getZooKeeper());

                await().atMost(TAKEOVER).until(() -> leads(b) && worker(b).isRunning());
                assertThat(Duration.ofNanos(System.nanoTime() - expiredAt)).isLessThan(TAKEOVER);
                await().until(() -> !worker(a).isRunning());
                assertOnlyFirstWorks(b, a);

                assertThat(events(a).seen).startsWith(new LeadershipGrantedEvent("/spring/expiry", "a", grantedToA),
                        new LeadershipRevokedEvent("/spring/expiry", "a", grantedToA));
                await().until(() -> !events(b).seen.isEmpty());
                LeadershipGrantedEvent toB = (LeadershipGrantedEvent) events(b).seen.get(0);
                assertThat(toB.id()).isEqualTo("b");
                assertThat(toB.fencingToken()).isGreaterThan(grantedToA);
            });
        });
    }

    @Test
    void closingTheLeadersContextHandsOverAndStopsItsWorkFirst() {
        instance("a", "/spring/close").run(a -> {
            await().until(() -> leads(a));
            instance("b", "/spring/close").run(b -> {
                assertOnlyFirstWorks(a, b);
                LeaderGatedWork.Worker workerOfA = worker(a);
                LeaderGatedWork.Events eventsOfA = events(a);
                BatonClient clientOfA = a.getBean(BatonClient.class);

                long closedAt = System.nanoTime();
                a.close();
                assertThat(workerOfA.isRunning()).isFalse();
                assertThat(eventsOfA.seen).last().isInstanceOf(LeadershipRevokedEvent.class);
                assertThat(clientOfA.getState()).isEqualTo(BatonClient.State.CLOSED);

                await().atMost(TAKEOVER).until(() -> leads(b) && worker(b).isRunning());
                assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isLessThan(TAKEOVER);
                int runs = job(b).runs();
                await().until(() -> job(b).runs() > runs + 3);
            });
        });
    }

    @Test
    void leaderOnlyWithoutALeaderPathFailsStartUp() {
        new ApplicationContextRunner().withConfiguration(BatonAutoConfigurationTest.ALL)
                .withUserConfiguration(LeaderGatedWork.class)
                .withPropertyValues("baton.connect-string=" + zk.connectString())
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasMessageContaining("baton.leader.path");
                });
    }

    @Test
    void aGatedLifecycleBeanDoesNotStartWithTheContext() {
        new ApplicationContextRunner().withConfiguration(BatonAutoConfigurationTest.ALL)
                .withUserConfiguration(GatedOnly.class)
                .withPropertyValues("baton.connect-string=127.0.0.1:1", "baton.leader.path=/never")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LeaderGatedWork.Worker worker = context.getBean(LeaderGatedWork.Worker.class);
                    assertThat(worker.isAutoStartup()).isFalse();
                    worker.start();
                    assertThat(worker.starts()).as("start() outside leadership is refused").isZero();
                });
    }

    /** The leader runs the job and the worker; the follower runs neither, over several runs of the job. */
    private static void assertOnlyFirstWorks(AssertableApplicationContext leader, AssertableApplicationContext other) {
        await().until(() -> leads(leader) && worker(leader).isRunning());
        await().until(() -> !worker(other).isRunning());
        int otherRuns = job(other).runs();
        int leaderRuns = job(leader).runs();
        await().until(() -> job(leader).runs() >= leaderRuns + 5);
        assertThat(job(other).runs()).as("the follower skipped its runs").isEqualTo(otherRuns);
        assertThat(leads(other)).isFalse();
        assertThat(worker(other).isRunning()).isFalse();
    }

    @Configuration(proxyBeanMethods = false)
    static class GatedOnly {
        @Bean
        SmartLifecycle worker() {
            return new LeaderGatedWork.Worker();
        }
    }
}
