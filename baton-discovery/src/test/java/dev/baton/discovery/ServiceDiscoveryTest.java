package dev.baton.discovery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.Set;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ServiceDiscovery on a real server: registering, querying, updating, unregistering, closing, bad input. */
@Timeout(60)
@Tag("slow")
class ServiceDiscoveryTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private Clients clients;
    private BatonClient client;
    private BatonClient observer;

    @BeforeEach
    void setUp() throws InterruptedException {
        clients = new Clients(zk.connectString());
        client = clients.baton();
        observer = clients.baton();
    }

    @AfterEach
    void tearDown() {
        clients.close();
    }

    private ServiceDiscovery<Details> discovery(String basePath) {
        return clients.add(ServiceDiscoveryBuilder.builder(Details.class).client(client).basePath(basePath).build());
    }

    private static ServiceInstance<Details> instance(String name, String id, ServiceType type) {
        return ServiceInstance.<Details>builder().name(name).id(id).address("127.0.0.1").port(8080)
                .serviceType(type).payload(new Details("eu", 1)).build();
    }

    @Test
    void registersQueriesUpdatesAndUnregisters() throws Exception {
        ServiceDiscovery<Details> discovery = discovery("/services");
        discovery.start();
        ServiceInstance<Details> a = instance("orders", "a", ServiceType.DYNAMIC);
        ServiceInstance<Details> b = instance("orders", "b", ServiceType.DYNAMIC);
        ServiceInstance<Details> c = instance("billing", "c", ServiceType.DYNAMIC);
        discovery.registerService(b);
        discovery.registerService(a);
        discovery.registerService(c);

        assertThat(discovery.queryForNames()).containsExactly("billing", "orders");
        assertThat(discovery.queryForInstances("orders")).containsExactly(a, b);
        assertThat(discovery.queryForInstance("orders", "a")).isEqualTo(a);
        assertThat(discovery.queryForInstance("orders", "zz")).isNull();
        assertThat(discovery.queryForInstances("nothing")).isEmpty();
        Stat stat = observer.checkExists().forPath("/services/orders/a");
        assertThat(stat.getEphemeralOwner()).isEqualTo(client.getZooKeeper().getSessionId());
        assertThat(new String(observer.getData().forPath("/services/orders/a"), UTF_8))
                .contains("\"name\":\"orders\"", "\"id\":\"a\"", "\"enabled\":true");

        ServiceInstance<Details> a2 = a.toBuilder().payload(new Details("us", 2)).enabled(false).build();
        discovery.updateService(a2);
        assertThat(discovery.queryForInstance("orders", "a")).isEqualTo(a2);

        discovery.unregisterService(a);
        assertThat(observer.checkExists().forPath("/services/orders/a")).isNull();
        assertThat(discovery.queryForInstances("orders")).containsExactly(b);
        assertThatThrownBy(() -> discovery.updateService(a2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a");
    }

    @Test
    void startRegistersThisInstanceAndRegisteringAgainUpdates() throws Exception {
        ServiceInstance<Details> me = instance("api", "me", ServiceType.DYNAMIC);
        ServiceDiscovery<Details> discovery = clients.add(ServiceDiscoveryBuilder.builder(Details.class)
                .client(client).basePath("/this").thisInstance(me).build());
        assertThat(observer.checkExists().forPath("/this/api/me")).isNull();
        discovery.start();
        assertThat(discovery.queryForInstance("api", "me")).isEqualTo(me);
        Stat before = observer.checkExists().forPath("/this/api/me");

        ServiceInstance<Details> changed = me.toBuilder().port(9090).build();
        discovery.registerService(changed);
        Stat after = observer.checkExists().forPath("/this/api/me");
        assertThat(after.getCzxid()).as("the same node, written again").isEqualTo(before.getCzxid());
        assertThat(discovery.queryForInstance("api", "me")).isEqualTo(changed);
    }

    @Test
    void closeDeletesDynamicAndStaticButLeavesPermanent() throws Exception {
        ServiceDiscovery<Details> discovery = discovery("/close");
        discovery.start();
        discovery.registerService(instance("s", "dynamic", ServiceType.DYNAMIC));
        discovery.registerService(instance("s", "static", ServiceType.STATIC));
        discovery.registerService(instance("s", "permanent", ServiceType.PERMANENT));
        assertThat(observer.getChildren().forPath("/close/s")).containsExactlyInAnyOrder("dynamic", "static",
                "permanent");
        assertThat(observer.checkExists().forPath("/close/s/static").getEphemeralOwner()).isZero();

        discovery.close();
        discovery.close(); // twice: nothing more
        await().untilAsserted(() -> assertThat(observer.getChildren().forPath("/close/s"))
                .containsExactly("permanent"));

        // A PERMANENT registration is unregistered from anywhere, even by a discovery that did not register it.
        ServiceDiscovery<Details> other = discovery("/close");
        other.unregisterService(instance("s", "permanent", ServiceType.PERMANENT));
        assertThat(observer.checkExists().forPath("/close/s/permanent")).isNull();
    }

    @Test
    void watchInstancesAdoptsWritesMadeRightAfterRegisteringButNotALeftoverNode() throws Exception {
        JsonInstanceSerializer<Details> json = new JsonInstanceSerializer<>(Details.class);
        byte[] leftover = json.serialize(instance("s", "static", ServiceType.STATIC).toBuilder()
                .payload(new Details("leftover", 0)).build());
        observer.create().creatingParentsIfNeeded().forPath("/adopt/s/static", leftover);
        ServiceDiscovery<Details> discovery = clients.add(ServiceDiscoveryBuilder.builder(Details.class)
                .client(client).basePath("/adopt").watchInstances(true).build());
        discovery.start();

        ServiceInstance<Details> mine = instance("s", "static", ServiceType.STATIC);
        discovery.registerService(mine); // takes the node over
        // Written by an operator the moment each registration is on the server, before its watch may be set.
        for (int i = 0; i < 10; i++) {
            ServiceInstance<Details> dynamic = instance("s", "d" + i, ServiceType.DYNAMIC);
            discovery.registerService(dynamic);
            observer.setData().forPath("/adopt/s/d" + i,
                    json.serialize(dynamic.toBuilder().payload(new Details("operator", i)).build()));
        }
        for (int i = 0; i < 10; i++) {
            String path = "/adopt/s/d" + i;
            // Adopted: the registration writes the same bytes back (its re-creation data), so the version moves on.
            await().untilAsserted(() -> assertThat(observer.checkExists().forPath(path).getVersion())
                    .as(path).isGreaterThanOrEqualTo(2));
            assertThat(json.deserialize(observer.getData().forPath(path)).getPayload())
                    .isEqualTo(new Details("operator", i));
        }
        // The node a previous run left behind is taken over with this registration's data, never adopted.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> mine.equals(discovery.queryForInstance("s", "static")));
    }

    @Test
    void closeLeavesNoNodeWatchListenerOrThread() throws Exception {
        Set<Thread> threadsBefore = Set.copyOf(Thread.getAllStackTraces().keySet());
        int watchesBefore = zk.server().watchCount();
        ServiceDiscovery<Details> discovery = ServiceDiscoveryBuilder.builder(Details.class).client(client)
                .basePath("/clean").watchInstances(true).build();
        discovery.start();
        discovery.registerService(instance("s", "one", ServiceType.DYNAMIC));
        discovery.registerService(instance("s", "two", ServiceType.STATIC));
        ServiceCache<Details> cache = discovery.serviceCacheBuilder().name("s").build();
        cache.addListener(() -> { });
        cache.start();
        ServiceProvider<Details> provider = discovery.serviceProviderBuilder().serviceName("s").build();
        provider.start();
        assertThat(provider.getInstance()).isNotNull();
        assertThat(zk.server().watchCount()).isGreaterThan(watchesBefore);

        discovery.close(); // closes the cache and the provider too
        await().until(() -> { // the emptied service node is a container: the server may remove it too
            Stat service = observer.checkExists().forPath("/clean/s");
            return service == null || service.getNumChildren() == 0;
        });
        await().untilAsserted(() -> assertThat(zk.server().watchCount()).isEqualTo(watchesBefore));
        assertThat(cache.getInstances()).isEmpty();
        assertThatThrownBy(provider::getInstance).isInstanceOf(IllegalStateException.class);
        assertThat(Thread.getAllStackTraces().keySet()).filteredOn(t -> !threadsBefore.contains(t))
                .filteredOn(Thread::isAlive).extracting(Thread::getName)
                // Awaitility's own thread (the awaits above) may not have ended yet; it is the test's, not Baton's.
                .noneMatch(name -> !name.startsWith("ForkJoinPool") && !name.startsWith("NIOWorker")
                        && !name.startsWith("awaitility"));
    }

    @Test
    void lifecycleAndBadInput() throws Exception {
        assertThatThrownBy(() -> ServiceDiscoveryBuilder.builder(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("payloadClass");
        ServiceDiscoveryBuilder<Details> builder = ServiceDiscoveryBuilder.builder(Details.class);
        assertThatThrownBy(() -> builder.basePath("services")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("basePath").hasMessageContaining("services");
        assertThatThrownBy(() -> builder.basePath("/a//b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.basePath("/a/")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.basePath(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("basePath");
        assertThatThrownBy(() -> builder.client(null)).isInstanceOf(NullPointerException.class).hasMessage("client");
        assertThatThrownBy(builder::build).isInstanceOf(NullPointerException.class).hasMessage("client");
        builder.client(client);
        assertThatThrownBy(() -> builder.client(client)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(builder::build).isInstanceOf(NullPointerException.class).hasMessage("basePath");

        ServiceDiscovery<Details> discovery = discovery("/life");
        discovery.start();
        assertThatThrownBy(discovery::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> discovery.registerService(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("instance");
        assertThatThrownBy(() -> discovery.queryForInstances("a/b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> discovery.queryForInstance("a", null)).isInstanceOf(NullPointerException.class)
                .hasMessage("id");
        assertThatThrownBy(() -> discovery.serviceCacheBuilder().build()).isInstanceOf(NullPointerException.class)
                .hasMessage("name");
        assertThatThrownBy(() -> discovery.serviceProviderBuilder().serviceName("")).isInstanceOf(
                IllegalArgumentException.class).hasMessageContaining("serviceName");
        ServiceInstance<Details> x = instance("s", "x", ServiceType.DYNAMIC);
        discovery.registerService(x);
        assertThatThrownBy(() -> discovery.updateService(x.toBuilder().serviceType(ServiceType.STATIC).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("STATIC");
        discovery.close();
        assertThatThrownBy(() -> discovery.registerService(x)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> discovery.queryForNames()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> discovery.serviceCacheBuilder().name("s").build().start())
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aRegistrationThatDoesNotDecodeIsSkippedNotFatal() throws Exception {
        ServiceDiscovery<Details> discovery = discovery("/mixed");
        discovery.start();
        ServiceInstance<Details> good = instance("s", "good", ServiceType.DYNAMIC);
        discovery.registerService(good);
        observer.create().forPath("/mixed/s/garbage", "{not json".getBytes(UTF_8));
        observer.create().forPath("/mixed/s/wrong-payload",
                "{\"name\":\"s\",\"id\":\"wrong-payload\",\"payload\":{\"region\":{\"x\":1}}}".getBytes(UTF_8));
        assertThat(discovery.queryForInstances("s")).containsExactly(good);
        assertThat(discovery.queryForInstance("s", "garbage")).isNull();
        try (ServiceCache<Details> cache = discovery.serviceCacheBuilder().name("s").build()) {
            cache.start();
            assertThat(cache.getInstances()).containsExactly(good);
        }
    }

    @Test
    void registersUnderTheRootAndInANamespace() throws Exception {
        ServiceDiscovery<Details> root = discovery("/");
        root.start();
        ServiceInstance<Details> r = instance("rootsvc", "r", ServiceType.DYNAMIC);
        root.registerService(r);
        assertThat(observer.checkExists().forPath("/rootsvc/r")).isNotNull();
        assertThat(root.queryForInstances("rootsvc")).containsExactly(r);
        root.unregisterService(r);

        BatonClient namespaced = client.usingNamespace("app");
        ServiceDiscovery<Details> inApp = clients.add(ServiceDiscoveryBuilder.builder(Details.class)
                .client(namespaced).basePath("/services").build());
        inApp.start();
        inApp.registerService(r);
        assertThat(observer.checkExists().forPath("/app/services/rootsvc/r")).isNotNull();
    }

    @Test
    void unregisteringWhatIsNotThereIsQuiet() throws KeeperException, InterruptedException {
        ServiceDiscovery<Details> discovery = discovery("/quiet");
        discovery.start();
        discovery.unregisterService(instance("s", "never", ServiceType.DYNAMIC));
        assertThat(observer.checkExists().forPath("/quiet/s/never")).isNull();
    }
}
