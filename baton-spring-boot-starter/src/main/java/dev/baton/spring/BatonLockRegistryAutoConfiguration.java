package dev.baton.spring;

import dev.baton.BatonClient;
import dev.baton.recipes.locks.InterProcessLock;
import dev.baton.recipes.locks.InterProcessMutex;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.ExpirableLockRegistry;

/**
 * A {@link BatonLockRegistry} when Spring Integration is on the class path, at {@code baton.lock-registry.path}
 * (default {@code /baton/locks}), sweeping locks unused for {@code baton.lock-registry.expire-unused-after}
 * (default 10 minutes). Its locks are metered when {@link BatonMetricsAutoConfiguration} is active.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class,
        afterName = "dev.baton.spring.BatonMetricsAutoConfiguration")
@ConditionalOnClass(ExpirableLockRegistry.class)
@ConditionalOnBean(BatonClient.class)
@EnableConfigurationProperties(BatonProperties.class)
public final class BatonLockRegistryAutoConfiguration {

    /** Made by Spring. */
    public BatonLockRegistryAutoConfiguration() {
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    BatonLockRegistry batonLockRegistry(BatonClient client, BatonProperties properties,
            ObjectProvider<MeteredLocks> metered) {
        MeteredLocks meters = metered.getIfAvailable();
        BatonLockRegistry registry = meters == null
                ? new BatonLockRegistry(client, properties.lockRegistry().path())
                : new BatonLockRegistry(client, properties.lockRegistry().path(), meters::lock);
        registry.expireUnusedAfter(properties.lockRegistry().expireUnusedAfter());
        return registry;
    }

    /** Lets the registry meter its locks without a link to Micrometer: a bean of the metrics configuration. */
    @FunctionalInterface
    interface MeteredLocks {
        InterProcessLock lock(InterProcessMutex mutex);
    }
}
