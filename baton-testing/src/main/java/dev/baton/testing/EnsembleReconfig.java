package dev.baton.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.admin.ZooKeeperAdmin;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.jspecify.annotations.Nullable;

/**
 * Dynamic reconfiguration of a {@link ZooKeeperEnsemble}, as an operator does it with {@code reconfig -remove} and
 * {@code reconfig -add}: an admin handle, authenticated as the servers' super user (a digest the kit gives every
 * server of an ensemble with reconfiguration on), asks a serving member to change the membership, which the quorum
 * commits like a write.
 */
final class EnsembleReconfig {

    private static final String SUPER_USER = "baton-kit-super";
    private static final String SUPER_PASSWORD = "baton-kit-reconfig";
    private static final int ADMIN_SESSION_MS = 10_000;

    private EnsembleReconfig() {
    }

    /** The server JVM argument that makes the kit's admin handle a super user (it may reconfigure). */
    static String superDigestArg() {
        try {
            return "-Dzookeeper.DigestAuthenticationProvider.superDigest="
                    + DigestAuthenticationProvider.generateDigest(SUPER_USER + ":" + SUPER_PASSWORD);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-1 for ZooKeeper's digest", e);
        }
    }

    /** The configuration line that adds {@code server} back as a voting member. */
    static String memberLine(EnsembleServer server) {
        return "server." + server.id + "=127.0.0.1:" + server.quorumPort + ":" + server.electionPort
                + ":participant;127.0.0.1:" + server.clientPort;
    }

    /**
     * Asks the members among {@code via} to apply a change and waits for its commit.
     *
     * @param via serving servers to send the change through
     * @param joining a member line to add, or null
     * @param leaving a server id to remove, or null
     * @param timeout the longest wait for a connection and for the commit
     * @return the voting members of the new configuration
     */
    static Set<Integer> reconfigure(Collection<EnsembleServer> via, @Nullable String joining, @Nullable String leaving,
            Duration timeout) throws InterruptedException {
        String connect = via.stream().map(s -> "127.0.0.1:" + s.clientPort).collect(Collectors.joining(","));
        if (connect.isEmpty()) {
            throw new IllegalStateException("no serving server to reconfigure the ensemble through");
        }
        CompletableFuture<Void> connected = new CompletableFuture<>();
        ZooKeeperAdmin admin;
        try {
            admin = new ZooKeeperAdmin(connect, ADMIN_SESSION_MS, e -> {
                if (e.getState() == KeeperState.SyncConnected) {
                    connected.complete(null);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open an admin handle to " + connect, e);
        }
        try {
            connected.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            admin.addAuthInfo("digest", (SUPER_USER + ":" + SUPER_PASSWORD).getBytes(StandardCharsets.UTF_8));
            byte[] config = admin.reconfigure(joining, leaving, null, -1, new Stat());
            return votingMembers(new String(config, StandardCharsets.UTF_8));
        } catch (TimeoutException e) {
            throw new IllegalStateException("no server of " + connect + " answered within " + timeout, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot connect to " + connect, e.getCause());
        } catch (KeeperException e) {
            throw new IllegalStateException("reconfiguration (add " + joining + ", remove " + leaving + ") failed: "
                    + e.getMessage(), e);
        } finally {
            admin.close();
        }
    }

    /** The ids of the {@code participant} lines of a configuration's text. */
    static Set<Integer> votingMembers(String config) {
        Set<Integer> ids = new TreeSet<>();
        for (String line : config.split("\n", -1)) {
            if (line.startsWith("server.") && line.contains(":participant")) {
                ids.add(Integer.parseInt(line.substring("server.".length(), line.indexOf('='))));
            }
        }
        return ids;
    }
}
