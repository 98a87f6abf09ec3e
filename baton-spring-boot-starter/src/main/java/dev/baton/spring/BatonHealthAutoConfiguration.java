package dev.baton.spring;

import dev.baton.BatonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code baton} health indicator when Spring Boot's health support (Actuator) is on the class path;
 * {@code management.health.baton.enabled=false} turns it off.
 */
@AutoConfiguration(after = {BatonAutoConfiguration.class, BatonLeadershipAutoConfiguration.class})
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(BatonClient.class)
@ConditionalOnEnabledHealthIndicator("baton")
@EnableConfigurationProperties(BatonProperties.class)
public final class BatonHealthAutoConfiguration {

    /** Made by Spring. */
    public BatonHealthAutoConfiguration() {
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(name = "batonHealthIndicator")
    BatonHealthIndicator batonHealthIndicator(BatonClient client, BatonProperties properties,
            ObjectProvider<BatonLeadership> leadership) {
        BatonLeadership leader = leadership.getIfAvailable();
        String connectString = properties.connectString() != null ? properties.connectString() : "(user-defined)";
        return new BatonHealthIndicator(client, connectString, properties.connectionTimeout(),
                leader == null ? null : leader::isLeader);
    }
}
