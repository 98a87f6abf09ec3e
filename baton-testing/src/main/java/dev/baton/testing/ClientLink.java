package dev.baton.testing;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * A private network path from one client to every server of a {@link ZooKeeperEnsemble} (or to one
 * {@link EmbeddedZooKeeper}, as server 1): one {@link TcpProxy} per server, used by that client alone, so a test
 * can partition a given client from a given server (or from all of them) while every other client carries on.
 *
 * <pre>{@code
 * ClientLink link = ensemble.newClientLink();
 * ZooKeeper zk = new ZooKeeper(link.connectString(), 4_000, watcher);
 * link.partition(TcpProxy.Mode.BLACKHOLE);       // this client only; it notices by its read timeout
 * link.partition(2, TcpProxy.Mode.DROP);         // or only its path to server 2
 * link.heal();
 * }</pre>
 *
 * <p>When the ensemble has client proxies of its own, a link goes through them, so
 * {@link ZooKeeperEnsemble#partitionClient(int, TcpProxy.Mode)} still cuts this client too. Closing the
 * ensemble (or the embedded server) closes its links.
 *
 * <p>Thread-safety: all methods are safe to call from any thread.
 */
public final class ClientLink implements AutoCloseable {

    private final Map<Integer, TcpProxy> proxies;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final java.util.function.Consumer<ClientLink> onClose;

    /**
     * @param targets server id to the port (on 127.0.0.1) the link forwards to, in server-id order
     * @param onClose given this link once when it closes (its server forgets it)
     */
    ClientLink(String name, Map<Integer, Integer> targets, java.util.function.Consumer<ClientLink> onClose) {
        Map<Integer, TcpProxy> map = new LinkedHashMap<>();
        try {
            targets.forEach((id, port) -> map.put(id, TcpProxy.start(name + "-s" + id, port)));
        } catch (RuntimeException e) {
            map.values().forEach(TcpProxy::close);
            throw e;
        }
        this.proxies = Collections.unmodifiableMap(map);
        this.onClose = onClose;
    }

    /**
     * The connect string of this link, {@code "127.0.0.1:<p1>,127.0.0.1:<p2>,..."}, one address per server.
     *
     * @return the connect string for the one client that uses this link
     */
    public String connectString() {
        return proxies.values().stream().map(TcpProxy::address).collect(Collectors.joining(","));
    }

    /**
     * The connect string that reaches only server {@code serverId} through this link.
     *
     * @param serverId a server of the ensemble
     * @return {@code "127.0.0.1:<port>"}
     * @throws IllegalArgumentException if there is no such server
     */
    public String connectString(int serverId) {
        return proxy(serverId).address();
    }

    /**
     * The ids of the servers this link reaches.
     *
     * @return the server ids, in order
     */
    public Set<Integer> serverIds() {
        return proxies.keySet();
    }

    /**
     * Partitions this client from every server.
     *
     * @param mode {@link TcpProxy.Mode#DROP} (noticed at once) or {@link TcpProxy.Mode#BLACKHOLE} (noticed by
     *     timeout)
     * @throws IllegalStateException if the link is closed
     */
    public void partition(TcpProxy.Mode mode) {
        Objects.requireNonNull(mode, "mode");
        proxies.values().forEach(p -> p.partition(mode));
    }

    /**
     * Partitions this client from server {@code serverId} only.
     *
     * @param serverId the server to cut this client from
     * @param mode the kind of partition
     * @throws IllegalArgumentException if there is no such server
     * @throws IllegalStateException if the link is closed
     */
    public void partition(int serverId, TcpProxy.Mode mode) {
        Objects.requireNonNull(mode, "mode");
        proxy(serverId).partition(mode);
    }

    /** Heals every partition of this link. */
    public void heal() {
        proxies.values().forEach(TcpProxy::heal);
    }

    /**
     * Heals the partition between this client and server {@code serverId}.
     *
     * @param serverId the server
     * @throws IllegalArgumentException if there is no such server
     */
    public void heal(int serverId) {
        proxy(serverId).heal();
    }

    /**
     * Adds latency to every chunk this client sends or receives; see {@link TcpProxy#latency(Duration)}.
     *
     * @param latency zero or more
     */
    public void latency(Duration latency) {
        proxies.values().forEach(p -> p.latency(latency));
    }

    /**
     * The number of connections open through this link (0 or 1 for one ZooKeeper handle, more while it
     * reconnects through a black hole).
     *
     * @return the count over all servers
     */
    public int connectionCount() {
        return proxies.values().stream().mapToInt(TcpProxy::connectionCount).sum();
    }

    /**
     * The proxy that carries this client's traffic to server {@code serverId}.
     *
     * @param serverId the server
     * @return the proxy
     * @throws IllegalArgumentException if there is no such server
     */
    public TcpProxy proxy(int serverId) {
        TcpProxy p = proxies.get(serverId);
        if (p == null) {
            throw new IllegalArgumentException("no server " + serverId + " in " + proxies.keySet());
        }
        return p;
    }

    /** Closes the link's proxies and their connections. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            proxies.values().forEach(TcpProxy::close);
            onClose.accept(this);
        }
    }

    /** The addresses, for test output. */
    @Override
    public String toString() {
        return "ClientLink[" + connectString() + (closed.get() ? " closed" : "") + "]";
    }
}
