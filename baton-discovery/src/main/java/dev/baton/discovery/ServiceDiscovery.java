package dev.baton.discovery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.Lifecycle;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.state.ConnectionState;
import dev.baton.state.ConnectionStateListener;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers service instances and finds them, on Curator's layout: {@code <basePath>/<name>/<id>}, each node
 * holding the instance as its {@link InstanceSerializer} writes it (Curator's JSON by default). Baton and Curator
 * ({@code curator-x-discovery}, Spring Cloud Zookeeper) processes on one base path see each other's instances.
 * Made by {@link ServiceDiscoveryBuilder}.
 *
 * <pre>{@code
 * try (ServiceDiscovery<Details> discovery = ServiceDiscoveryBuilder.builder(Details.class)
 *         .client(client).basePath("/services").thisInstance(me).build()) {
 *     discovery.start();                                     // registers `me`
 *     Collection<ServiceInstance<Details>> orders = discovery.queryForInstances("orders");
 * }
 * }</pre>
 *
 * <h2>Registrations</h2>
 * A registration stays on the server, with its latest data, until it is unregistered: a {@link ServiceType#DYNAMIC}
 * one (an ephemeral node) is created again after its session ended, with the data of the last
 * {@link #updateService} (Curator could bring back the first data: CURATOR-146/181); a reconnection within the
 * session leaves the node alone (Curator deletes and re-creates it on every reconnection, so caches see the
 * instance go and come back: CURATOR-320); an unregistered instance never comes back (CURATOR-164); a registration
 * made while ZooKeeper cannot be reached is made once it can (CURATOR-175); {@link ServiceType#PERMANENT}
 * registrations survive {@link #close()} (CURATOR-94).
 *
 * <h2>Queries</h2>
 * Queries read the server each time (a {@link ServiceCache} or {@link ServiceProvider} keeps a local copy instead).
 * A registration whose data does not decode (a payload of another class, say) is skipped with a logged warning,
 * not a failure of the whole query. The reads of one query are pipelined: one round trip for all instances.
 *
 * <p>Thread-safe. No thread of its own: registrations, caches and providers are driven by ZooKeeper callbacks.
 *
 * @param <T> the payload's type
 */
public final class ServiceDiscovery<T> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceDiscovery.class);

    private final BatonClient client;
    private final String basePath;
    private final InstanceSerializer<T> serializer;
    private final @Nullable ServiceInstance<T> thisInstance;
    private final boolean watchInstances;
    private final Lifecycle state = new Lifecycle("ServiceDiscovery");
    private final Map<String, Registration<T>> registrations = new ConcurrentHashMap<>();
    private final Set<AutoCloseable> opened = ConcurrentHashMap.newKeySet();
    /** The watch on each service some started cache follows. */
    @GuardedBy("watches")
    private final Map<String, ServiceWatch<T>> watches = new HashMap<>();
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;

    ServiceDiscovery(BatonClient client, String basePath, InstanceSerializer<T> serializer,
            @Nullable ServiceInstance<T> thisInstance, boolean watchInstances) {
        this.client = client;
        this.basePath = basePath;
        this.serializer = serializer;
        this.thisInstance = thisInstance;
        this.watchInstances = watchInstances;
    }

    /**
     * Starts: registers {@code thisInstance}, if one was given, as {@link #registerService} does.
     *
     * @throws InterruptedException if interrupted while waiting for the registration
     * @throws IllegalStateException if already started or closed
     */
    public void start() throws InterruptedException {
        state.start();
        client.getConnectionStateListenable().addListener(connectionListener);
        if (thisInstance != null) {
            registerService(thisInstance);
        }
    }

    /**
     * Registers an instance at {@code <basePath>/<name>/<id>} and keeps it there until
     * {@link #unregisterService} (or {@link #close()}, except for {@link ServiceType#PERMANENT}). Waits until the
     * node is on the server, at most the client's session timeout: if the server cannot be reached in that time
     * it returns anyway, and the registration is made as soon as it can be. Registering an id again replaces that
     * registration's data, as {@link #updateService} does.
     *
     * @param instance the instance
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code instance} is null
     * @throws IllegalArgumentException if the serializer cannot write the instance
     * @throws IllegalStateException if closed
     */
    public void registerService(ServiceInstance<T> instance) throws InterruptedException {
        Objects.requireNonNull(instance, "instance");
        checkNotClosed();
        byte[] bytes = serializer.serialize(instance);
        client.getConnectionStateListenable().addListener(connectionListener); // once: a listener is added once
        Registration<T> registration;
        synchronized (registrations) {
            Registration<T> existing = registrations.get(instance.getId());
            if (existing != null && existing.type() == instance.getServiceType()
                    && existing.instance().getName().equals(instance.getName())) {
                registration = null;
            } else {
                if (existing != null) {
                    registrations.remove(instance.getId());
                    existing.abandon();
                }
                registration = new Registration<>(client, serializer, pathFor(instance), instance, bytes,
                        watchInstances);
                registrations.put(instance.getId(), registration);
            }
        }
        if (registration == null) {
            try {
                updateService(instance);
            } catch (KeeperException e) {
                LOG.warn("ServiceDiscovery: re-registering {} failed; its node keeps the data it had",
                        instance.getId(), e);
            }
            return;
        }
        if (!registration.start(client.getSessionTimeout())) {
            LOG.info("ServiceDiscovery: {} is not registered yet (ZooKeeper cannot be reached); it will be as soon"
                    + " as it can", pathFor(instance));
        }
    }

    /**
     * Replaces the data of an instance registered by this object: on the server now, and in every later
     * re-creation of its node. If the server cannot be reached now, the data is written on reconnecting.
     *
     * @param instance the instance, with the id (and name and service type) of a registered one
     * @throws KeeperException if the server refused the write
     * @throws InterruptedException if interrupted while waiting for the write
     * @throws NullPointerException if {@code instance} is null
     * @throws IllegalArgumentException if no instance with that id is registered here, or the name or service type
     *         differs from the registered one's
     * @throws IllegalStateException if closed
     */
    public void updateService(ServiceInstance<T> instance) throws KeeperException, InterruptedException {
        Objects.requireNonNull(instance, "instance");
        checkNotClosed();
        Registration<T> registration = registrations.get(instance.getId());
        if (registration == null) {
            throw new IllegalArgumentException("instance " + instance.getId() + " is not registered here");
        }
        ServiceInstance<T> registered = registration.instance();
        if (!registered.getName().equals(instance.getName()) || registered.getServiceType() != instance.getServiceType()) {
            throw new IllegalArgumentException("instance " + instance.getId() + " is registered as "
                    + registered.getName() + "/" + registered.getServiceType() + ", not " + instance.getName() + "/"
                    + instance.getServiceType());
        }
        registration.update(instance, serializer.serialize(instance));
    }

    /**
     * Unregisters an instance: deletes its node, and nothing brings it back. An instance registered here stops
     * being kept; one registered elsewhere (a {@link ServiceType#PERMANENT} one, say) is deleted all the same. The
     * delete is retried in the background until it succeeds if the server cannot be reached now.
     *
     * @param instance the instance (its name and id are used)
     * @throws KeeperException if the server refused the delete
     * @throws InterruptedException if interrupted while waiting for the delete
     * @throws NullPointerException if {@code instance} is null
     * @throws IllegalStateException if closed
     */
    public void unregisterService(ServiceInstance<T> instance) throws KeeperException, InterruptedException {
        Objects.requireNonNull(instance, "instance");
        checkNotClosed();
        Registration<T> registration;
        synchronized (registrations) {
            registration = registrations.remove(instance.getId());
        }
        if (registration != null) {
            registration.remove();
        } else if (client.isConnected()) {
            client.delete().guaranteed().quietly().forPath(pathFor(instance));
        } else {
            client.delete().guaranteed().quietly().forPathAsync(pathFor(instance)).exceptionally(e -> null);
        }
    }

    /**
     * {@return the names of the services under the base path, sorted; empty if the base path does not exist}
     *
     * @throws KeeperException if the read failed
     * @throws InterruptedException if interrupted
     * @throws IllegalStateException if closed
     */
    public Collection<String> queryForNames() throws KeeperException, InterruptedException {
        checkNotClosed();
        try {
            List<String> names = new ArrayList<>(client.getChildren().forPath(basePath));
            names.sort(null);
            return names;
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /**
     * Reads every registered instance of a service, in one pipelined round of reads.
     *
     * @param name the service's name
     * @return the instances that decode, sorted by id; empty if there are none
     * @throws KeeperException if a read failed
     * @throws InterruptedException if interrupted
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is not a znode name
     * @throws IllegalStateException if closed
     */
    public Collection<ServiceInstance<T>> queryForInstances(String name) throws KeeperException, InterruptedException {
        Names.requireNodeName(name, "name");
        checkNotClosed();
        String servicePath = BatonPaths.makePath(basePath, name);
        List<String> ids;
        try {
            ids = client.getChildren().forPath(servicePath);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
        List<CompletableFuture<ServiceInstance<T>>> reads = new ArrayList<>(ids.size());
        for (String id : ids) {
            String path = BatonPaths.makePath(servicePath, id);
            reads.add(client.getData().forPathAsync(path).handle((bytes, error) -> {
                if (error != null) {
                    if (Failures.code(error) == KeeperException.Code.NONODE) {
                        return null; // unregistered meanwhile
                    }
                    throw Failures.asCompletion(error);
                }
                return decode(path, bytes);
            }));
        }
        List<ServiceInstance<T>> instances = new ArrayList<>(ids.size());
        for (CompletableFuture<ServiceInstance<T>> read : reads) {
            ServiceInstance<T> instance = Failures.await(read);
            if (instance != null) {
                instances.add(instance);
            }
        }
        instances.sort(Comparator.comparing(ServiceInstance::getId));
        return instances;
    }

    /**
     * {@return the instance, or null if it is not registered or its data does not decode}
     *
     * @param name the service's name
     * @param id the instance's id
     * @throws KeeperException if the read failed
     * @throws InterruptedException if interrupted
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the name or the id is not a znode name
     * @throws IllegalStateException if closed
     */
    public @Nullable ServiceInstance<T> queryForInstance(String name, String id) throws KeeperException, InterruptedException {
        Names.requireNodeName(name, "name");
        Names.requireNodeName(id, "id");
        checkNotClosed();
        String path = BatonPaths.makePath(BatonPaths.makePath(basePath, name), id);
        try {
            return decode(path, client.getData().forPath(path));
        } catch (KeeperException.NoNodeException e) {
            return null;
        }
    }

    /** {@return a builder of a {@link ServiceCache} of one service's instances, closed with this discovery} */
    public ServiceCacheBuilder<T> serviceCacheBuilder() {
        return new ServiceCacheBuilder<>(this);
    }

    /** {@return a builder of a {@link ServiceProvider} of one service, closed with this discovery} */
    public ServiceProviderBuilder<T> serviceProviderBuilder() {
        return new ServiceProviderBuilder<>(this);
    }

    /**
     * Stops: closes the caches and providers made from this discovery, and ends its registrations: deletes their
     * nodes (in the background, retrying, if the server cannot be reached now), except those of
     * {@link ServiceType#PERMANENT} registrations, which stay. Closing twice does nothing.
     */
    @Override
    public void close() {
        if (state.close() == Lifecycle.State.CLOSED) {
            return;
        }
        for (AutoCloseable closeable : List.copyOf(opened)) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.warn("ServiceDiscovery: closing {} failed", closeable, e);
            }
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        List<Registration<T>> ended;
        synchronized (registrations) {
            ended = List.copyOf(registrations.values());
            registrations.clear();
        }
        ended.forEach(Registration::abandon);
    }

    // ---------------------------------------------------------------------------------------------------------

    BatonClient client() {
        return client;
    }

    String basePath() {
        return basePath;
    }

    void opened(AutoCloseable closeable) {
        checkNotClosed();
        opened.add(closeable);
    }

    void closed(AutoCloseable closeable) {
        opened.remove(closeable);
    }

    /**
     * Attaches a starting cache to the watch on its service, starting the watch if it is the first.
     *
     * @return the watch
     */
    ServiceWatch<T> watch(String name, ServiceCache<T> cache) {
        synchronized (watches) {
            ServiceWatch<T> watch = watches.get(name);
            if (watch == null) {
                watch = new ServiceWatch<>(this, name);
                watches.put(name, watch);
                watch.start(); // sends its reads, and returns
            }
            watch.attach(cache);
            return watch;
        }
    }

    /** Detaches a closing cache from its watch, and closes the watch if no cache is left on it. */
    void unwatch(ServiceWatch<T> watch, ServiceCache<T> cache) {
        synchronized (watches) {
            watch.detach(cache);
            if (watch.size() > 0) {
                return;
            }
            watches.values().remove(watch);
        }
        watch.close();
    }

    /** Decodes a registration's data; null (and a warning) if it has none or it does not decode. */
    @Nullable ServiceInstance<T> decode(String path, byte @Nullable [] bytes) {
        if (bytes == null) {
            LOG.warn("ServiceDiscovery: skipping {}: it has no data", path);
            return null;
        }
        try {
            return serializer.deserialize(bytes);
        } catch (RuntimeException e) {
            LOG.warn("ServiceDiscovery: skipping {}: its data does not decode: {}", path, e.toString());
            return null;
        }
    }

    /** {@return the path of a registered instance of this discovery, with its sequence number if it has one} */
    @Nullable String registeredPath(String id) {
        Registration<T> registration = registrations.get(id);
        return registration == null ? null : registration.actualPath();
    }

    private String pathFor(ServiceInstance<T> instance) {
        return BatonPaths.makePath(BatonPaths.makePath(basePath, instance.getName()), instance.getId());
    }

    private void connectionStateChanged(BatonClient c, ConnectionState newState) {
        if (newState == ConnectionState.CONNECTED || newState == ConnectionState.RECONNECTED) {
            registrations.values().forEach(Registration::retryIfPending);
        }
    }

    private void checkNotClosed() {
        if (state.state() == Lifecycle.State.CLOSED) {
            throw new IllegalStateException("ServiceDiscovery is closed");
        }
    }

    @Override
    public String toString() {
        return "ServiceDiscovery[" + basePath + ", " + registrations.size() + " registered]";
    }
}
