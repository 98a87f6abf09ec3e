package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.micrometer.BatonMetrics;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.ExpirableLockRegistry;

@Timeout(120)
class BatonAutoConfigurationTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    static final AutoConfigurations ALL = AutoConfigurations.of(BatonAutoConfiguration.class,
            BatonLeadershipAutoConfiguration.class, BatonMetricsAutoConfiguration.class,
            BatonLockRegistryAutoConfiguration.class, BatonHealthAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(ALL);

    private ApplicationContextRunner connected() {
        return runner.withPropertyValues("baton.connect-string=" + zk.connectString(),
                "baton.wait-for-connection=10s", "baton.session-timeout=10s");
    }

    @Test
    void withoutAConnectStringTheStarterDoesNothing() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(BatonClient.class);
            assertThat(context).doesNotHaveBean(BatonLockRegistry.class);
            assertThat(context).doesNotHaveBean(BatonHealthIndicator.class);
        });
    }

    @Test
    void propertiesBindDurationsAuthAndTls() {
        runner.withUserConfiguration(OwnClient.class).withPropertyValues(
                "baton.connect-string=zk1:2181,zk2:2181",
                "baton.session-timeout=30s",
                "baton.connection-timeout=1500ms",
                "baton.namespace=billing",
                "baton.retry.base-sleep=250ms",
                "baton.retry.max-retries=7",
                "baton.retry.max-sleep=5s",
                "baton.auth[0].scheme=digest",
                "baton.auth[0].secret=app:s3cret",
                "baton.auth[1].scheme=ip",
                "baton.auth[1].secret=127.0.0.1",
                "baton.tls.enabled=true",
                "baton.tls.key-store.location=/etc/zk/client.p12",
                "baton.tls.key-store.password=kpass",
                "baton.tls.key-store.type=PKCS12",
                "baton.tls.trust-store.location=/etc/zk/trust.jks",
                "baton.tls.trust-store.password=tpass",
                "baton.tls.trust-store.type=JKS",
                "baton.leader.path=/services/billing/leader",
                "baton.leader.id=host-1",
                "baton.wait-for-connection=20s",
                "baton.lock-registry.path=/billing/locks",
                "baton.lock-registry.expire-unused-after=1m").run(context -> {
                    assertThat(context).hasNotFailed();
                    BatonProperties p = context.getBean(BatonProperties.class);
                    assertThat(p.connectString()).isEqualTo("zk1:2181,zk2:2181");
                    assertThat(p.sessionTimeout()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(p.connectionTimeout()).isEqualTo(Duration.ofMillis(1500));
                    assertThat(p.namespace()).isEqualTo("billing");
                    assertThat(p.retry()).isEqualTo(new BatonProperties.Retry(Duration.ofMillis(250), 7,
                            Duration.ofSeconds(5)));
                    assertThat(p.auth()).containsExactly(new BatonProperties.Auth("digest", "app:s3cret"),
                            new BatonProperties.Auth("ip", "127.0.0.1"));
                    assertThat(p.auth().get(0).toString()).doesNotContain("s3cret");
                    assertThat(p.tls().enabled()).isTrue();
                    assertThat(p.tls().keyStore()).isEqualTo(
                            new BatonProperties.Store("/etc/zk/client.p12", "kpass", "PKCS12"));
                    assertThat(p.tls().trustStore()).isEqualTo(
                            new BatonProperties.Store("/etc/zk/trust.jks", "tpass", "JKS"));
                    assertThat(p.leader()).isEqualTo(new BatonProperties.Leader("/services/billing/leader", "host-1"));
                    assertThat(p.waitForConnection()).isEqualTo(Duration.ofSeconds(20));
                    assertThat(p.lockRegistry()).isEqualTo(new BatonProperties.LockRegistry("/billing/locks",
                            Duration.ofMinutes(1)));

                    ZKClientConfig tls = BatonAutoConfiguration.tlsConfig(p.tls());
                    assertThat(tls.getProperty("zookeeper.client.secure")).isEqualTo("true");
                    assertThat(tls.getProperty("zookeeper.clientCnxnSocket"))
                            .isEqualTo("org.apache.zookeeper.ClientCnxnSocketNetty");
                    assertThat(tls.getProperty("zookeeper.ssl.keyStore.location")).isEqualTo("/etc/zk/client.p12");
                    assertThat(tls.getProperty("zookeeper.ssl.keyStore.password")).isEqualTo("kpass");
                    assertThat(tls.getProperty("zookeeper.ssl.keyStore.type")).isEqualTo("PKCS12");
                    assertThat(tls.getProperty("zookeeper.ssl.trustStore.location")).isEqualTo("/etc/zk/trust.jks");
                    assertThat(tls.getProperty("zookeeper.ssl.trustStore.password")).isEqualTo("tpass");
                    assertThat(tls.getProperty("zookeeper.ssl.trustStore.type")).isEqualTo("JKS");
                });
    }

    @Test
    void defaultsBind() {
        runner.withUserConfiguration(OwnClient.class).withPropertyValues("baton.connect-string=zk:2181")
                .run(context -> {
                    BatonProperties p = context.getBean(BatonProperties.class);
                    assertThat(p.sessionTimeout()).isEqualTo(Baton.DEFAULT_SESSION_TIMEOUT);
                    assertThat(p.connectionTimeout()).isEqualTo(Baton.DEFAULT_CONNECTION_TIMEOUT);
                    assertThat(p.retry()).isEqualTo(new BatonProperties.Retry(Duration.ofSeconds(1), 3, null));
                    assertThat(p.auth()).isEmpty();
                    assertThat(p.tls().enabled()).isFalse();
                    assertThat(p.waitForConnection()).isNull();
                    assertThat(p.lockRegistry().path()).isEqualTo("/baton/locks");
                    assertThat(context).doesNotHaveBean(BatonLeadership.class);
                });
    }

    @Test
    void theClientIsStartedWithTheContextAndClosedWithIt() {
        AtomicReference<BatonClient> seen = new AtomicReference<>();
        connected().withPropertyValues("baton.namespace=starter").run(context -> {
            assertThat(context).hasNotFailed();
            BatonClient client = context.getBean(BatonClient.class);
            seen.set(client);
            assertThat(client.getState()).isEqualTo(BatonClient.State.STARTED);
            assertThat(client.isConnected()).isTrue();
            assertThat(client.getNamespace()).isEqualTo("starter");
            client.create().orSetData().forPath("/started", new byte[0]);
        });
        assertThat(seen.get().getState()).isEqualTo(BatonClient.State.CLOSED);
    }

    @Test
    void digestAuthFromPropertiesIsSentOnTheSession() throws Exception {
        connected().withPropertyValues("baton.auth[0].scheme=digest", "baton.auth[0].secret=app:s3cret")
                .run(context -> {
                    BatonClient client = context.getBean(BatonClient.class);
                    client.create().withACL(ZooDefs.Ids.CREATOR_ALL_ACL).forPath("/secret-auth",
                            "x".getBytes(StandardCharsets.UTF_8));
                    assertThat(client.getData().forPath("/secret-auth")).containsExactly('x');
                    try (BatonClient stranger = Baton.newClient(zk.connectString(), new RetryOneTime(10))) {
                        stranger.start();
                        assertThatThrownBy(() -> stranger.getData().forPath("/secret-auth"))
                                .isInstanceOf(KeeperException.NoAuthException.class);
                    }
                    client.delete().forPath("/secret-auth");
                });
    }

    @Test
    void customizersAdjustTheBuilder() {
        connected().withBean(BatonBuilderCustomizer.class, () -> builder -> builder.namespace("customized"))
                .run(context -> assertThat(context.getBean(BatonClient.class).getNamespace())
                        .isEqualTo("customized"));
    }

    @Test
    void aCustomizerThatSetsAnOptionTheStarterSetFailsTheContextClearly() {
        connected().withBean(BatonBuilderCustomizer.class, () -> builder -> builder.retryPolicy(new RetryOneTime(1)))
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("retryPolicy"));
    }

    @Test
    void theApplicationsOwnBeansWin() {
        connected().withUserConfiguration(OwnClient.class, OwnRegistry.class).run(context -> {
            assertThat(context).hasSingleBean(BatonClient.class);
            assertThat(context.getBean(BatonClient.class)).isSameAs(context.getBean(OwnClient.class).client);
            assertThat(context.getBean(BatonLockRegistry.class).getPath()).isEqualTo("/own/locks");
        });
    }

    @Test
    void startUpFailsClearlyWhenZooKeeperIsNotThere() {
        runner.withPropertyValues("baton.connect-string=127.0.0.1:1", "baton.wait-for-connection=300ms")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .hasMessageContaining("could not connect to ZooKeeper at 127.0.0.1:1 within PT0.3S");
                });
    }

    @Test
    void everyOptionalFeatureIsOnWhenItsLibraryIsThere() {
        connected().withBean(SimpleMeterRegistry.class).run(context -> {
            assertThat(context).hasSingleBean(BatonLockRegistry.class);
            assertThat(context).hasSingleBean(BatonHealthIndicator.class);
            assertThat(context).hasSingleBean(BatonMetrics.class);
            assertThat(context).hasBean("batonHealthIndicator");
        });
    }

    @Test
    void missingOptionalLibrariesSwitchTheirFeaturesOff() {
        connected().withBean(SimpleMeterRegistry.class)
                .withClassLoader(new FilteredClassLoader(ExpirableLockRegistry.class, HealthIndicator.class,
                        BatonMetrics.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(BatonClient.class);
                    assertThat(context).doesNotHaveBean(BatonLockRegistry.class);
                    assertThat(context).doesNotHaveBean(BatonHealthIndicator.class);
                    assertThat(context).doesNotHaveBean(BatonMetrics.class);
                });
        connected().run(context -> assertThat(context).as("no MeterRegistry, no metrics")
                .doesNotHaveBean(BatonMetrics.class));
        connected().withPropertyValues("management.health.baton.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(BatonHealthIndicator.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        final BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10));

        @Bean(destroyMethod = "close")
        BatonClient myClient() {
            client.start(); // an application's own client is started by the application
            return client;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistry {
        @Bean
        BatonLockRegistry myRegistry(BatonClient client) {
            return new BatonLockRegistry(client, "/own/locks");
        }
    }
}
