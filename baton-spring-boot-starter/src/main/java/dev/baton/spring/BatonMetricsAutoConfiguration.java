package dev.baton.spring;

import dev.baton.BatonClient;
import dev.baton.micrometer.BatonMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Binds {@link BatonMetrics} (SPEC's {@code baton.*} meters) to the application's {@link MeterRegistry} when
 * {@code baton-micrometer} and a registry are there (Actuator brings one), with the leadership gauge when
 * leader-gating is on and metered locks in the lock registry.
 */
@AutoConfiguration(after = {BatonAutoConfiguration.class, BatonLeadershipAutoConfiguration.class},
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass({BatonMetrics.class, MeterRegistry.class})
@ConditionalOnBean({BatonClient.class, MeterRegistry.class})
public final class BatonMetricsAutoConfiguration {

    /** Made by Spring. */
    public BatonMetricsAutoConfiguration() {
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    BatonMetrics batonMetrics(BatonClient client, MeterRegistry registry,
            ObjectProvider<BatonLeadership> leadership) {
        BatonMetrics metrics = BatonMetrics.monitor(client, registry);
        BatonLeadership leader = leadership.getIfAvailable();
        if (leader != null) {
            metrics.leader(leader.getPath(), leader::isLeader);
        }
        return metrics;
    }

    @Bean
    @ConditionalOnMissingBean
    BatonLockRegistryAutoConfiguration.MeteredLocks batonMeteredLocks(BatonMetrics metrics) {
        return metrics::lock;
    }
}
