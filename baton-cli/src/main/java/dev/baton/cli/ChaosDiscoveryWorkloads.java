package dev.baton.cli;

import static dev.baton.cli.ChaosWorkloads.releaseQuietly;

import dev.baton.BatonClient;
import dev.baton.cli.ChaosWorkloads.Context;
import dev.baton.cli.ChaosWorkloads.Workload;
import dev.baton.discovery.ServiceDiscovery;
import dev.baton.discovery.ServiceDiscoveryBuilder;
import dev.baton.discovery.ServiceInstance;
import dev.baton.testing.History;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * The service discovery workload of a chaos client, on either library's service discovery: each client registers
 * one instance of one service and keeps querying the service. See {@link ChaosWorkloads}.
 */
final class ChaosDiscoveryWorkloads {
    /** The one service every client registers with. */
    static final String SERVICE = "chaos";

    private ChaosDiscoveryWorkloads() {
    }

    /** One client's service discovery, of either library. */
    interface Registry {
        /** Registers the instance {@code id} of {@link #SERVICE}, kept until {@link #close()}. */
        void register(String id) throws Exception;

        /** Returns the ids of the service's instances registered now. */
        List<String> query() throws Exception;

        /** Unregisters this client's instance and closes. */
        void close() throws Exception;
    }

    /** Opens the service discovery under a base path, of either library. */
    @FunctionalInterface
    interface Registries {
        Registry open(String basePath) throws Exception;
    }

    /** Baton's {@link ServiceDiscovery}. */
    static Registries baton(BatonClient client) {
        return basePath -> {
            ServiceDiscovery<String> discovery = ServiceDiscoveryBuilder.builder(String.class).client(client)
                    .basePath(basePath).build();
            discovery.start();
            return new Registry() {
                @Override
                public void register(String id) throws InterruptedException {
                    discovery.registerService(ServiceInstance.<String>builder().name(SERVICE).id(id)
                            .address("127.0.0.1").port(8080).payload(id).build());
                }

                @Override
                public List<String> query() throws KeeperException, InterruptedException {
                    return discovery.queryForInstances(SERVICE).stream().map(ServiceInstance::getId).toList();
                }

                @Override
                public void close() {
                    discovery.close();
                }
            };
        };
    }

    /**
     * A service discovery whose queries lose an instance: the last of the answer, in id order. The
     * {@code discovery-finds-live} checker must catch it.
     */
    static Registries broken(Registries real) {
        return basePath -> {
            Registry registry = real.open(basePath);
            return new Registry() {
                @Override
                public void register(String id) throws Exception {
                    registry.register(id);
                }

                @Override
                public List<String> query() throws Exception {
                    List<String> found = registry.query().stream().sorted().toList();
                    return found.isEmpty() ? found : found.subList(0, found.size() - 1);
                }

                @Override
                public void close() throws Exception {
                    registry.close();
                }
            };
        };
    }

    /**
     * {@code discovery}: each client registers an instance named after itself, confirms now and then that its
     * registration is on the server (a sync, then a read of its node; begun as an enter, confirmed as a hold),
     * and queries the service again and again (a sync, then the query), recording what it found. The checker wants
     * every instance whose owner was in touch throughout a query to be in that query's answer.
     */
    static final class DiscoveryWorkload<C> extends Workload<C> {
        private final Registries registries;
        private volatile @Nullable Registry registry; // null until started

        DiscoveryWorkload(Context<C> ctx, String name, Registries registries) {
            super(ctx, name);
            this.registries = registries;
        }

        @Override
        void start() throws Exception {
            String id = ctx.recorder().client();
            String own = path(name) + "/" + SERVICE + "/" + id;
            Registry r = registries.open(path(name));
            registry = r;
            r.register(id);
            spawn("owner", () -> {
                try {
                    // Begun, then confirmed: a disconnection recorded in between voids the confirmation.
                    ctx.recorder().enterCalled(name);
                    ctx.nodes().sync(own);
                    ctx.nodes().read(own);
                    ctx.recorder().acquired(name, History.NO_TOKEN);
                } catch (InterruptedException e) {
                    running = false;
                    return;
                } catch (Exception e) {
                    // not there (yet), or not connected: no confirmation this time
                }
                pause(200, 400);
            });
            spawn("reader", () -> {
                ctx.recorder().invoked(name, "query");
                try {
                    ctx.nodes().sync(path(name));
                    List<String> found = r.query().stream().sorted().toList();
                    ctx.recorder().ok(name, "query", String.join(",", found));
                } catch (InterruptedException e) {
                    ctx.recorder().failed(name, "query");
                    running = false;
                    return;
                } catch (Exception e) {
                    ctx.recorder().failed(name, "query"); // a read: nothing took effect
                    pause(100, 300);
                }
                pause(50, 200);
            });
        }

        @Override
        void stop() throws InterruptedException {
            super.stop();
            Registry r = registry;
            if (r != null) {
                ctx.recorder().released(name, History.NO_TOKEN);
                releaseQuietly(r::close);
            }
        }
    }
}
