package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.state.ConnectionState;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.x.discovery.details.InstanceSerializer;
import org.junit.jupiter.api.Test;

/**
 * Curator complaints about what comes back after a session loss, unregistering, and Jackson; see
 * {@link CuratorComplaints}.
 */
class CuratorComplaintsTest extends CuratorComplaints {

    /**
     * CURATOR-146/181: after a session loss the registration must come back with its latest data: the data of the
     * last {@code updateService}, or with {@code watchInstances} data an operator wrote to the node. Curator 5.9
     * no longer fails this (its {@code updateService} updates what it re-registers since 2.7.1, and its
     * {@code watchInstances} reloads), so here both halves assert the right outcome: Baton keeps Curator's fix.
     */
    @Test
    void curator146And181_latestDataComesBackAfterASessionLoss() throws Exception {
        byte[] operatorsData = new JsonInstanceSerializer<>(Details.class).serialize(
                batonInstance("x", ServiceType.DYNAMIC).toBuilder().payload(new Details("operator", 2)).build());

        CuratorFramework curatorClient = clients.curator(zk.connectString(), SESSION);
        org.apache.curator.x.discovery.ServiceDiscovery<Details> curator = curator(curatorClient, "/c146", true);
        curator.start();
        curator.registerService(curatorInstance("x", org.apache.curator.x.discovery.ServiceType.DYNAMIC));
        await().until(() -> observer.checkExists().forPath("/c146/svc/x") != null);
        observer.setData().forPath("/c146/svc/x", operatorsData);
        long oldSession = sessionOf("/c146/svc/x");
        // Curator is given time to reload (its watch fires within milliseconds).
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> payloadAt("/c146/svc/x").equals(new Details("operator", 2)));
        zk.server().expireSession(curatorClient.getZookeeperClient().getZooKeeper());
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            long owner = sessionOf("/c146/svc/x");
            return owner != -1 && owner != oldSession;
        });
        assertThat(payloadAt("/c146/svc/x")).as("fixed in Curator 5.9").isEqualTo(new Details("operator", 2));

        BatonClient batonClient = clients.baton(SESSION);
        ServiceDiscovery<Details> baton = baton(batonClient, "/b146", true);
        baton.start();
        baton.registerService(batonInstance("x", ServiceType.DYNAMIC));
        observer.setData().forPath("/b146/svc/x", operatorsData);
        long batonSession = sessionOf("/b146/svc/x");
        // Baton adopts the operator's data (it writes the same bytes back to keep them: the version moves on).
        await().until(() -> observer.checkExists().forPath("/b146/svc/x").getVersion() >= 2);
        zk.server().expireSession(batonClient.getZooKeeper());
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            long owner = sessionOf("/b146/svc/x");
            return owner != -1 && owner != batonSession;
        });
        assertThat(payloadAt("/b146/svc/x")).isEqualTo(new Details("operator", 2));

        // And the data of the last updateService comes back too (the original CURATOR-146 scenario).
        baton.updateService(batonInstance("x", ServiceType.DYNAMIC).toBuilder().payload(new Details("v3", 3))
                .build());
        long session2 = sessionOf("/b146/svc/x");
        zk.server().expireSession(batonClient.getZooKeeper());
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            long owner = sessionOf("/b146/svc/x");
            return owner != -1 && owner != session2;
        });
        assertThat(payloadAt("/b146/svc/x")).isEqualTo(new Details("v3", 3));
    }

    /**
     * CURATOR-164: an unregistered instance must never come back. Curator 5.9 re-registers every instance after a
     * reconnection from a loop over its registrations; an instance unregistered while that loop runs is
     * registered again by it. The loop is held at the first instance (by its serializer) while the second is
     * unregistered.
     */
    @Test
    void curator164_anUnregisteredInstanceNeverComesBack() throws Exception {
        // Two ids in the order Curator's map iterates them (the order of a ConcurrentHashMap of the same size).
        Map<String, Boolean> probe = new ConcurrentHashMap<>();
        probe.put("alpha", true);
        probe.put("omega", true);
        List<String> order = new ArrayList<>(probe.keySet());
        String first = order.get(0);
        String second = order.get(1);

        AtomicBoolean holdNext = new AtomicBoolean();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        org.apache.curator.x.discovery.details.JsonInstanceSerializer<Details> json =
                new org.apache.curator.x.discovery.details.JsonInstanceSerializer<>(Details.class);
        InstanceSerializer<Details> holding = new InstanceSerializer<>() {
            @Override
            public byte[] serialize(org.apache.curator.x.discovery.ServiceInstance<Details> instance)
                    throws Exception {
                if (instance.getId().equals(first) && holdNext.compareAndSet(true, false)) {
                    held.countDown();
                    release.await(30, TimeUnit.SECONDS);
                }
                return json.serialize(instance);
            }

            @Override
            public org.apache.curator.x.discovery.ServiceInstance<Details> deserialize(byte[] bytes)
                    throws Exception {
                return json.deserialize(bytes);
            }
        };
        CuratorFramework curatorClient = clients.curator();
        org.apache.curator.x.discovery.ServiceDiscovery<Details> curator = clients.add(
                org.apache.curator.x.discovery.ServiceDiscoveryBuilder.builder(Details.class).client(curatorClient)
                        .basePath("/c164").serializer(holding).build());
        curator.start();
        curator.registerService(curatorInstance(first, org.apache.curator.x.discovery.ServiceType.DYNAMIC));
        org.apache.curator.x.discovery.ServiceInstance<Details> gone =
                curatorInstance(second, org.apache.curator.x.discovery.ServiceType.DYNAMIC);
        curator.registerService(gone);

        holdNext.set(true);
        zk.server().restart(); // the connection drops; on RECONNECTED Curator re-registers everything
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        curator.unregisterService(gone);
        assertThat(observer.checkExists().forPath("/c164/svc/" + second)).isNull();
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(observer.checkExists().forPath("/c164/svc/" + second))
                        .as("Curator brings the unregistered instance back").isNotNull());

        // Baton: unregister during reconnections and a session loss; the instance stays gone.
        BatonClient batonClient = clients.baton(SESSION);
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        batonClient.getConnectionStateListenable().addListener((c, s) -> states.add(s));
        ServiceDiscovery<Details> baton = baton(batonClient, "/b164", false);
        baton.start();
        baton.registerService(batonInstance(first, ServiceType.DYNAMIC));
        ServiceInstance<Details> batonGone = batonInstance(second, ServiceType.DYNAMIC);
        baton.registerService(batonGone);
        zk.server().restart();
        baton.unregisterService(batonGone); // while disconnected: the delete is guaranteed, in the background
        await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.RECONNECTED));
        zk.server().expireSession(batonClient.getZooKeeper());
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(sessionOf("/b164/svc/" + first)).isEqualTo(batonClient.getZooKeeper().getSessionId());
            assertThat(observer.checkExists().forPath("/b164/svc/" + second)).isNull();
        });
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> observer.checkExists().forPath("/b164/svc/" + second) == null);
    }

    /**
     * CURATOR-67: with a serializer of one's own, discovery must not need Jackson (no version clash to suffer).
     * Both run in a class loader that has every test jar but Jackson's. Curator fixed this in 2.6.0 (the default
     * serializer is made only when none is given), so its half passes too; Baton's default serializer is the only
     * class that touches Jackson.
     */
    @Test
    void curator67_aSerializerOfOnesOwnNeedsNoJackson() throws Exception {
        try (URLClassLoader noJackson = new URLClassLoader(classPathWithout("jackson"),
                ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> noJackson.loadClass("com.fasterxml.jackson.databind.ObjectMapper"))
                    .isInstanceOf(ClassNotFoundException.class);
            Class<?> probe = noJackson.loadClass(NoJacksonProbe.class.getName());
            assertThat(probe.getMethod("baton", String.class).invoke(null, zk.connectString())).isEqualTo("h");
            assertThat(probe.getMethod("curator", String.class).invoke(null, zk.connectString())).isEqualTo("h");
        }
    }
}
