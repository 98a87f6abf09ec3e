package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.discovery.ServiceCache;
import dev.baton.discovery.ServiceDiscovery;
import dev.baton.discovery.ServiceDiscoveryBuilder;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceProvider;
import dev.baton.discovery.UriSpec;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * {@code baton demo discovery}: three instances of a service register, each on its own client; a provider on
 * another client round-robins over what is live while one instance is stopped and another is cut off from
 * ZooKeeper past its session and comes back, registered again with its latest data.
 *
 * <p>Steps: register {@code orders-1..3} under {@code /demo-discovery} (the third through a TCP proxy, so that it
 * can be cut off); start a cache and a provider; hand out six instances; stop {@code orders-1}; update
 * {@code orders-3} and cut it off (its session expires, its instance leaves the cache); heal (it comes back with the
 * update); hand out six again; clean up.
 */
final class DiscoveryDemo implements Demo {

    static final String BASE = "/demo-discovery";
    private static final String SERVICE = "orders";
    private static final Duration SESSION = Duration.ofSeconds(3);
    private static final Duration STEP = Duration.ofMillis(800);

    @Override
    public String name() {
        return "discovery";
    }

    @Override
    public String description() {
        return "three instances register; one stops, one is cut off past its session and comes back; a provider"
                + " round-robins over what is live";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        BatonClient watcher = connect(ctx, ctx.connectString(), Duration.ofSeconds(30));
        if (watcher.checkExists().forPath(BASE) != null) {
            throw new DemoException(BASE + " already exists on " + ctx.connectString()
                    + " (left from an earlier run?); delete it and try again");
        }
        TcpProxy proxy = ctx.closeOnExit(TcpProxy.start("orders-3", port(ctx.connectString())));
        List<ServiceDiscovery<Map<String, Object>>> registrants = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            String connect = i == 3 ? proxy.address() : ctx.connectString();
            BatonClient client = connect(ctx, connect, SESSION);
            ServiceInstance<Map<String, Object>> instance = ServiceInstance.<Map<String, Object>>builder()
                    .name(SERVICE).id(SERVICE + "-" + i).address("10.0.0." + i).port(8080)
                    .uriSpec(new UriSpec("{scheme}://{address}:{port}"))
                    .payload(Map.of("version", "1.0", "zone", "zone-" + (char) ('a' + i - 1))).build();
            ServiceDiscovery<Map<String, Object>> discovery = ctx.closeOnExit(ServiceDiscoveryBuilder
                    .builder(payloadClass()).client(client).basePath(BASE).thisInstance(instance).build());
            discovery.start();
            ctx.log("register", "%s at %s %s%s", instance.getId(), instance.buildUriSpec(), instance.getPayload(),
                    i == 3 ? " (through a proxy we can cut)" : "");
            registrants.add(discovery);
        }

        ServiceDiscovery<Map<String, Object>> finder = ctx.closeOnExit(ServiceDiscoveryBuilder
                .builder(payloadClass()).client(watcher).basePath(BASE).build());
        finder.start();
        Recorder<String> live = new Recorder<>();
        ServiceCache<Map<String, Object>> cache = ctx.closeOnExit(finder.serviceCacheBuilder().name(SERVICE).build());
        cache.addListener(() -> {
            String ids = ids(cache.getInstances());
            ctx.log("cache", "live: [%s]", ids);
            live.record(ids);
        });
        cache.start();
        ctx.log("cache", "live: [%s] (initial load)", ids(cache.getInstances()));
        ServiceProvider<Map<String, Object>> provider = ctx.closeOnExit(
                finder.serviceProviderBuilder().serviceName(SERVICE).build());
        provider.start();
        ctx.pause(STEP);
        handOut(ctx, provider, "orders-1, orders-2, orders-3");

        ctx.pause(STEP);
        ctx.log("stop", "orders-1 closes its discovery: its registration is deleted");
        int mark = live.mark();
        registrants.get(0).close();
        live.await(mark, "orders-2, orders-3"::equals, DemoContext.AWAIT_TIMEOUT, "orders-1 to leave the cache");
        handOut(ctx, provider, "orders-2, orders-3");

        ctx.pause(STEP);
        ServiceInstance<Map<String, Object>> three = finder.queryForInstance(SERVICE, "orders-3");
        ServiceInstance<Map<String, Object>> updated = three.toBuilder()
                .payload(Map.of("version", "1.1", "zone", "zone-c")).build();
        registrants.get(2).updateService(updated);
        ctx.log("update", "orders-3 now says %s", updated.getPayload());
        ctx.log("cut", "orders-3 is cut off from ZooKeeper (its session times out in %d s)", SESSION.toSeconds());
        mark = live.mark();
        proxy.partition(TcpProxy.Mode.BLACKHOLE);
        live.await(mark, "orders-2"::equals, DemoContext.AWAIT_TIMEOUT, "orders-3's session to expire");
        ctx.log("cut", "its session expired on the server: the ephemeral registration is gone");
        handOut(ctx, provider, "orders-2");

        ctx.pause(STEP);
        ctx.log("heal", "orders-3 reaches ZooKeeper again: a new session, and its registration is re-created");
        mark = live.mark();
        proxy.heal();
        live.await(mark, "orders-2, orders-3"::equals, DemoContext.AWAIT_TIMEOUT, "orders-3 to come back");
        ctx.log("back", "orders-3 is registered with %s (its latest data)",
                finder.queryForInstance(SERVICE, "orders-3").getPayload());
        handOut(ctx, provider, "orders-2, orders-3");

        cache.close();
        registrants.forEach(ServiceDiscovery::close);
        watcher.delete().deletingChildrenIfNeeded().forPath(BASE);
        ctx.log("done", "registrations closed; %s deleted", BASE);
    }

    /**
     * Hands out six instances once the provider's own cache holds {@code live} (it follows the server on its own,
     * a moment apart from the cache that printed the change).
     */
    private static void handOut(DemoContext ctx, ServiceProvider<Map<String, Object>> provider, String live)
            throws DemoException {
        long deadline = System.nanoTime() + DemoContext.AWAIT_TIMEOUT.toNanos();
        while (!ids(List.copyOf(provider.getAllInstances())).equals(live)) {
            if (System.nanoTime() - deadline > 0) {
                throw new DemoException("the provider did not see [" + live + "] within "
                        + DemoContext.AWAIT_TIMEOUT.toSeconds() + " s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        List<String> picks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ServiceInstance<Map<String, Object>> pick = provider.getInstance();
            picks.add(pick == null ? "none" : pick.getId());
        }
        ctx.log("provider", "round robin: %s", String.join(" ", picks));
    }

    private static String ids(List<ServiceInstance<Map<String, Object>>> instances) {
        return instances.stream().map(ServiceInstance::getId).collect(Collectors.joining(", "));
    }

    // A class object has no type arguments; the JSON payloads are maps of this type.
    @SuppressWarnings("unchecked")
    private static Class<Map<String, Object>> payloadClass() {
        return (Class<Map<String, Object>>) (Class<?>) Map.class;
    }

    private static BatonClient connect(DemoContext ctx, String connect, Duration session)
            throws InterruptedException, DemoException {
        // A client through the proxy must stay on it: were it to follow the ensemble's own list of client ports
        // (an ensemble's /zookeeper/config names them), cutting the proxy would not cut it off.
        BatonClient client = ctx.closeOnExit(Baton.builder().connectString(connect).sessionTimeout(session)
                .connectionTimeout(Duration.ofSeconds(2)).retryPolicy(new ExponentialBackoffRetry(250, 5))
                .ensembleTracker(false).build());
        client.start();
        if (!client.blockUntilConnected(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            throw new DemoException("could not connect to " + connect);
        }
        return client;
    }

    private static int port(String connectString) throws DemoException {
        String first = connectString.split(",", 2)[0];
        int colon = first.lastIndexOf(':');
        try {
            return Integer.parseInt(first.substring(colon + 1).replaceAll("/.*", ""));
        } catch (RuntimeException e) {
            throw new DemoException("the discovery demo needs host:port, not \"" + connectString + "\"");
        }
    }
}
