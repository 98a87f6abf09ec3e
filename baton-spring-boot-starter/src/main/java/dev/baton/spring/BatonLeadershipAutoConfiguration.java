package dev.baton.spring;

import dev.baton.BatonClient;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Objects;
import java.util.UUID;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * Leader-gating: with {@code baton.leader.path} set, a {@link BatonLeadership} bean; and, whenever a client is
 * configured, the processing of {@link LeaderOnly} (which fails the start-up if the path is missing, rather than
 * running gated work on every instance).
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnBean(BatonClient.class)
@EnableConfigurationProperties(BatonProperties.class)
public final class BatonLeadershipAutoConfiguration {

    /** Made by Spring. */
    public BatonLeadershipAutoConfiguration() {
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LeaderOnlyBeanPostProcessor batonLeaderOnlyBeanPostProcessor() {
        return new LeaderOnlyBeanPostProcessor();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "baton.leader", name = "path")
    BatonLeadership batonLeadership(BatonClient client, BatonProperties properties,
            ApplicationEventPublisher publisher, ListableBeanFactory beans) {
        String id = properties.leader().id();
        String path = Objects.requireNonNull(properties.leader().path(),
                "baton.leader.path (the leadership bean is made only when it is set)");
        return new BatonLeadership(client, path,
                id == null || id.isEmpty() ? defaultId() : id, publisher, beans);
    }

    /** The host name and a random suffix, so two instances on one host differ. */
    static String defaultId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException | RuntimeException e) {
            host = "localhost";
        }
        return host + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
