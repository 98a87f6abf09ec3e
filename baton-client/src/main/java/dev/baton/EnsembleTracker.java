package dev.baton;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a dynamically reconfigured ensemble: reads {@code /zookeeper/config} with a watch on each connection
 * and, when the server list changes, hands the new connect string to the {@link EnsembleProvider} and moves the
 * live handle to the provider's answer ({@code ZooKeeper.updateServerList}). A client on TLS is left where it is:
 * the config names only plaintext client ports.
 */
final class EnsembleTracker {
    private static final Logger LOG = LoggerFactory.getLogger(EnsembleTracker.class);
    static final String CONFIG_NODE = "/zookeeper/config";

    private final ClientCore core;
    /** One watcher for the life of the client, so reconnects do not pile up watchers on the config node. */
    private final Watcher configWatcher;

    EnsembleTracker(ClientCore core) {
        this.core = core;
        this.configWatcher = event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDataChanged && !core.isClosed()) {
                read(core.session().handle());
            }
        };
    }

    void onConnected(ZooKeeper zk) {
        read(zk);
    }

    private void read(ZooKeeper zk) {
        zk.getConfig(configWatcher, (rc, path, ctx, data, stat) -> {
            if (rc == KeeperException.Code.OK.intValue() && data != null) {
                apply(zk, data);
            }
        }, null);
    }

    private void apply(ZooKeeper zk, byte[] data) {
        if (zk.getClientConfig().getBoolean(ZKClientConfig.SECURE_CLIENT)) {
            // The config lists each server's plaintext client port only (a secure port is not part of it):
            // following it would move a TLS session to a port that speaks no TLS.
            LOG.debug("Ensemble config not followed: the client connects over TLS");
            return;
        }
        String chroot = chrootOf(core.config().ensembleProvider().getConnectionString());
        String servers = connectStringFromConfig(new String(data, StandardCharsets.UTF_8));
        if (servers.isEmpty()) {
            return;
        }
        String connectString = servers + chroot;
        EnsembleProvider provider = core.config().ensembleProvider();
        String before = provider.getConnectionString();
        if (connectString.equals(before) || !provider.updateServerListEnabled()) {
            return;
        }
        provider.setConnectionString(connectString);
        // The provider has the last word: one that reaches the servers through other addresses (a NAT, proxies)
        // maps the configuration's addresses to its own, and may find nothing changed.
        String now = provider.getConnectionString();
        if (now.equals(before)) {
            return;
        }
        LOG.info("Ensemble reconfigured; servers now {}", now);
        try {
            zk.updateServerList(now);
        } catch (Exception e) {
            core.reportError("could not move the session to the reconfigured ensemble " + now, e);
        }
    }

    private static String chrootOf(String connectString) {
        int slash = connectString.indexOf('/');
        return slash < 0 ? "" : connectString.substring(slash);
    }

    /**
     * Extracts the client addresses from the text of {@code /zookeeper/config}, whose server lines read
     * {@code server.<id>=<host>:<quorumPort>:<electionPort>[:<role>];[<clientHost>:]<clientPort>}. A wildcard
     * or missing client host is replaced by the server's host.
     */
    static String connectStringFromConfig(String config) {
        List<String> addresses = new ArrayList<>();
        for (String line : config.split("\n", -1)) {
            line = line.trim();
            if (!line.startsWith("server.")) {
                continue;
            }
            int eq = line.indexOf('=');
            int semi = line.indexOf(';');
            if (eq < 0 || semi < 0) {
                continue;
            }
            String serverPart = line.substring(eq + 1, semi);
            String host = hostOf(serverPart);
            String client = line.substring(semi + 1).trim();
            int colon = client.lastIndexOf(':');
            String clientHost = colon < 0 ? "" : client.substring(0, colon);
            String clientPort = client.substring(colon + 1);
            if (clientHost.isEmpty() || clientHost.equals("0.0.0.0") || clientHost.equals("[::]")) {
                clientHost = host;
            }
            addresses.add(clientHost + ":" + clientPort);
        }
        return String.join(",", addresses);
    }

    private static String hostOf(String serverPart) {
        if (serverPart.startsWith("[")) {
            int end = serverPart.indexOf(']');
            return serverPart.substring(0, end + 1);
        }
        int colon = serverPart.indexOf(':');
        return colon < 0 ? serverPart : serverPart.substring(0, colon);
    }

}
