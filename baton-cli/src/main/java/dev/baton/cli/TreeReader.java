package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reads a node and its descendants down to a depth into a {@link Znode} tree. The reads are pipelined: every
 * node's {@code getData} and {@code getChildren} are sent as soon as its parent's listing is back, without
 * waiting for its siblings, so a tree costs about one round trip per level. A node that disappears between its
 * parent's listing and its own read is left out. The result is a snapshot of a moving tree, not an atomic one.
 *
 * <p>Thread-safe (it keeps no state besides the client).
 */
final class TreeReader {

    private final BatonClient client;

    /**
     * @param client a started client
     */
    TreeReader(BatonClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Reads {@code path} and its descendants.
     *
     * @param path the top node
     * @param depth levels of children to read: 0 for the node alone, {@link Integer#MAX_VALUE} for all
     * @return the tree; nodes at {@code depth} have their children unread (null)
     * @throws KeeperException.NoNodeException if {@code path} does not exist
     * @throws KeeperException if ZooKeeper fails otherwise
     * @throws InterruptedException if interrupted
     * @throws IllegalArgumentException if the path is invalid
     */
    Znode read(String path, int depth) throws KeeperException, InterruptedException {
        BatonPaths.validate(path);
        return Failures.await(read(path, depth, true));
    }

    private CompletableFuture<Znode> read(String path, int depth, boolean top) {
        Stat stat = new Stat();
        CompletableFuture<Znode> node = client.getData().storingStatIn(stat).forPathAsync(path).thenCompose(data -> {
            if (depth <= 0) {
                return CompletableFuture.completedFuture(new Znode(path, data, stat, null));
            }
            if (stat.getNumChildren() == 0) {
                return CompletableFuture.completedFuture(new Znode(path, data, stat, List.of()));
            }
            return client.getChildren().forPathAsync(path).thenCompose(names -> {
                List<CompletableFuture<Znode>> children = new ArrayList<>(names.size());
                for (String name : names) {
                    children.add(read(BatonPaths.makePath(path, name), depth == Integer.MAX_VALUE ? depth
                            : depth - 1, false));
                }
                return CompletableFuture.allOf(children.toArray(CompletableFuture[]::new)).thenApply(done -> {
                    List<Znode> read = new ArrayList<>(children.size());
                    children.forEach(child -> {
                        Znode z = child.join();
                        if (z != null) {
                            read.add(z);
                        }
                    });
                    return new Znode(path, data, stat, read);
                });
            });
        });
        if (top) {
            return node;
        }
        // Below the top, a node deleted meanwhile is simply no longer there.
        return node.handle((z, error) -> {
            if (error == null) {
                return z;
            }
            if (Failures.unwrap(error) instanceof KeeperException.NoNodeException) {
                return null;
            }
            throw Failures.asCompletion(error);
        });
    }
}
