package dev.baton.discovery;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryNTimes;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;

/**
 * Runs discovery with a serializer of its own, loaded by {@link CuratorComplaintsTest} in a class loader without
 * Jackson: a plain text format, {@code name|id|address|port}.
 */
public final class NoJacksonProbe {
    private NoJacksonProbe() {
    }

    /** Baton: registers an instance and reads it back. Returns what was read. */
    public static String baton(String connectString) throws Exception {
        try (BatonClient client = Baton.newClient(connectString, new RetryNTimes(3, 100))) {
            client.start();
            client.blockUntilConnected(10, TimeUnit.SECONDS);
            InstanceSerializer<Void> text = new InstanceSerializer<>() {
                @Override
                public byte[] serialize(ServiceInstance<Void> i) {
                    return (i.getName() + "|" + i.getId() + "|" + i.getAddress() + "|" + i.getPort()).getBytes(UTF_8);
                }

                @Override
                public ServiceInstance<Void> deserialize(byte[] bytes) {
                    String[] f = new String(bytes, UTF_8).split("\\|");
                    return ServiceInstance.<Void>builder().name(f[0]).id(f[1]).address(f[2])
                            .port(Integer.parseInt(f[3])).build();
                }
            };
            try (ServiceDiscovery<Void> discovery = ServiceDiscoveryBuilder.builder(Void.class).client(client)
                    .basePath("/nojackson").serializer(text).build()) {
                discovery.start();
                discovery.registerService(ServiceInstance.<Void>builder().name("svc").id("b").address("h").port(1)
                        .build());
                return discovery.queryForInstance("svc", "b").getAddress();
            }
        }
    }

    /** Curator: the same with Curator's discovery. */
    public static String curator(String connectString) throws Exception {
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(connectString,
                new org.apache.curator.retry.RetryNTimes(3, 100))) {
            client.start();
            client.blockUntilConnected(10, TimeUnit.SECONDS);
            org.apache.curator.x.discovery.details.InstanceSerializer<Void> text = new org.apache.curator.x
                    .discovery.details.InstanceSerializer<>() {
                @Override
                public byte[] serialize(org.apache.curator.x.discovery.ServiceInstance<Void> i) {
                    return (i.getName() + "|" + i.getId() + "|" + i.getAddress() + "|" + i.getPort()).getBytes(UTF_8);
                }

                @Override
                public org.apache.curator.x.discovery.ServiceInstance<Void> deserialize(byte[] bytes) {
                    String[] f = new String(bytes, UTF_8).split("\\|");
                    return new org.apache.curator.x.discovery.ServiceInstance<>(f[0], f[1], f[2],
                            Integer.parseInt(f[3]), null, null, 0,
                            org.apache.curator.x.discovery.ServiceType.DYNAMIC, null);
                }
            };
            try (org.apache.curator.x.discovery.ServiceDiscovery<Void> discovery =
                    org.apache.curator.x.discovery.ServiceDiscoveryBuilder.builder(Void.class).client(client)
                            .basePath("/nojackson").serializer(text).build()) {
                discovery.start();
                discovery.registerService(new org.apache.curator.x.discovery.ServiceInstance<>("svc", "c", "h", 1,
                        null, null, 0, org.apache.curator.x.discovery.ServiceType.DYNAMIC, null));
                return discovery.queryForInstance("svc", "c").getAddress();
            }
        }
    }
}
