package dev.baton.testing;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The settings of one {@link ZooKeeperEnsemble}, as {@link EnsembleOptions#settings()} made them from a builder's
 * options: checked together and with every default chosen. Immutable.
 *
 * @param servers the number of servers, 1 to 9
 * @param clientProxies whether a {@link TcpProxy} stands in front of each server's client port
 * @param peerProxies whether the servers reach their peers through proxies
 * @param reconfigEnabled ZooKeeper's {@code reconfigEnabled}; never with peer proxies
 * @param tickTime the servers' tick
 * @param minSessionTimeout the shortest session timeout the servers grant
 * @param maxSessionTimeout the longest session timeout the servers grant
 * @param startTimeout how long the start of the ensemble, or of one server, may take
 * @param security how the servers secure their clients
 * @param heap each server JVM's maximum heap, as for {@code -Xmx}
 * @param jvmArgs extra JVM arguments for every server, after the kit's own
 * @param classpath the class path of the server JVMs
 * @param serverVersion the release the servers run, e.g. {@code 3.8.6}
 * @param extraConfig extra {@code zoo.cfg} lines for every server, in the order they were set
 */
record EnsembleSettings(int servers, boolean clientProxies, boolean peerProxies, boolean reconfigEnabled,
        Duration tickTime, Duration minSessionTimeout, Duration maxSessionTimeout, Duration startTimeout,
        ServerSecurity security, String heap, List<String> jvmArgs, String classpath, String serverVersion,
        Map<String, String> extraConfig) {
}
