package dev.baton.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The files a server of a {@link ZooKeeperEnsemble} starts from: its {@code zoo.cfg} and {@code myid}, naming its
 * peers directly or through their proxies, and the security files (key store passwords, JAAS) with the system
 * properties that point the server to them.
 */
final class ServerConfigFiles {

    private ServerConfigFiles() {
    }

    /**
     * Writes the {@code zoo.cfg} and {@code myid} of {@code server}, creating its data directory.
     *
     * @param server the server
     * @param servers every server of the ensemble, {@code server} among them, in id order
     * @param settings the ensemble's settings
     * @param network the ensemble's proxies, which name the peers with peer proxies
     * @throws UncheckedIOException if a file cannot be written
     */
    static void writeConfig(EnsembleServer server, Collection<EnsembleServer> servers, EnsembleSettings settings,
            EnsembleNetwork network) {
        StringBuilder cfg = new StringBuilder();
        int tick = Math.toIntExact(settings.tickTime().toMillis());
        cfg.append("tickTime=").append(tick).append('\n')
                .append("initLimit=20\n")
                .append("syncLimit=10\n")
                .append("dataDir=").append(server.dataDir.toAbsolutePath()).append('\n')
                .append("minSessionTimeout=").append(settings.minSessionTimeout().toMillis()).append('\n')
                .append("maxSessionTimeout=").append(settings.maxSessionTimeout().toMillis()).append('\n')
                .append("maxClientCnxns=0\n")
                .append("standaloneEnabled=false\n")
                .append("reconfigEnabled=").append(settings.reconfigEnabled()).append('\n')
                .append("4lw.commands.whitelist=*\n")
                .append("admin.enableServer=false\n")
                .append("forceSync=no\n")
                .append("cnxTimeout=2000\n");
        if (server.secureClientPort != 0) {
            cfg.append("secureClientPort=").append(server.secureClientPort).append('\n');
        }
        settings.extraConfig().forEach((k, v) -> cfg.append(k).append('=').append(v).append('\n'));
        for (EnsembleServer peer : servers) {
            int quorum = peer.quorumPort;
            int election = peer.electionPort;
            if (peer.id != server.id && settings.peerProxies()) {
                quorum = network.peerProxyPort(server.id, peer.id, false);
                election = network.peerProxyPort(server.id, peer.id, true);
            }
            cfg.append("server.").append(peer.id).append("=127.0.0.1:").append(quorum).append(':')
                    .append(election).append(":participant;127.0.0.1:").append(peer.clientPort).append('\n');
        }
        try {
            Files.createDirectories(server.dataDir);
            Files.writeString(server.dataDir.resolve("myid"), server.id + "\n", StandardCharsets.US_ASCII);
            Files.writeString(server.config, cfg.toString(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the configuration of server " + server.id, e);
        }
    }

    /**
     * Writes the security files of {@code server} into its directory and returns the system properties of
     * {@link ServerSecurity}: the Netty factory and {@code zookeeper.ssl.*} with passwords in files, the
     * {@code x509} and {@code sasl} providers, the JAAS file, required authentication.
     *
     * @param server the server
     * @param security the ensemble's security
     * @return {@code -D} arguments for the server's JVM; none without security
     * @throws UncheckedIOException if a file cannot be written
     */
    static List<String> securityArgs(EnsembleServer server, ServerSecurity security) {
        List<String> args = new ArrayList<>();
        try {
            if (security.tls().isPresent()) {
                args.add("-Dzookeeper.serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory");
                args.add("-Dzookeeper.authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider");
                for (Map.Entry<String, String> e : security.tlsProperties().entrySet()) {
                    if (e.getKey().endsWith(".password")) {
                        Path file = server.dir.resolve(e.getKey().replace("zookeeper.ssl.", "").replace('.', '-'));
                        Files.writeString(file, e.getValue(), StandardCharsets.UTF_8);
                        args.add("-D" + e.getKey() + "Path=" + file.toAbsolutePath());
                    } else {
                        args.add("-D" + e.getKey() + "=" + e.getValue());
                    }
                }
            }
            if (security.sasl()) {
                Path jaas = server.dir.resolve("jaas.conf");
                Jaas.writeFile(jaas, "Server", Jaas.serverEntry(security.saslUsers()));
                args.add("-Djava.security.auth.login.config=" + jaas.toAbsolutePath());
                args.add("-D" + Jaas.FIPS_MODE + "=false"); // DIGEST-MD5: see Jaas.FIPS_MODE
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the security files of server " + server.id, e);
        }
        security.authenticationProperties().forEach((k, v) -> args.add("-D" + k + "=" + v));
        return args;
    }
}
