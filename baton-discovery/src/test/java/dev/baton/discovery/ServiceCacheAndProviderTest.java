package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ServiceCache, ServiceProvider and the strategies on a real server. */
@Timeout(60)
@Tag("slow")
class ServiceCacheAndProviderTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private Clients clients;
    private ServiceDiscovery<Details> registrar;
    private ServiceDiscovery<Details> reader;

    @BeforeEach
    void setUp() throws InterruptedException {
        clients = new Clients(zk.connectString());
        registrar = clients.add(ServiceDiscoveryBuilder.builder(Details.class).client(clients.baton())
                .basePath("/svc").build());
        registrar.start();
        reader = clients.add(ServiceDiscoveryBuilder.builder(Details.class).client(clients.baton())
                .basePath("/svc").build());
        reader.start();
    }

    @AfterEach
    void tearDown() {
        clients.close();
    }

    private ServiceInstance<Details> register(String id) throws InterruptedException {
        ServiceInstance<Details> instance = ServiceInstance.<Details>builder().name("web").id(id)
                .address("127.0.0.1").port(8000 + id.hashCode() % 1000 + 1000).payload(new Details(id, 1)).build();
        registrar.registerService(instance);
        return instance;
    }

    @Test
    void cacheLoadsAndFollowsChanges() throws Exception {
        ServiceInstance<Details> a = register("a");
        ServiceCache<Details> cache = reader.serviceCacheBuilder().name("web").build();
        AtomicInteger changes = new AtomicInteger();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        cache.addListener(new ServiceCacheListener() {
            @Override
            public void cacheChanged() {
                changes.incrementAndGet();
            }

            @Override
            public void stateChanged(BatonClient client, ConnectionState newState) {
                states.add(newState);
            }
        });
        assertThat(cache.getInstances()).isEmpty();
        cache.start();
        assertThat(cache.getInstances()).containsExactly(a);
        assertThat(changes).hasValue(0); // the initial load is not a change

        ServiceInstance<Details> b = register("b");
        await().until(() -> cache.getInstances().equals(List.of(a, b)));
        ServiceInstance<Details> a2 = a.toBuilder().enabled(false).build();
        registrar.updateService(a2);
        await().until(() -> cache.getInstances().equals(List.of(a2, b)));
        registrar.unregisterService(b);
        await().until(() -> cache.getInstances().equals(List.of(a2)));
        // The instances are updated before the listeners hear of it: wait for the count.
        await().untilAsserted(() -> assertThat(changes.get()).isEqualTo(3));

        zk.server().restart(); // the connection drops; the session lives
        await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.RECONNECTED));
        assertThat(states).contains(ConnectionState.SUSPENDED);
        assertThat(cache.getInstances()).containsExactly(a2);

        cache.close();
        assertThat(cache.getInstances()).isEmpty();
        assertThatThrownBy(cache::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void cachesOfOneServiceShareOneWatchAndReadEachChangeOnce() throws Exception {
        ServiceInstance<Details> a = register("a");
        ServiceCache<Details> first = reader.serviceCacheBuilder().name("web").build();
        ServiceCache<Details> second = reader.serviceCacheBuilder().name("web").build();
        ServiceProvider<Details> provider = reader.serviceProviderBuilder().serviceName("web").build();
        AtomicInteger firstChanges = new AtomicInteger();
        AtomicInteger secondChanges = new AtomicInteger();
        first.addListener(firstChanges::incrementAndGet);
        second.addListener(secondChanges::incrementAndGet);
        first.start();
        second.start();
        provider.start();
        assertThat(second.getInstances()).as("loaded already").containsExactly(a);
        assertThat(provider.getAllInstances()).containsExactly(a);

        long readsBefore = zk.server().requestCounts().getOrDefault("getData", 0L);
        ServiceInstance<Details> a2 = a.toBuilder().port(9001).build();
        registrar.updateService(a2);
        await().until(() -> first.getInstances().equals(List.of(a2)) && second.getInstances().equals(List.of(a2))
                && provider.getAllInstances().equals(List.of(a2)));
        assertThat(zk.server().requestCounts().getOrDefault("getData", 0L) - readsBefore)
                .as("one read for the three").isEqualTo(1);
        await().until(() -> firstChanges.get() == 1 && secondChanges.get() == 1);

        // Closing one leaves the others following; closing the last removes the watch.
        first.close();
        assertThat(first.getInstances()).isEmpty();
        ServiceInstance<Details> b = register("b");
        await().until(() -> second.getInstances().equals(List.of(a2, b)));
        assertThat(firstChanges).hasValue(1);
        int watchesWithOne = zk.server().watchCount();
        second.close();
        provider.close();
        await().until(() -> zk.server().watchCount() < watchesWithOne);

        // A cache started afterwards sets the watch up again.
        try (ServiceCache<Details> again = reader.serviceCacheBuilder().name("web").build()) {
            again.start();
            assertThat(again.getInstances()).containsExactly(a2, b);
        }
    }

    @Test
    void aCacheOfAServiceThatDoesNotExistYetCreatesNothing() throws Exception {
        try (ServiceCache<Details> cache = reader.serviceCacheBuilder().name("later").build()) {
            cache.start();
            assertThat(cache.getInstances()).isEmpty();
            assertThat(clients.baton().checkExists().forPath("/svc/later")).isNull();
            ServiceInstance<Details> x = ServiceInstance.<Details>builder().name("later").id("x").build();
            registrar.registerService(x);
            await().until(() -> cache.getInstances().equals(List.of(x)));
        }
    }

    @Test
    void roundRobinVisitsEveryInstanceInTurnWithoutAskingTheServer() throws Exception {
        List<ServiceInstance<Details>> all = List.of(register("a"), register("b"), register("c"));
        ServiceProvider<Details> provider = reader.serviceProviderBuilder().serviceName("web").build();
        assertThatThrownBy(provider::getInstance).as("not started").isInstanceOf(IllegalStateException.class);
        provider.start();
        assertThatThrownBy(provider::start).isInstanceOf(IllegalStateException.class);
        assertThat(provider.getAllInstances()).containsExactlyElementsOf(all);

        long requestsBefore = zk.server().requestCount();
        List<ServiceInstance<Details>> handedOut = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            handedOut.add(provider.getInstance());
        }
        assertThat(zk.server().requestCount()).as("getInstance() sends no request").isEqualTo(requestsBefore);
        for (int i = 0; i < handedOut.size(); i++) {
            assertThat(handedOut.get(i)).isEqualTo(all.get(i % 3));
        }
        provider.close();
        provider.close();
        assertThatThrownBy(provider::getInstance).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void disabledAndDownInstancesAndFilteredOnesAreNotHandedOut() throws Exception {
        ServiceInstance<Details> a = register("a");
        ServiceInstance<Details> b = register("b");
        ServiceInstance<Details> c = register("c");
        ServiceProvider<Details> provider = clients.add(reader.serviceProviderBuilder().serviceName("web")
                .downInstancePolicy(new DownInstancePolicy(Duration.ofMillis(700), 2))
                .additionalFilter(i -> !i.getId().equals("c")).build());
        provider.start();
        assertThat(provider.getAllInstances()).containsExactly(a, b);

        registrar.updateService(a.toBuilder().enabled(false).build());
        await().until(() -> provider.getAllInstances().equals(List.of(b)));
        registrar.updateService(a);
        await().until(() -> provider.getAllInstances().equals(List.of(a, b)));

        provider.noteError(b);
        assertThat(provider.getAllInstances()).as("one error is below the threshold").containsExactly(a, b);
        provider.noteError(b);
        assertThat(provider.getAllInstances()).containsExactly(a);
        assertThat(List.of(provider.getInstance(), provider.getInstance())).containsOnly(a);
        // The policy's timeout after the first error, b is back.
        await().atMost(Duration.ofSeconds(5)).until(() -> provider.getAllInstances().equals(List.of(a, b)));
        assertThat(c).isNotIn(provider.getAllInstances());
    }

    @Test
    void randomAndStickyStrategies() throws Exception {
        List<ServiceInstance<Details>> all = List.of(register("a"), register("b"), register("c"));
        ServiceProvider<Details> random = clients.add(reader.serviceProviderBuilder().serviceName("web")
                .providerStrategy(new RandomStrategy<>()).build());
        random.start();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < 600; i++) {
            seen.merge(random.getInstance().getId(), 1, Integer::sum);
        }
        assertThat(seen).containsOnlyKeys("a", "b", "c");
        assertThat(seen.values()).allMatch(n -> n > 100);

        StickyStrategy<Details> sticky = new StickyStrategy<>(new RoundRobinStrategy<>());
        ServiceProvider<Details> provider = clients.add(reader.serviceProviderBuilder().serviceName("web")
                .providerStrategy(sticky).build());
        provider.start();
        ServiceInstance<Details> first = provider.getInstance();
        Set<ServiceInstance<Details>> handed = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            handed.add(provider.getInstance());
        }
        assertThat(handed).containsExactly(first);
        assertThat(sticky.getInstanceNumber()).isZero();
        registrar.unregisterService(first);
        await().until(() -> !provider.getAllInstances().contains(first));
        ServiceInstance<Details> second = provider.getInstance();
        assertThat(second).isNotEqualTo(first).isIn(all);
        assertThat(sticky.getInstanceNumber()).isEqualTo(1);
        assertThat(new StickyStrategy<Details>(new RandomStrategy<>()).getInstance(List::of)).isNull();
        assertThat(new RoundRobinStrategy<Details>().getInstance(List::of)).isNull();
        assertThatThrownBy(() -> new StickyStrategy<Details>(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheOthers() throws Exception {
        register("a");
        ServiceCache<Details> cache = clients.add(reader.serviceCacheBuilder().name("web").build());
        AtomicInteger calls = new AtomicInteger();
        cache.addListener(() -> {
            throw new IllegalStateException("bad listener");
        });
        ServiceCacheListener counting = calls::incrementAndGet;
        cache.addListener(counting);
        cache.start();
        register("b");
        await().until(() -> calls.get() == 1);
        cache.removeListener(counting);
        register("c");
        await().until(() -> cache.getInstances().size() == 3);
        assertThat(calls).hasValue(1);
    }

    @Test
    void fiftyCachesOfManyInstancesAddNoThread() throws Exception {
        BatonClient writer = clients.baton();
        for (int i = 0; i < 200; i++) {
            ServiceInstance<Details> instance = ServiceInstance.<Details>builder().name("big")
                    .id(String.format("i-%04d", i)).address("10.0.0.1").port(1000 + i).build();
            writer.create().creatingParentContainersIfNeeded().forPathAsync("/svc/big/" + instance.getId(),
                    new JsonInstanceSerializer<>(Details.class).serialize(instance));
        }
        await().until(() -> writer.getChildren().forPath("/svc/big").size() == 200);
        Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
        List<ServiceCache<Details>> caches = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ServiceCache<Details> cache = reader.serviceCacheBuilder().name("big").build();
            cache.start();
            caches.add(cache);
        }
        assertThat(caches).allMatch(c -> c.getInstances().size() == 200);
        assertThat(Thread.getAllStackTraces().keySet()).filteredOn(t -> !before.contains(t))
                .filteredOn(Thread::isAlive).extracting(Thread::getName)
                .as("threads started while 50 caches loaded and watch 200 instances (the benchmark does 1,000)")
                .allMatch(name -> name.startsWith("NIOWorker") || name.startsWith("baton-events"));
        caches.forEach(ServiceCache::close);
    }
}
