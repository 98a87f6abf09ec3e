package dev.baton.bench.impl;

import dev.baton.BatonClient;
import dev.baton.bench.BenchClient;
import dev.baton.discovery.ServiceCache;
import dev.baton.discovery.ServiceDiscovery;
import dev.baton.discovery.ServiceDiscoveryBuilder;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceProvider;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;

/** Baton's {@code baton-discovery} behind {@link BenchClient.Discovery}. */
final class BatonBenchDiscovery implements BenchClient.Discovery {
    private final ServiceDiscovery<Void> discovery;

    BatonBenchDiscovery(BatonClient client, String basePath) {
        discovery = ServiceDiscoveryBuilder.builder(Void.class).client(client).basePath(basePath).build();
        try {
            discovery.start();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static ServiceInstance<Void> instance(String name, String id, int port) {
        return ServiceInstance.<Void>builder().name(name).id(id).address("127.0.0.1").port(port)
                .registrationTimeUTC(0).build();
    }

    @Override
    public void register(String name, String id, int port) {
        try {
            discovery.registerService(instance(name, id, port));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void update(String name, String id, int port) {
        try {
            discovery.updateService(instance(name, id, port));
        } catch (KeeperException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public BenchClient.Provider provider(String name) {
        ServiceProvider<Void> provider = discovery.serviceProviderBuilder().serviceName(name).build();
        try {
            provider.start();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return new BenchClient.Provider() {
            @Override
            public String getInstance() {
                ServiceInstance<Void> instance = provider.getInstance();
                return instance == null ? null : instance.getId();
            }

            @Override
            public int size() {
                return provider.getAllInstances().size();
            }

            @Override
            public void close() {
                provider.close();
            }
        };
    }

    @Override
    public BenchClient.Provider cache(String name, Consumer<Map<String, Integer>> onChange) {
        ServiceCache<Void> cache = discovery.serviceCacheBuilder().name(name).build();
        cache.addListener(() -> onChange.accept(ports(cache.getInstances())));
        try {
            cache.start();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return new BenchClient.Provider() {
            @Override
            public String getInstance() {
                return null;
            }

            @Override
            public int size() {
                return cache.getInstances().size();
            }

            @Override
            public void close() {
                cache.close();
            }
        };
    }

    private static Map<String, Integer> ports(List<ServiceInstance<Void>> instances) {
        Map<String, Integer> ports = new HashMap<>();
        for (ServiceInstance<Void> instance : instances) {
            ports.put(instance.getId(), instance.getPort());
        }
        return ports;
    }

    @Override
    public void close() {
        discovery.close();
    }
}
