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
    private static String memberLine(EnsembleServer server) {
        return "server." + server.id + "=127.0.0.1:" + server.quorumPort + ":" + server.electionPort
                + ":participant;127.0.0.1:" + server.clientPort;
    }

    /**
     * Asks the members among {@code via} to apply a change and waits for its commit. A change that removes the
     * leader ends the leadership that takes it, so its answer can be lost with the connection: each attempt first
     * reads the configuration and stops there if the change is in it, else asks (again), until {@code timeout}.
     *
     * @param via serving servers to send the change through
     * @param joining the server to add, or null
     * @param leaving the server to remove, or null
     * @param timeout the longest time for the whole change
     * @return the voting members of the new configuration
     */
    static Set<Integer> reconfigure(Collection<EnsembleServer> via, @Nullable EnsembleServer joining,
            @Nullable EnsembleServer leaving, Duration timeout) throws InterruptedException {
        String connect = via.stream().map(s -> "127.0.0.1:" + s.clientPort).collect(Collectors.joining(","));
        if (connect.isEmpty()) {
            throw new IllegalStateException("no serving server to reconfigure the ensemble through");
        }
        String change = (joining != null ? "add server " + joining.id : "") + (leaving != null ? "remove server "
                + leaving.id : "");
        long deadline = System.nanoTime() + timeout.toNanos();
        KeeperException last = null;
        while (System.nanoTime() - deadline < 0) {
            try (AdminHandle handle = AdminHandle.open(connect, deadline)) {
                ZooKeeperAdmin admin = handle.admin();
                admin.sync("/zookeeper/config");
                Set<Integer> members = votingMembers(new String(admin.getConfig(false, new Stat()),
                        StandardCharsets.UTF_8));
                if ((joining == null || members.contains(joining.id))
                        && (leaving == null || !members.contains(leaving.id))) {
                    return members;
                }
                byte[] config = admin.reconfigure(joining == null ? null : memberLine(joining),
                        leaving == null ? null : Integer.toString(leaving.id), null, -1, new Stat());
                return votingMembers(new String(config, StandardCharsets.UTF_8));
            } catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException
                    | KeeperException.ReconfigInProgress | KeeperException.NewConfigNoQuorum e) {
                last = e; // the leader changed under the change, or another is under way: look again
                Thread.sleep(200);
            } catch (KeeperException e) {
                throw new IllegalStateException("reconfiguration (" + change + ") failed: " + e.getMessage(), e);
            }
        }
        throw new IllegalStateException("reconfiguration (" + change + ") not done within " + timeout, last);
    }

    /** An authenticated admin handle, connected. */
    private record AdminHandle(ZooKeeperAdmin admin) implements AutoCloseable {
        static AdminHandle open(String connect, long deadline) throws InterruptedException {
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
                connected.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                admin.close();
                throw new IllegalStateException("no server of " + connect + " answered", e);
            } catch (InterruptedException e) {
                admin.close();
                throw e;
            }
            admin.addAuthInfo("digest", (SUPER_USER + ":" + SUPER_PASSWORD).getBytes(StandardCharsets.UTF_8));
            return new AdminHandle(admin);
        }

        @Override
        public void close() {
            try {
                admin.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
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
