package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;

/**
 * Asks the holder of a lock node to give it up, with Curator's protocol (the node's data set to
 * {@code __REVOKE__}), so Baton and Curator holders made {@link Revocable revocable} both hear it. Find the node
 * with {@code getParticipantNodes()}, or {@code baton inspect}.
 *
 * <pre>{@code
 * Collection<String> nodes = lock.getParticipantNodes();
 * Revoker.attemptRevoke(client, nodes.iterator().next());   // the first node holds the lock
 * }</pre>
 */
public final class Revoker {
    /** The data that asks for revocation, as Curator writes it. */
    static final byte[] REVOKE_MESSAGE = "__REVOKE__".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private Revoker() {
    }

    /**
     * Asks the holder of {@code nodePath} to release it. Does nothing if the node is gone (released already). A
     * holder that was not made revocable does not hear it.
     *
     * @param client the client
     * @param nodePath the full path of the holder's lock node
     * @throws KeeperException if the write fails otherwise
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public static void attemptRevoke(BatonClient client, String nodePath)
            throws KeeperException, InterruptedException {
        Failures.await(attemptRevokeAsync(client, nodePath));
    }

    /**
     * As {@link #attemptRevoke(BatonClient, String)}, without holding a thread while waiting.
     *
     * @param client the client
     * @param nodePath the full path of the holder's lock node
     * @return a future that completes once the request is written (or the node found gone), or fails with the
     *         {@link KeeperException} ZooKeeper answered
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public static CompletableFuture<Void> attemptRevokeAsync(BatonClient client, String nodePath) {
        Objects.requireNonNull(client, "client");
        BatonPaths.validate(Objects.requireNonNull(nodePath, "nodePath"));
        return Failures.unwrapped(client.setData().forPathAsync(nodePath, REVOKE_MESSAGE).handle((stat, error) -> {
            if (error != null && Failures.code(error) != KeeperException.Code.NONODE) {
                throw Failures.asCompletion(error);
            }
            return null;
        }));
    }
}
