package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.testing.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Discovery's family of the compatibility tier (baton-recipes' {@code ServerCompatibilityTest} cannot depend on
 * this module): registration, queries, a {@link ServiceCache} and a {@link ServiceProvider} following changes,
 * {@code watchInstances}, and interop with Curator 5.9's curator-x-discovery, against a standalone server of each
 * ZooKeeper release line given by {@code baton.compat.lines} (default {@code 3.8}). On 3.5, which has no persistent
 * watches, the caches underneath use one-shot watches. The whole matrix: {@code mvn -pl suite/main -am verify
 * -Dtest=DiscoveryServerCompatibilityTest -Dbaton.compat.lines=3.5,3.6,3.7,3.8,3.9
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("compat")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DiscoveryServerCompatibilityTest {
    private static final Map<String, ZooKeeperEnsemble> SERVERS = new ConcurrentHashMap<>();

    private Clients clients;

    static Stream<String> lines() {
        return Arrays.stream(System.getProperty("baton.compat.lines", "3.8").split(","))
                .map(String::strip).filter(line -> !line.isEmpty());
    }

    @AfterEach
    void closeClients() {
        if (clients != null) {
            clients.close();
        }
    }

    @AfterAll
    static void stopServers() {
        SERVERS.values().forEach(ZooKeeperEnsemble::close);
        SERVERS.clear();
    }

    private void on(String line) {
        ZooKeeperEnsemble server = SERVERS.computeIfAbsent(line, l -> ZooKeeperEnsemble.builder().servers(1)
                .serverVersion(l).maxSessionTimeout(Duration.ofSeconds(20)).build().start());
        assertThat(server.serverVersion()).startsWith(line + ".");
        clients = new Clients(server.connectString());
    }

    private static ServiceInstance<Details> instance(String id, int weight) {
        return ServiceInstance.<Details>builder().name("web").id(id).address("10.0.0.1").port(8000)
                .payload(new Details(id, weight)).build();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lines")
    void discovery(String line) throws Exception {
        on(line);
        BatonClient client = clients.baton();
        ServiceDiscovery<Details> registrar = clients.add(ServiceDiscoveryBuilder.builder(Details.class)
                .client(client).basePath("/compat/discovery").watchInstances(true).build());
        registrar.start();
        ServiceDiscovery<Details> reader = clients.add(ServiceDiscoveryBuilder.builder(Details.class)
                .client(clients.baton()).basePath("/compat/discovery").build());
        reader.start();
        ServiceInstance<Details> a = instance("a", 1);
        registrar.registerService(a);

        ServiceCache<Details> cache = clients.add(reader.serviceCacheBuilder().name("web").build());
        AtomicInteger changes = new AtomicInteger();
        cache.addListener(changes::incrementAndGet);
        cache.start();
        assertThat(cache.getInstances()).containsExactly(a);
        ServiceProvider<Details> provider = clients.add(reader.serviceProviderBuilder().serviceName("web").build());
        provider.start();
        assertThat(provider.getInstance()).isEqualTo(a);

        ServiceInstance<Details> b = instance("b", 2);
        registrar.registerService(b);
        await().until(() -> cache.getInstances().equals(List.of(a, b)));
        ServiceInstance<Details> a2 = a.toBuilder().payload(new Details("a", 5)).build();
        registrar.updateService(a2);
        await().until(() -> cache.getInstances().equals(List.of(a2, b)));
        registrar.unregisterService(b);
        await().until(() -> cache.getInstances().equals(List.of(a2)));
        await().until(() -> changes.get() == 3);
        assertThat(provider.getAllInstances()).containsExactly(a2);
        assertThat(reader.queryForNames()).containsExactly("web");
        assertThat(reader.queryForInstance("web", "a")).isEqualTo(a2);

        // Curator's discovery on the same base path: each side sees the other's instances.
        CuratorFramework curatorClient = clients.curator();
        var curator = clients.add(org.apache.curator.x.discovery.ServiceDiscoveryBuilder.builder(Details.class)
                .client(curatorClient).basePath("/compat/discovery").build());
        curator.start();
        curator.registerService(org.apache.curator.x.discovery.ServiceInstance.<Details>builder().name("web")
                .id("theirs").address("10.0.0.2").port(9000).payload(new Details("theirs", 3)).build());
        await().until(() -> cache.getInstances().stream().map(ServiceInstance::getId).toList()
                .equals(List.of("a", "theirs")));
        assertThat(curator.queryForInstance("web", "a").getPayload().getWeight()).isEqualTo(5);

        // A write by someone else to a registration (the registrar watches its instances) reaches the caches.
        var theirCopy = curator.queryForInstance("web", "a");
        var rewritten = org.apache.curator.x.discovery.ServiceInstance.<Details>builder().name("web").id("a")
                .address(theirCopy.getAddress()).port(theirCopy.getPort()).payload(new Details("a", 9)).build();
        curatorClient.setData().forPath("/compat/discovery/web/a",
                new org.apache.curator.x.discovery.details.JsonInstanceSerializer<>(Details.class)
                        .serialize(rewritten));
        await().until(() -> cache.getInstances().stream().anyMatch(i -> i.getId().equals("a")
                && i.getPayload().getWeight() == 9));
        assertThat(reader.queryForInstance("web", "a").getPayload().getWeight()).isEqualTo(9);
    }
}
