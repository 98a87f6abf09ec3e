package dev.baton.testing;

import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.net.ssl.SSLException;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.X509Exception;
import org.apache.zookeeper.common.ZKConfig;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.auth.ProviderRegistry;

/**
 * What an in-process server with {@link ServerSecurity} needs from ZooKeeper's server classes, most of which read
 * their settings from JVM-wide system properties when they are made:
 * <ul>
 * <li>A Netty connection factory for the TLS port whose TLS settings are this server's own. ZooKeeper builds the
 * server's TLS context for every new connection from a fresh {@code ZKConfig} (JVM system properties); the
 * factory's {@code ClientX509Util} is replaced by one that builds it from the server's settings instead, so no
 * key store path or password becomes a system property (where every {@code ZKClientConfig} of the JVM would
 * pick it up as the client's own).</li>
 * <li>System properties that ZooKeeper reads only while a server or factory is being made (the SASL section,
 * enforced authentication), set just for that moment under one JVM-wide lock.</li>
 * <li>The authentication providers, registered once per JVM: {@code sasl}, and {@code x509} as
 * {@link KitX509AuthenticationProvider}.</li>
 * </ul>
 */
final class ServerFactories {
    private static final Object PROPERTIES_LOCK = new Object();
    private static final String NETTY_FACTORY = "org.apache.zookeeper.server.NettyServerCnxnFactory";

    private ServerFactories() {
    }

    /**
     * Runs {@code action} with these system properties set, then sets them back as they were. Serialized with
     * every other such call in the JVM.
     */
    static <T> T withProperties(Map<String, String> properties, Callable<T> action) throws Exception {
        synchronized (PROPERTIES_LOCK) {
            Map<String, String> before = new HashMap<>();
            properties.forEach((k, v) -> before.put(k, System.setProperty(k, v)));
            try {
                return action.call();
            } finally {
                before.forEach((k, v) -> {
                    if (v == null) {
                        System.clearProperty(k);
                    } else {
                        System.setProperty(k, v);
                    }
                });
            }
        }
    }

    /** Registers the providers {@code security} needs with ZooKeeper's JVM-wide registry. */
    static void registerProviders(ServerSecurity security) {
        synchronized (PROPERTIES_LOCK) {
            ProviderRegistry.getProvider("ip"); // initializes the registry first, so it keeps what is added below
            if (security.sasl()) {
                register("sasl", "org.apache.zookeeper.server.auth.SASLAuthenticationProvider");
            }
            if (security.tls().isPresent()) {
                register("x509", KitX509AuthenticationProvider.class.getName());
            }
        }
    }

    private static void register(String scheme, String className) {
        String key = ProviderRegistry.AUTHPROVIDER_PROPERTY_PREFIX + scheme;
        if (className.equals(System.getProperty(key)) && ProviderRegistry.getProvider(scheme) != null) {
            return;
        }
        System.setProperty(key, className);
        ProviderRegistry.addOrUpdateProvider(key);
    }

    /** A Netty factory whose TLS context comes from {@code tls} (the {@code zookeeper.ssl.*} settings). */
    static ServerCnxnFactory nettyFactory(ZKConfig tls) throws IOException {
        try {
            Class<?> type = Class.forName(NETTY_FACTORY);
            Constructor<?> constructor = type.getDeclaredConstructor();
            constructor.setAccessible(true);
            ServerCnxnFactory factory = (ServerCnxnFactory) constructor.newInstance();
            Field x509 = type.getDeclaredField("x509Util");
            x509.setAccessible(true);
            ((ClientX509Util) x509.get(factory)).close();
            x509.set(factory, new OwnSettings(tls));
            return factory;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IOException("cannot make ZooKeeper's Netty connection factory for TLS (ZooKeeper "
                    + "3.9's NettyServerCnxnFactory expected)", e);
        }
    }

    /** Builds the server's TLS context from its own settings, whatever configuration it is given. */
    private static final class OwnSettings extends ClientX509Util {
        private final ZKConfig settings;

        OwnSettings(ZKConfig settings) {
            this.settings = settings;
        }

        @Override
        public SslContext createNettySslContextForServer(ZKConfig ignored)
                throws X509Exception.SSLContextException, X509Exception.KeyManagerException,
                X509Exception.TrustManagerException, SSLException {
            return super.createNettySslContextForServer(settings);
        }
    }
}
