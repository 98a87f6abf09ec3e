package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Curator 5.9's curator-x-discovery and Baton on one base path: each finds the other's instances with their
 * payloads, a Curator ServiceCache follows Baton's registrations, and a Baton ServiceCache follows Curator's.
 */
@Timeout(60)
class DiscoveryInteropTest {
    private static final String BASE = "/interop";

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private Clients clients;
    private ServiceDiscovery<Details> baton;
    private org.apache.curator.x.discovery.ServiceDiscovery<Details> curator;

    @BeforeEach
    void setUp() throws Exception {
        clients = new Clients(zk.connectString());
        BatonClient batonClient = clients.baton();
        baton = clients.add(ServiceDiscoveryBuilder.builder(Details.class).client(batonClient).basePath(BASE).build());
        baton.start();
        CuratorFramework curatorClient = clients.curator();
        curator = clients.add(org.apache.curator.x.discovery.ServiceDiscoveryBuilder.builder(Details.class)
                .client(curatorClient).basePath(BASE).build());
        curator.start();
    }

    @AfterEach
    void tearDown() {
        clients.close();
    }

    private static org.apache.curator.x.discovery.ServiceInstance<Details> curatorInstance(String id,
            Details payload) throws Exception {
        return org.apache.curator.x.discovery.ServiceInstance.<Details>builder().name("orders").id(id)
                .address("10.0.0.9").port(9000).sslPort(9443).payload(payload)
                .uriSpec(new org.apache.curator.x.discovery.UriSpec("{scheme}://{address}:{ssl-port}"))
                .serviceType(org.apache.curator.x.discovery.ServiceType.DYNAMIC).build();
    }

    private static ServiceInstance<Details> batonInstance(String id, Details payload) {
        return ServiceInstance.<Details>builder().name("orders").id(id).address("10.0.0.8").port(8000)
                .payload(payload).uriSpec(new UriSpec("{scheme}://{address}:{port}")).build();
    }

    @Test
    void batonFindsCuratorsInstancesWithTheirPayloads() throws Exception {
        org.apache.curator.x.discovery.ServiceInstance<Details> theirs = curatorInstance("c1", new Details("eu", 5));
        curator.registerService(theirs);

        ServiceInstance<Details> found = baton.queryForInstance("orders", "c1");
        assertThat(found.getPayload()).isEqualTo(new Details("eu", 5));
        assertThat(found.getAddress()).isEqualTo("10.0.0.9");
        assertThat(found.getPort()).isEqualTo(9000);
        assertThat(found.getSslPort()).isEqualTo(9443);
        assertThat(found.getRegistrationTimeUTC()).isEqualTo(theirs.getRegistrationTimeUTC());
        assertThat(found.getServiceType()).isEqualTo(ServiceType.DYNAMIC);
        assertThat(found.isEnabled()).isTrue();
        assertThat(found.buildUriSpec()).isEqualTo(theirs.buildUriSpec()).isEqualTo("https://10.0.0.9:9443");
        assertThat(baton.queryForNames()).containsExactly("orders");

        try (ServiceProvider<Details> provider = baton.serviceProviderBuilder().serviceName("orders").build()) {
            provider.start();
            assertThat(provider.getInstance()).isEqualTo(found);
            curator.registerService(curatorInstance("c2", new Details("us", 1)));
            await().until(() -> provider.getAllInstances().size() == 2);
            curator.unregisterService(theirs);
            await().until(() -> provider.getAllInstances().size() == 1);
            assertThat(provider.getInstance().getPayload()).isEqualTo(new Details("us", 1));
        }
    }

    @Test
    void curatorFindsBatonsInstancesWithTheirPayloads() throws Exception {
        ServiceInstance<Details> ours = batonInstance("b1", new Details("ap", 2));
        baton.registerService(ours);

        org.apache.curator.x.discovery.ServiceInstance<Details> found = curator.queryForInstance("orders", "b1");
        assertThat(found.getPayload()).isEqualTo(new Details("ap", 2));
        assertThat(found.getAddress()).isEqualTo("10.0.0.8");
        assertThat(found.getPort()).isEqualTo(8000);
        assertThat(found.getSslPort()).isNull();
        assertThat(found.getRegistrationTimeUTC()).isEqualTo(ours.getRegistrationTimeUTC());
        assertThat(found.getServiceType()).isEqualTo(org.apache.curator.x.discovery.ServiceType.DYNAMIC);
        assertThat(found.isEnabled()).isTrue();
        assertThat(found.buildUriSpec()).isEqualTo(ours.buildUriSpec()).isEqualTo("http://10.0.0.8:8000");
        assertThat(curator.queryForNames()).containsExactly("orders");
    }

    @Test
    void bothOnOnePathSeeEachOther() throws Exception {
        baton.registerService(batonInstance("b1", new Details("x", 1)));
        curator.registerService(curatorInstance("c1", new Details("y", 2)));
        assertThat(baton.queryForInstances("orders")).extracting(ServiceInstance::getId).containsExactly("b1", "c1");
        assertThat(curator.queryForInstances("orders"))
                .extracting(org.apache.curator.x.discovery.ServiceInstance::getId)
                .containsExactlyInAnyOrder("b1", "c1");
    }

    @Test
    void curatorsServiceCacheSeesBatonsChanges() throws Exception {
        org.apache.curator.x.discovery.ServiceCache<Details> cache = clients.add(
                curator.serviceCacheBuilder().name("orders").build());
        AtomicInteger changes = new AtomicInteger();
        cache.addListener(new org.apache.curator.x.discovery.details.ServiceCacheListener() {
            @Override
            public void cacheChanged() {
                changes.incrementAndGet();
            }

            @Override
            public void stateChanged(CuratorFramework client,
                    org.apache.curator.framework.state.ConnectionState newState) {
            }
        });
        cache.start();
        assertThat(cache.getInstances()).isEmpty();

        ServiceInstance<Details> ours = batonInstance("b1", new Details("v1", 1));
        baton.registerService(ours);
        await().until(() -> cache.getInstances().size() == 1);
        assertThat(cache.getInstances().get(0).getPayload()).isEqualTo(new Details("v1", 1));

        baton.updateService(ours.toBuilder().payload(new Details("v2", 2)).enabled(false).build());
        await().until(() -> new Details("v2", 2).equals(cache.getInstances().get(0).getPayload()));
        assertThat(cache.getInstances().get(0).isEnabled()).isFalse();

        baton.unregisterService(ours);
        await().until(() -> cache.getInstances().isEmpty());
        assertThat(changes.get()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void batonsServiceCacheSeesCuratorsChanges() throws Exception {
        ServiceCache<Details> cache = clients.add(baton.serviceCacheBuilder().name("orders").build());
        cache.start();
        org.apache.curator.x.discovery.ServiceInstance<Details> theirs = curatorInstance("c1", new Details("v1", 1));
        curator.registerService(theirs);
        await().until(() -> cache.getInstances().size() == 1);
        curator.updateService(curatorInstance("c1", new Details("v2", 2)));
        await().until(() -> new Details("v2", 2).equals(cache.getInstances().get(0).getPayload()));
        curator.unregisterService(theirs);
        await().until(() -> cache.getInstances().equals(List.of()));
    }
}
