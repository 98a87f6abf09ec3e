package dev.baton.bench.impl;

import dev.baton.bench.BenchClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceProvider;
import org.apache.curator.x.discovery.ServiceType;
import org.apache.curator.x.discovery.details.ServiceCacheListener;

/** Curator's {@code curator-x-discovery} behind {@link BenchClient.Discovery}, with its defaults. */
final class CuratorBenchDiscovery implements BenchClient.Discovery {
    private final ServiceDiscovery<Void> discovery;

    CuratorBenchDiscovery(CuratorFramework client, String basePath) {
        discovery = ServiceDiscoveryBuilder.builder(Void.class).client(client).basePath(basePath).build();
        try {
            discovery.start();
        } catch (Exception e) {
            throw new IllegalStateException("Curator ServiceDiscovery.start", e);
        }
    }

    private static ServiceInstance<Void> instance(String name, String id, int port) {
        return new ServiceInstance<>(name, id, "127.0.0.1", port, null, null, 0, ServiceType.DYNAMIC, null);
    }

    @Override
    public void register(String name, String id, int port) {
        try {
            discovery.registerService(instance(name, id, port));
        } catch (Exception e) {
            throw new IllegalStateException("Curator registerService", e);
        }
    }

    @Override
    public void update(String name, String id, int port) {
        try {
            discovery.updateService(instance(name, id, port));
        } catch (Exception e) {
            throw new IllegalStateException("Curator updateService", e);
        }
    }

    @Override
    public BenchClient.Provider provider(String name) {
        ServiceProvider<Void> provider = discovery.serviceProviderBuilder().serviceName(name).build();
        try {
            provider.start();
        } catch (Exception e) {
            throw new IllegalStateException("Curator ServiceProvider.start", e);
        }
        return new BenchClient.Provider() {
            @Override
            public String getInstance() {
                try {
                    ServiceInstance<Void> instance = provider.getInstance();
                    return instance == null ? null : instance.getId();
                } catch (Exception e) {
                    throw new IllegalStateException("Curator getInstance", e);
                }
            }

            @Override
            public int size() {
                try {
                    return provider.getAllInstances().size();
                } catch (Exception e) {
                    throw new IllegalStateException("Curator getAllInstances", e);
                }
            }

            @Override
            public void close() {
                try {
                    provider.close();
                } catch (Exception e) {
                    throw new IllegalStateException("Curator ServiceProvider.close", e);
                }
            }
        };
    }

    @Override
    public BenchClient.Provider cache(String name, Consumer<Map<String, Integer>> onChange) {
        ServiceCache<Void> cache = discovery.serviceCacheBuilder().name(name).build();
        cache.addListener(new ServiceCacheListener() {
            @Override
            public void cacheChanged() {
                onChange.accept(ports(cache.getInstances()));
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
            }
        });
        try {
            cache.start();
        } catch (Exception e) {
            throw new IllegalStateException("Curator ServiceCache.start", e);
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
                try {
                    cache.close();
                } catch (Exception e) {
                    throw new IllegalStateException("Curator ServiceCache.close", e);
                }
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
        try {
            discovery.close();
        } catch (Exception e) {
            throw new IllegalStateException("Curator ServiceDiscovery.close", e);
        }
    }
}
