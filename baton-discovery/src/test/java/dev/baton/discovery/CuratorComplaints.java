package dev.baton.discovery;

import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.File;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One regression test per long-standing complaint about Curator's discovery, in two classes that run side by side
 * ({@link CuratorComplaintsTest}, {@link CuratorRegistrationComplaintsTest}). Each runs the scenario on Curator
 * 5.9's curator-x-discovery, asserts the failure users reported, then runs it on Baton and asserts the right
 * outcome. This class holds their server, clients and helpers.
 */
@Timeout(120)
@Tag("slow")
abstract class CuratorComplaints {
    static final Duration SESSION = Duration.ofSeconds(4);

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    Clients clients;
    BatonClient observer;

    @BeforeEach
    void setUp() throws InterruptedException {
        clients = new Clients(zk.connectString());
        observer = clients.baton();
    }

    @AfterEach
    void tearDown() {
        clients.close();
    }

    ServiceDiscovery<Details> baton(BatonClient client, String base, boolean watchInstances) {
        return clients.add(ServiceDiscoveryBuilder.builder(Details.class).client(client).basePath(base)
                .watchInstances(watchInstances).build());
    }

    org.apache.curator.x.discovery.ServiceDiscovery<Details> curator(CuratorFramework client, String base,
            boolean watchInstances) {
        return clients.add(org.apache.curator.x.discovery.ServiceDiscoveryBuilder.builder(Details.class)
                .client(client).basePath(base).watchInstances(watchInstances).build());
    }

    static ServiceInstance<Details> batonInstance(String id, ServiceType type) {
        return ServiceInstance.<Details>builder().name("svc").id(id).address("127.0.0.1").port(7000)
                .serviceType(type).payload(new Details("first", 1)).build();
    }

    static org.apache.curator.x.discovery.ServiceInstance<Details> curatorInstance(String id,
            org.apache.curator.x.discovery.ServiceType type) throws Exception {
        return org.apache.curator.x.discovery.ServiceInstance.<Details>builder().name("svc").id(id)
                .address("127.0.0.1").port(7000).serviceType(type).payload(new Details("first", 1)).build();
    }

    long sessionOf(String path) throws Exception {
        Stat stat = observer.checkExists().forPath(path);
        return stat == null ? -1 : stat.getEphemeralOwner();
    }

    Details payloadAt(String path) throws Exception {
        return new JsonInstanceSerializer<>(Details.class).deserialize(observer.getData().forPath(path)).getPayload();
    }

    /** True if the node does not exist at any check during the whole time. */
    boolean neverAppearsWithin(Duration time, String path) {
        try {
            await().during(time).atMost(time.plusSeconds(2))
                    .until(() -> observer.checkExists().forPath(path) == null);
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    static List<String> newThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t) && t.isAlive())
                .map(Thread::getName).filter(name -> !name.startsWith("NIOWorker")).toList();
    }

    /** The test class path (expanded from surefire's manifest-only jar), less the jars whose name has {@code skip}. */
    static URL[] classPathWithout(String skip) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            if (entry.endsWith(".jar") && path.getFileName().toString().startsWith("surefirebooter")) {
                try (JarFile jar = new JarFile(path.toFile())) {
                    String classPath = jar.getManifest().getMainAttributes().getValue("Class-Path");
                    for (String url : classPath.trim().split("\\s+")) {
                        urls.add(new URL(path.toUri().toURL(), url));
                    }
                }
            } else {
                urls.add(path.toUri().toURL());
            }
        }
        return urls.stream().filter(u -> !u.getPath().contains(skip)).toArray(URL[]::new);
    }

}
