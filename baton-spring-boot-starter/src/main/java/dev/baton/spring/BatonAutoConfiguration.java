package dev.baton.spring;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.ExponentialBackoffRetry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@link BatonClient} bean, made from the {@code baton.*} properties once {@code baton.connect-string} is
 * set, started with the context and closed with it. An application's own {@code BatonClient} bean wins (it then
 * starts and closes its client itself).
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "baton", name = "connect-string")
@EnableConfigurationProperties(BatonProperties.class)
public final class BatonAutoConfiguration {

    /** Made by Spring. */
    public BatonAutoConfiguration() {
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    BatonClient batonClient(BatonProperties properties, ObjectProvider<BatonBuilderCustomizer> customizers)
            throws InterruptedException {
        Baton.Builder builder = builder(properties);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        BatonClient client = builder.build();
        client.start();
        Duration wait = properties.waitForConnection();
        if (wait != null && !wait.isZero()) {
            boolean connected;
            try {
                connected = client.blockUntilConnected(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException | RuntimeException e) {
                client.close();
                throw e;
            }
            if (!connected) {
                client.close();
                throw new IllegalStateException("Baton could not connect to ZooKeeper at "
                        + properties.connectString() + " within " + wait + " (baton.wait-for-connection); is "
                        + "baton.connect-string right and is the ensemble up?");
            }
        }
        return client;
    }

    /** The builder for the properties, with no customizer applied yet. */
    static Baton.Builder builder(BatonProperties properties) {
        BatonProperties.Retry retry = properties.retry();
        int baseMs = Math.toIntExact(retry.baseSleep().toMillis());
        ExponentialBackoffRetry policy = retry.maxSleep() == null
                ? new ExponentialBackoffRetry(baseMs, retry.maxRetries())
                : new ExponentialBackoffRetry(baseMs, retry.maxRetries(),
                        Math.toIntExact(retry.maxSleep().toMillis()));
        Baton.Builder builder = Baton.builder()
                .connectString(Objects.requireNonNull(properties.connectString(),
                        "baton.connect-string (the client bean is made only when it is set)"))
                .sessionTimeout(properties.sessionTimeout())
                .connectionTimeout(properties.connectionTimeout())
                .retryPolicy(policy);
        if (properties.namespace() != null && !properties.namespace().isEmpty()) {
            builder.namespace(properties.namespace());
        }
        for (BatonProperties.Auth auth : properties.auth()) {
            builder.authorization(auth.scheme(), auth.secret().getBytes(StandardCharsets.UTF_8));
        }
        if (properties.tls().enabled()) {
            builder.zkClientConfig(tlsConfig(properties.tls()));
        }
        return builder;
    }

    /** ZooKeeper's client settings for TLS through its Netty socket. */
    static ZKClientConfig tlsConfig(BatonProperties.Tls tls) {
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        try (ClientX509Util x509 = new ClientX509Util()) {
            BatonProperties.Store key = tls.keyStore();
            set(config, x509.getSslKeystoreLocationProperty(), key.location());
            set(config, x509.getSslKeystorePasswdProperty(), key.password());
            set(config, x509.getSslKeystoreTypeProperty(), key.type());
            BatonProperties.Store trust = tls.trustStore();
            set(config, x509.getSslTruststoreLocationProperty(), trust.location());
            set(config, x509.getSslTruststorePasswdProperty(), trust.password());
            set(config, x509.getSslTruststoreTypeProperty(), trust.type());
        }
        return config;
    }

    private static void set(ZKClientConfig config, String name, @Nullable String value) {
        if (value != null) {
            config.setProperty(name, value);
        }
    }
}
