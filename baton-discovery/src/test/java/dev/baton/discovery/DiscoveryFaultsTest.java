package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryNTimes;
import dev.baton.testing.ClientLink;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Discovery under faults on a real 3-server ensemble (separate JVMs; the registrant behind its own proxies):
 * the registrant's server killed, its session expired on the server, it partitioned past its session. Its
 * registration comes back with the latest data (an update made while it was cut off included), and a Baton and a
 * Curator cache on another client converge on it.
 */
@Timeout(180)
@Tag("fault")
class DiscoveryFaultsTest {
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Pattern REMOTE_PORT = Pattern.compile("remoteserver:[^ ]*:(\\d+)");
    private static final String PATH = "/faults/svc/a";

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();

    private Clients clients;
    private ClientLink link;
    private BatonClient registrantClient;
    private ServiceDiscovery<Details> registrant;
    private BatonClient observer;
    private ServiceCache<Details> batonCache;
    private org.apache.curator.x.discovery.ServiceCache<Details> curatorCache;
    private ServiceInstance<Details> instance;

    @BeforeEach
    void setUp() throws Exception {
        clients = new Clients(zk.connectString());
        link = zk.newClientLink();
        registrantClient = clients.add(Baton.builder().connectString(link.connectString()).sessionTimeout(SESSION)
                .connectionTimeout(Duration.ofSeconds(2)).retryPolicy(new RetryNTimes(3, 200))
                .ensembleTracker(false).build());
        registrantClient.start();
        assertThat(registrantClient.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
        registrant = clients.add(ServiceDiscoveryBuilder.builder(Details.class).client(registrantClient)
                .basePath("/faults").build());
        registrant.start();
        instance = ServiceInstance.<Details>builder().name("svc").id("a").address("127.0.0.1").port(7000)
                .payload(new Details("v1", 1)).build();
        registrant.registerService(instance);
        instance = update(2);

        observer = clients.baton(Duration.ofSeconds(20));
        ServiceDiscovery<Details> reader = clients.add(ServiceDiscoveryBuilder.builder(Details.class)
                .client(observer).basePath("/faults").build());
        reader.start();
        batonCache = clients.add(reader.serviceCacheBuilder().name("svc").build());
        batonCache.start();
        org.apache.curator.x.discovery.ServiceDiscovery<Details> curator = clients.add(
                org.apache.curator.x.discovery.ServiceDiscoveryBuilder.builder(Details.class)
                        .client(clients.curator(zk.connectString(), Duration.ofSeconds(20))).basePath("/faults")
                        .build());
        curator.start();
        curatorCache = clients.add(curator.serviceCacheBuilder().name("svc").build());
        curatorCache.start();
        assertConverged(2);
    }

    @AfterEach
    void tearDown() {
        clients.close();
    }

    private ServiceInstance<Details> update(int version) throws Exception {
        ServiceInstance<Details> next = instance.toBuilder().payload(new Details("v" + version, version)).build();
        registrant.updateService(next); // deferred, not failed, while the registrant is cut off
        return next;
    }

    private long owner() throws Exception {
        Stat stat = observer.checkExists().forPath(PATH);
        return stat == null ? -1 : stat.getEphemeralOwner();
    }

    /** The registration is on the server with this version's data, owned by the live session; caches agree. */
    private void assertConverged(int version) {
        Details latest = new Details("v" + version, version);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(owner()).isEqualTo(registrantClient.getZooKeeper().getSessionId());
            assertThat(new JsonInstanceSerializer<>(Details.class).deserialize(observer.getData().forPath(PATH))
                    .getPayload()).isEqualTo(latest);
            assertThat(batonCache.getInstances()).extracting(ServiceInstance::getPayload).containsExactly(latest);
            assertThat(curatorCache.getInstances()).extracting(i -> i.getPayload()).containsExactly(latest);
        });
    }

    private int registrantsServer() {
        Matcher m = REMOTE_PORT.matcher(registrantClient.getZooKeeper().toString());
        assertThat(m.find()).isTrue();
        int port = Integer.parseInt(m.group(1));
        return link.serverIds().stream().filter(id -> link.proxy(id).port() == port).findFirst().orElseThrow();
    }

    @Test
    void registrantsServerKilled() throws Exception {
        int server = registrantsServer();
        zk.ensemble().kill(server);
        instance = update(3); // made while the registrant looks for another server
        // The session lives on unless the killed server led the ensemble and the election outlasted it: either
        // way the registration is there again, with the update.
        await().atMost(Duration.ofSeconds(30)).until(() -> registrantClient.isConnected());
        assertConverged(3);
        zk.ensemble().start(server);
    }

    @Test
    void registrantsSessionExpiredOnTheServer() throws Exception {
        long session = registrantClient.getZooKeeper().getSessionId();
        zk.ensemble().expireSession(registrantClient.getZooKeeper());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> registrantClient.isConnected() && registrantClient.getZooKeeper().getSessionId() != session);
        assertConverged(2);
        instance = update(3);
        assertConverged(3);
    }

    @Test
    void registrantPartitionedPastItsSession() throws Exception {
        long session = registrantClient.getZooKeeper().getSessionId();
        link.partition(TcpProxy.Mode.BLACKHOLE);
        instance = update(3);
        // The session ends on the server: the instance leaves every cache.
        await().atMost(SESSION.plusSeconds(10)).untilAsserted(() -> {
            assertThat(owner()).isEqualTo(-1);
            assertThat(batonCache.getInstances()).isEmpty();
            assertThat(curatorCache.getInstances()).isEmpty();
        });
        link.heal();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> registrantClient.isConnected() && registrantClient.getZooKeeper().getSessionId() != session);
        assertConverged(3);
        assertThat(registrant.queryForInstances("svc")).extracting(ServiceInstance::getPayload)
                .isEqualTo(List.of(new Details("v3", 3)));
    }
}
