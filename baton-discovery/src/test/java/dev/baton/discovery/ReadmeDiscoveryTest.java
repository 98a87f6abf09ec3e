package dev.baton.discovery;

// README.md begin register
import dev.baton.discovery.*;

// README.md end register
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * README.md's service-discovery examples, line for line (checked by {@code DocsMirrorTest} in baton-recipes), run
 * as one story against an embedded server: the instance registers and takes itself out of rotation, the queries
 * find it beside two others, and the provider calls the one instance in rotation in eu-west.
 */
@Timeout(120)
class ReadmeDiscoveryTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /** The README's payload. */
    public record Details(String region) {
    }

    /** The client the examples use. */
    private BatonClient client;
    private final List<String> called = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startClient() throws InterruptedException {
        client = Baton.newClient(zk.connectString(), new RetryOneTime(10));
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    void call(String uri) throws IOException {
        called.add(uri);
    }

    private static ServiceInstance<Details> instance(String address, int port, String region) throws Exception {
        return ServiceInstance.<Details>builder().name("orders").address(address).port(port)
                .uriSpec(new UriSpec("{scheme}://{address}:{port}")).payload(new Details(region)).build();
    }

    @Test
    void registerFindAndCall() throws Exception {
        // README.md begin register
        ServiceInstance<Details> me = ServiceInstance.<Details>builder()
                .name("orders")                                   // id: a random UUID; address: this host's
                .port(8080)
                .uriSpec(new UriSpec("{scheme}://{address}:{port}"))
                .payload(new Details("eu-west"))
                .build();
        ServiceDiscovery<Details> discovery = ServiceDiscoveryBuilder.builder(Details.class)
                .client(client)
                .basePath("/services")
                .thisInstance(me)                                 // registered by start()
                .build();
        discovery.start();                                        // close(): deletes DYNAMIC/STATIC registrations
        discovery.updateService(me.toBuilder().enabled(false).build());   // out of rotation, still registered
        // README.md end register
        try (ServiceDiscovery<Details> others = ServiceDiscoveryBuilder.builder(Details.class)
                .client(client).basePath("/services").build()) {
            others.start();
            ServiceInstance<Details> west = instance("10.0.0.2", 8081, "eu-west");
            ServiceInstance<Details> east = instance("10.0.0.3", 8082, "us-east");
            others.registerService(west);
            others.registerService(east);
            String id = me.getId();

            // README.md begin query
            Collection<String> names = discovery.queryForNames();
            Collection<ServiceInstance<Details>> orders = discovery.queryForInstances("orders");
            ServiceInstance<Details> one = discovery.queryForInstance("orders", id);   // null if absent

            try (ServiceCache<Details> cache = discovery.serviceCacheBuilder().name("orders").build()) {
                cache.addListener(() -> System.out.println("orders now: " + cache.getInstances()));
                cache.start();                                        // returns after the initial load
            }
            // README.md end query
            assertThat(names).containsExactly("orders");
            assertThat(orders).extracting(ServiceInstance::getId)
                    .containsExactlyInAnyOrder(me.getId(), west.getId(), east.getId());
            assertThat(one.isEnabled()).isFalse();
            assertThat(one.getPayload()).isEqualTo(new Details("eu-west"));

            // README.md begin provider
            try (ServiceProvider<Details> provider = discovery.serviceProviderBuilder()
                    .serviceName("orders")
                    .providerStrategy(new RoundRobinStrategy<>())
                    .downInstancePolicy(new DownInstancePolicy(Duration.ofSeconds(30), 2))
                    .additionalFilter(i -> "eu-west".equals(i.getPayload().region()))
                    .build()) {
                provider.start();
                ServiceInstance<Details> target = provider.getInstance();   // null if none is available
                if (target != null) {
                    try {
                        call(target.buildUriSpec());
                    } catch (IOException e) {
                        provider.noteError(target);                     // 2 errors: skipped for 30 s
                    }
                }
            }
            // README.md end provider
            assertThat(called).containsExactly("http://10.0.0.2:8081");
        } finally {
            discovery.close();
        }
        assertThat(client.checkExists().forPath("/services/orders/" + me.getId())).isNull();
    }
}
