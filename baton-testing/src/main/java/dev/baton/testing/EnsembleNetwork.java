package dev.baton.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network of a {@link ZooKeeperEnsemble} and its faults: the {@link TcpProxy client proxies} in front of the
 * servers, the peer proxies between them (one per direction, per peer pair, for the quorum port and the election
 * port), the open {@link ClientLink}s, and the partitions and latency made with them. Callers check the server
 * ids. Thread-safe: the proxies are in concurrent maps, read by proxy threads too (the election handshake).
 */
final class EnsembleNetwork {

    private static final Logger LOG = LoggerFactory.getLogger(EnsembleNetwork.class);

    private final String name;
    private final EnsembleSettings settings;
    private final Map<Integer, EnsembleServer> servers;
    private final Map<Integer, TcpProxy> clientProxies = new ConcurrentSkipListMap<>();
    /** Peer proxies by direction; read by proxy threads (the election handshake), hence concurrent. */
    private final Map<PeerLink, TcpProxy> peerProxies = new ConcurrentHashMap<>();
    private final Set<ClientLink> clientLinks = ConcurrentHashMap.newKeySet();
    private final AtomicInteger linkNumbers = new AtomicInteger();

    /**
     * A network without proxies yet.
     *
     * @param name the ensemble's name, which names the proxies
     * @param settings which proxies to create
     * @param servers the ensemble's servers in id order, not modified afterwards
     */
    EnsembleNetwork(String name, EnsembleSettings settings, Map<Integer, EnsembleServer> servers) {
        this.name = name;
        this.settings = settings;
        this.servers = servers;
    }

    /** Starts the proxies the settings ask for, in front of the servers' current ports. */
    void createProxies() {
        if (settings.clientProxies()) {
            for (EnsembleServer s : servers.values()) {
                clientProxies.put(s.id, TcpProxy.start(name + "-client-s" + s.id, s.servingPort()));
            }
        }
        if (settings.peerProxies()) {
            for (EnsembleServer from : servers.values()) {
                for (EnsembleServer to : servers.values()) {
                    if (from.id == to.id) {
                        continue;
                    }
                    PeerLink quorum = new PeerLink(from.id, to.id, false);
                    peerProxies.put(quorum, TcpProxy.start(name + "-quorum-" + from.id + "to" + to.id,
                            to.quorumPort));
                    PeerLink election = new PeerLink(from.id, to.id, true);
                    PeerLink back = new PeerLink(to.id, from.id, true);
                    peerProxies.put(election, TcpProxy.start(name + "-election-" + from.id + "to" + to.id,
                            to.electionPort, new ElectionHandshake(() -> peerProxy(back).address())));
                }
            }
        }
    }

    /** Closes every proxy (not the client links), e.g. before a retried start chooses new ports. */
    void closeProxies() {
        clientProxies.values().forEach(TcpProxy::close);
        clientProxies.clear();
        peerProxies.values().forEach(TcpProxy::close);
        peerProxies.clear();
    }

    /** Closes every open client link. */
    void closeClientLinks() {
        new ArrayList<>(clientLinks).forEach(ClientLink::close);
    }

    /** The connect string of the client proxies; empty if there are none. */
    Optional<String> proxiedConnectString() {
        if (clientProxies.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(clientProxies.values().stream().map(TcpProxy::address).collect(Collectors.joining(",")));
    }

    /** The address clients use to reach {@code server} alone: its client proxy if enabled, else the server. */
    String connectString(EnsembleServer server) {
        TcpProxy proxy = clientProxies.get(server.id);
        return proxy != null ? proxy.address() : "127.0.0.1:" + server.servingPort();
    }

    /** The port of the proxy that server {@code from} uses to reach peer {@code to}'s quorum or election port. */
    int peerProxyPort(int from, int to, boolean election) {
        return peerProxy(new PeerLink(from, to, election)).port();
    }

    /** The proxy of a peer link; they all exist from {@link #createProxies()} until {@link #closeProxies()}. */
    private TcpProxy peerProxy(PeerLink link) {
        TcpProxy p = peerProxies.get(link);
        if (p == null) {
            throw new IllegalStateException("no proxy for " + link + " in ensemble " + name);
        }
        return p;
    }

    /** The client proxy of server {@code id}; fails if client proxies are not enabled. */
    TcpProxy clientProxy(int id) {
        TcpProxy p = clientProxies.get(id);
        if (p == null) {
            throw new IllegalStateException("client proxies are not enabled; use builder().clientProxies(true)");
        }
        return p;
    }

    /** Cuts server {@code id} from all its peers, both ways; fails if peer proxies are not enabled. */
    void isolate(int id, TcpProxy.Mode mode) {
        requirePeerProxies();
        for (Map.Entry<PeerLink, TcpProxy> e : peerProxies.entrySet()) {
            if (e.getKey().from() == id || e.getKey().to() == id) {
                e.getValue().partition(mode);
            }
        }
        LOG.info("ensemble {}: isolated server {} ({})", name, id, mode);
    }

    /** Cuts the link between servers {@code a} and {@code b}, both ways; fails if peer proxies are not enabled. */
    void partitionPeers(int a, int b, TcpProxy.Mode mode) {
        if (a == b) {
            throw new IllegalArgumentException("a server cannot be partitioned from itself: " + a);
        }
        requirePeerProxies();
        for (Map.Entry<PeerLink, TcpProxy> e : peerProxies.entrySet()) {
            PeerLink l = e.getKey();
            if ((l.from() == a && l.to() == b) || (l.from() == b && l.to() == a)) {
                e.getValue().partition(mode);
            }
        }
    }

    /** Whether a peer link is partitioned now. */
    boolean anyPeerPartition() {
        return peerProxies.values().stream().anyMatch(p -> p.partitionMode().isPresent());
    }

    void healPeers() {
        peerProxies.values().forEach(TcpProxy::heal);
    }

    /** Heals every proxy and client link and removes all their latency. */
    void healAll() {
        List<TcpProxy> all = new ArrayList<>(clientProxies.values());
        all.addAll(peerProxies.values());
        for (TcpProxy p : all) {
            p.heal();
            p.latency(Duration.ZERO);
        }
        for (ClientLink link : clientLinks) {
            link.heal();
            link.latency(Duration.ZERO);
        }
    }

    /** Adds latency on every link from and to server {@code id}'s peers; fails if peer proxies are not enabled. */
    void peerLatency(int id, Duration latency) {
        requirePeerProxies();
        peerProxies.forEach((l, p) -> {
            if (l.from() == id || l.to() == id) {
                p.latency(latency);
            }
        });
    }

    /** Opens a private path for one client, to each server's client proxy if enabled, else to the server. */
    ClientLink newClientLink() {
        Map<Integer, Integer> targets = new LinkedHashMap<>();
        for (EnsembleServer s : servers.values()) {
            TcpProxy p = clientProxies.get(s.id);
            targets.put(s.id, p != null ? p.port() : s.servingPort());
        }
        ClientLink link = new ClientLink(name + "-link" + linkNumbers.incrementAndGet(), targets,
                clientLinks::remove);
        clientLinks.add(link);
        return link;
    }

    private void requirePeerProxies() {
        if (!settings.peerProxies()) {
            throw new IllegalStateException("peer proxies are not enabled; use builder().peerProxies(true)");
        }
    }

    /** A directed peer connection: from a server to a peer's quorum or election port. */
    private record PeerLink(int from, int to, boolean election) {
    }
}
